from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.webhook_attempt_resource_object import WebhookAttemptResourceObject

T = TypeVar("T", bound="WebhookAttemptResource")


@_attrs_define
class WebhookAttemptResource:
    """One attempt at a delivery (an extra beyond the spec: `GET /webhook_events/{id}/attempts`).

    Attributes:
        attempted_at (datetime.datetime): An RFC 3339 time in UTC with milliseconds.
        duration_ms (int):
        error (None | str): Why no response was had (timeout, refused, connection), else null.
        id (str): A webhook attempt id (`wa_…`).
        livemode (bool):
        object_ (WebhookAttemptResourceObject):
        response_body (None | str): The first KiB of the response body.
        response_status (int | None):
        webhook_event (str): A webhook event id (`evt_…`).
    """

    attempted_at: datetime.datetime
    duration_ms: int
    error: None | str
    id: str
    livemode: bool
    object_: WebhookAttemptResourceObject
    response_body: None | str
    response_status: int | None
    webhook_event: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        attempted_at = self.attempted_at.isoformat()

        duration_ms = self.duration_ms

        error: None | str
        error = self.error

        id = self.id

        livemode = self.livemode

        object_ = self.object_.value

        response_body: None | str
        response_body = self.response_body

        response_status: int | None
        response_status = self.response_status

        webhook_event = self.webhook_event

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "attempted_at": attempted_at,
                "duration_ms": duration_ms,
                "error": error,
                "id": id,
                "livemode": livemode,
                "object": object_,
                "response_body": response_body,
                "response_status": response_status,
                "webhook_event": webhook_event,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        attempted_at = datetime.datetime.fromisoformat(d.pop("attempted_at"))

        duration_ms = d.pop("duration_ms")

        def _parse_error(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        error = _parse_error(d.pop("error"))

        id = d.pop("id")

        livemode = d.pop("livemode")

        object_ = WebhookAttemptResourceObject(d.pop("object"))

        def _parse_response_body(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        response_body = _parse_response_body(d.pop("response_body"))

        def _parse_response_status(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        response_status = _parse_response_status(d.pop("response_status"))

        webhook_event = d.pop("webhook_event")

        webhook_attempt_resource = cls(
            attempted_at=attempted_at,
            duration_ms=duration_ms,
            error=error,
            id=id,
            livemode=livemode,
            object_=object_,
            response_body=response_body,
            response_status=response_status,
            webhook_event=webhook_event,
        )

        webhook_attempt_resource.additional_properties = d
        return webhook_attempt_resource

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
