from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.delivery_status import DeliveryStatus
from ..models.event_type import EventType
from ..models.webhook_event_resource_object import WebhookEventResourceObject

if TYPE_CHECKING:
    from ..models.webhook_event_resource_payload import WebhookEventResourcePayload


T = TypeVar("T", bound="WebhookEventResource")


@_attrs_define
class WebhookEventResource:
    """
    Attributes:
        attempts (int):
        created_at (datetime.datetime): An RFC 3339 time in UTC with milliseconds.
        endpoint (str): A webhook endpoint id (`we_…`).
        id (str): A webhook event id (`evt_…`).
        last_attempt_at (datetime.datetime | None):
        last_error (None | str):
        livemode (bool):
        next_attempt_at (datetime.datetime | None):
        object_ (WebhookEventResourceObject):
        payload (WebhookEventResourcePayload):
        resend_of (None | str):
        response_status (int | None):
        status (DeliveryStatus): DeliveryStatus
        type_ (EventType): An event type.
    """

    attempts: int
    created_at: datetime.datetime
    endpoint: str
    id: str
    last_attempt_at: datetime.datetime | None
    last_error: None | str
    livemode: bool
    next_attempt_at: datetime.datetime | None
    object_: WebhookEventResourceObject
    payload: WebhookEventResourcePayload
    resend_of: None | str
    response_status: int | None
    status: DeliveryStatus
    type_: EventType
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        attempts = self.attempts

        created_at = self.created_at.isoformat()

        endpoint = self.endpoint

        id = self.id

        last_attempt_at: None | str
        if isinstance(self.last_attempt_at, datetime.datetime):
            last_attempt_at = self.last_attempt_at.isoformat()
        else:
            last_attempt_at = self.last_attempt_at

        last_error: None | str
        last_error = self.last_error

        livemode = self.livemode

        next_attempt_at: None | str
        if isinstance(self.next_attempt_at, datetime.datetime):
            next_attempt_at = self.next_attempt_at.isoformat()
        else:
            next_attempt_at = self.next_attempt_at

        object_ = self.object_.value

        payload = self.payload.to_dict()

        resend_of: None | str
        resend_of = self.resend_of

        response_status: int | None
        response_status = self.response_status

        status = self.status.value

        type_ = self.type_.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "attempts": attempts,
                "created_at": created_at,
                "endpoint": endpoint,
                "id": id,
                "last_attempt_at": last_attempt_at,
                "last_error": last_error,
                "livemode": livemode,
                "next_attempt_at": next_attempt_at,
                "object": object_,
                "payload": payload,
                "resend_of": resend_of,
                "response_status": response_status,
                "status": status,
                "type": type_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.webhook_event_resource_payload import WebhookEventResourcePayload

        d = dict(src_dict)
        attempts = d.pop("attempts")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        endpoint = d.pop("endpoint")

        id = d.pop("id")

        def _parse_last_attempt_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                last_attempt_at_type_1 = datetime.datetime.fromisoformat(data)

                return last_attempt_at_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        last_attempt_at = _parse_last_attempt_at(d.pop("last_attempt_at"))

        def _parse_last_error(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        last_error = _parse_last_error(d.pop("last_error"))

        livemode = d.pop("livemode")

        def _parse_next_attempt_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                next_attempt_at_type_1 = datetime.datetime.fromisoformat(data)

                return next_attempt_at_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        next_attempt_at = _parse_next_attempt_at(d.pop("next_attempt_at"))

        object_ = WebhookEventResourceObject(d.pop("object"))

        payload = WebhookEventResourcePayload.from_dict(d.pop("payload"))

        def _parse_resend_of(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        resend_of = _parse_resend_of(d.pop("resend_of"))

        def _parse_response_status(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        response_status = _parse_response_status(d.pop("response_status"))

        status = DeliveryStatus(d.pop("status"))

        type_ = EventType(d.pop("type"))

        webhook_event_resource = cls(
            attempts=attempts,
            created_at=created_at,
            endpoint=endpoint,
            id=id,
            last_attempt_at=last_attempt_at,
            last_error=last_error,
            livemode=livemode,
            next_attempt_at=next_attempt_at,
            object_=object_,
            payload=payload,
            resend_of=resend_of,
            response_status=response_status,
            status=status,
            type_=type_,
        )

        webhook_event_resource.additional_properties = d
        return webhook_event_resource

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
