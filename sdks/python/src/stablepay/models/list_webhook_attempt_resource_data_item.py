from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="ListWebhookAttemptResourceDataItem")


@_attrs_define
class ListWebhookAttemptResourceDataItem:
    """One attempt at a delivery (an extra beyond the spec: `GET /webhook_events/{id}/attempts`).

    Attributes:
        attempted_at (datetime.datetime): An RFC 3339 time in UTC with milliseconds.
        duration_ms (int):
        id (str): A webhook attempt id (`wa_…`).
        livemode (bool):
        object_ (str):
        webhook_event (str): A webhook event id (`evt_…`).
        error (None | str | Unset): Why no response was had (timeout, refused, connection), else null.
        response_body (None | str | Unset): The first KiB of the response body.
        response_status (int | None | Unset):
    """

    attempted_at: datetime.datetime
    duration_ms: int
    id: str
    livemode: bool
    object_: str
    webhook_event: str
    error: None | str | Unset = UNSET
    response_body: None | str | Unset = UNSET
    response_status: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        attempted_at = self.attempted_at.isoformat()

        duration_ms = self.duration_ms

        id = self.id

        livemode = self.livemode

        object_ = self.object_

        webhook_event = self.webhook_event

        error: None | str | Unset
        if isinstance(self.error, Unset):
            error = UNSET
        else:
            error = self.error

        response_body: None | str | Unset
        if isinstance(self.response_body, Unset):
            response_body = UNSET
        else:
            response_body = self.response_body

        response_status: int | None | Unset
        if isinstance(self.response_status, Unset):
            response_status = UNSET
        else:
            response_status = self.response_status

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "attempted_at": attempted_at,
                "duration_ms": duration_ms,
                "id": id,
                "livemode": livemode,
                "object": object_,
                "webhook_event": webhook_event,
            }
        )
        if error is not UNSET:
            field_dict["error"] = error
        if response_body is not UNSET:
            field_dict["response_body"] = response_body
        if response_status is not UNSET:
            field_dict["response_status"] = response_status

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        attempted_at = datetime.datetime.fromisoformat(d.pop("attempted_at"))

        duration_ms = d.pop("duration_ms")

        id = d.pop("id")

        livemode = d.pop("livemode")

        object_ = d.pop("object")

        webhook_event = d.pop("webhook_event")

        def _parse_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        error = _parse_error(d.pop("error", UNSET))

        def _parse_response_body(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        response_body = _parse_response_body(d.pop("response_body", UNSET))

        def _parse_response_status(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        response_status = _parse_response_status(d.pop("response_status", UNSET))

        list_webhook_attempt_resource_data_item = cls(
            attempted_at=attempted_at,
            duration_ms=duration_ms,
            id=id,
            livemode=livemode,
            object_=object_,
            webhook_event=webhook_event,
            error=error,
            response_body=response_body,
            response_status=response_status,
        )

        list_webhook_attempt_resource_data_item.additional_properties = d
        return list_webhook_attempt_resource_data_item

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
