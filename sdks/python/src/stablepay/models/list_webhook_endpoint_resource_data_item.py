from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.endpoint_status import EndpointStatus
from ..models.event_type import EventType
from ..types import UNSET, Unset

T = TypeVar("T", bound="ListWebhookEndpointResourceDataItem")


@_attrs_define
class ListWebhookEndpointResourceDataItem:
    """
    Attributes:
        created_at (datetime.datetime): An RFC 3339 time in UTC with milliseconds.
        enabled_events (list[EventType]):
        id (str): A webhook endpoint id (`we_…`).
        livemode (bool):
        object_ (str):
        status (EndpointStatus):
        url (str):
        description (None | str | Unset):
        disabled_reason (None | str | Unset): Why the service disabled the endpoint by itself (an extension; null
            otherwise).
        secret (str | Unset): Only in the creation (and rotation) response.
    """

    created_at: datetime.datetime
    enabled_events: list[EventType]
    id: str
    livemode: bool
    object_: str
    status: EndpointStatus
    url: str
    description: None | str | Unset = UNSET
    disabled_reason: None | str | Unset = UNSET
    secret: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at.isoformat()

        enabled_events = []
        for enabled_events_item_data in self.enabled_events:
            enabled_events_item = enabled_events_item_data.value
            enabled_events.append(enabled_events_item)

        id = self.id

        livemode = self.livemode

        object_ = self.object_

        status = self.status.value

        url = self.url

        description: None | str | Unset
        if isinstance(self.description, Unset):
            description = UNSET
        else:
            description = self.description

        disabled_reason: None | str | Unset
        if isinstance(self.disabled_reason, Unset):
            disabled_reason = UNSET
        else:
            disabled_reason = self.disabled_reason

        secret = self.secret

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "created_at": created_at,
                "enabled_events": enabled_events,
                "id": id,
                "livemode": livemode,
                "object": object_,
                "status": status,
                "url": url,
            }
        )
        if description is not UNSET:
            field_dict["description"] = description
        if disabled_reason is not UNSET:
            field_dict["disabled_reason"] = disabled_reason
        if secret is not UNSET:
            field_dict["secret"] = secret

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        enabled_events = []
        _enabled_events = d.pop("enabled_events")
        for enabled_events_item_data in _enabled_events:
            enabled_events_item = EventType(enabled_events_item_data)

            enabled_events.append(enabled_events_item)

        id = d.pop("id")

        livemode = d.pop("livemode")

        object_ = d.pop("object")

        status = EndpointStatus(d.pop("status"))

        url = d.pop("url")

        def _parse_description(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        description = _parse_description(d.pop("description", UNSET))

        def _parse_disabled_reason(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        disabled_reason = _parse_disabled_reason(d.pop("disabled_reason", UNSET))

        secret = d.pop("secret", UNSET)

        list_webhook_endpoint_resource_data_item = cls(
            created_at=created_at,
            enabled_events=enabled_events,
            id=id,
            livemode=livemode,
            object_=object_,
            status=status,
            url=url,
            description=description,
            disabled_reason=disabled_reason,
            secret=secret,
        )

        list_webhook_endpoint_resource_data_item.additional_properties = d
        return list_webhook_endpoint_resource_data_item

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
