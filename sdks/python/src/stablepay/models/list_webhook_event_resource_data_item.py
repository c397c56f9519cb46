from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.delivery_status import DeliveryStatus
from ..models.event_type import EventType
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.list_webhook_event_resource_data_item_payload import (
        ListWebhookEventResourceDataItemPayload,
    )


T = TypeVar("T", bound="ListWebhookEventResourceDataItem")


@_attrs_define
class ListWebhookEventResourceDataItem:
    """
    Attributes:
        attempts (int):
        created_at (datetime.datetime): An RFC 3339 time in UTC with milliseconds.
        endpoint (str): A webhook endpoint id (`we_…`).
        id (str): A webhook event id (`evt_…`).
        livemode (bool):
        object_ (str):
        payload (ListWebhookEventResourceDataItemPayload):
        status (DeliveryStatus): DeliveryStatus
        type_ (EventType): An event type.
        last_attempt_at (datetime.datetime | None | Unset):
        last_error (None | str | Unset):
        next_attempt_at (datetime.datetime | None | Unset):
        resend_of (None | str | Unset):
        response_status (int | None | Unset):
    """

    attempts: int
    created_at: datetime.datetime
    endpoint: str
    id: str
    livemode: bool
    object_: str
    payload: ListWebhookEventResourceDataItemPayload
    status: DeliveryStatus
    type_: EventType
    last_attempt_at: datetime.datetime | None | Unset = UNSET
    last_error: None | str | Unset = UNSET
    next_attempt_at: datetime.datetime | None | Unset = UNSET
    resend_of: None | str | Unset = UNSET
    response_status: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        attempts = self.attempts

        created_at = self.created_at.isoformat()

        endpoint = self.endpoint

        id = self.id

        livemode = self.livemode

        object_ = self.object_

        payload = self.payload.to_dict()

        status = self.status.value

        type_ = self.type_.value

        last_attempt_at: None | str | Unset
        if isinstance(self.last_attempt_at, Unset):
            last_attempt_at = UNSET
        elif isinstance(self.last_attempt_at, datetime.datetime):
            last_attempt_at = self.last_attempt_at.isoformat()
        else:
            last_attempt_at = self.last_attempt_at

        last_error: None | str | Unset
        if isinstance(self.last_error, Unset):
            last_error = UNSET
        else:
            last_error = self.last_error

        next_attempt_at: None | str | Unset
        if isinstance(self.next_attempt_at, Unset):
            next_attempt_at = UNSET
        elif isinstance(self.next_attempt_at, datetime.datetime):
            next_attempt_at = self.next_attempt_at.isoformat()
        else:
            next_attempt_at = self.next_attempt_at

        resend_of: None | str | Unset
        if isinstance(self.resend_of, Unset):
            resend_of = UNSET
        else:
            resend_of = self.resend_of

        response_status: int | None | Unset
        if isinstance(self.response_status, Unset):
            response_status = UNSET
        else:
            response_status = self.response_status

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "attempts": attempts,
                "created_at": created_at,
                "endpoint": endpoint,
                "id": id,
                "livemode": livemode,
                "object": object_,
                "payload": payload,
                "status": status,
                "type": type_,
            }
        )
        if last_attempt_at is not UNSET:
            field_dict["last_attempt_at"] = last_attempt_at
        if last_error is not UNSET:
            field_dict["last_error"] = last_error
        if next_attempt_at is not UNSET:
            field_dict["next_attempt_at"] = next_attempt_at
        if resend_of is not UNSET:
            field_dict["resend_of"] = resend_of
        if response_status is not UNSET:
            field_dict["response_status"] = response_status

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.list_webhook_event_resource_data_item_payload import (
            ListWebhookEventResourceDataItemPayload,
        )

        d = dict(src_dict)
        attempts = d.pop("attempts")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        endpoint = d.pop("endpoint")

        id = d.pop("id")

        livemode = d.pop("livemode")

        object_ = d.pop("object")

        payload = ListWebhookEventResourceDataItemPayload.from_dict(d.pop("payload"))

        status = DeliveryStatus(d.pop("status"))

        type_ = EventType(d.pop("type"))

        def _parse_last_attempt_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                last_attempt_at_type_1 = datetime.datetime.fromisoformat(data)

                return last_attempt_at_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        last_attempt_at = _parse_last_attempt_at(d.pop("last_attempt_at", UNSET))

        def _parse_last_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        last_error = _parse_last_error(d.pop("last_error", UNSET))

        def _parse_next_attempt_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                next_attempt_at_type_1 = datetime.datetime.fromisoformat(data)

                return next_attempt_at_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        next_attempt_at = _parse_next_attempt_at(d.pop("next_attempt_at", UNSET))

        def _parse_resend_of(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        resend_of = _parse_resend_of(d.pop("resend_of", UNSET))

        def _parse_response_status(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        response_status = _parse_response_status(d.pop("response_status", UNSET))

        list_webhook_event_resource_data_item = cls(
            attempts=attempts,
            created_at=created_at,
            endpoint=endpoint,
            id=id,
            livemode=livemode,
            object_=object_,
            payload=payload,
            status=status,
            type_=type_,
            last_attempt_at=last_attempt_at,
            last_error=last_error,
            next_attempt_at=next_attempt_at,
            resend_of=resend_of,
            response_status=response_status,
        )

        list_webhook_event_resource_data_item.additional_properties = d
        return list_webhook_event_resource_data_item

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
