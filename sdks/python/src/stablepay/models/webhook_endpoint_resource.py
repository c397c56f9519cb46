from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.endpoint_status import EndpointStatus
from ..models.event_type import EventType
from ..models.webhook_endpoint_resource_object import WebhookEndpointResourceObject
from ..types import UNSET, Unset

T = TypeVar("T", bound="WebhookEndpointResource")


@_attrs_define
class WebhookEndpointResource:
    """
    Attributes:
        created_at (datetime.datetime): An RFC 3339 time in UTC with milliseconds.
        description (None | str):
        disabled_reason (None | str): Why the service disabled the endpoint by itself (an extension; null otherwise).
        enabled_events (list[EventType]):
        id (str): A webhook endpoint id (`we_…`).
        livemode (bool):
        object_ (WebhookEndpointResourceObject):
        status (EndpointStatus):
        url (str):
        secret (str | Unset): Only in the creation (and rotation) response.
    """

    created_at: datetime.datetime
    description: None | str
    disabled_reason: None | str
    enabled_events: list[EventType]
    id: str
    livemode: bool
    object_: WebhookEndpointResourceObject
    status: EndpointStatus
    url: str
    secret: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at.isoformat()

        description: None | str
        description = self.description

        disabled_reason: None | str
        disabled_reason = self.disabled_reason

        enabled_events = []
        for enabled_events_item_data in self.enabled_events:
            enabled_events_item = enabled_events_item_data.value
            enabled_events.append(enabled_events_item)

        id = self.id

        livemode = self.livemode

        object_ = self.object_.value

        status = self.status.value

        url = self.url

        secret = self.secret

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "created_at": created_at,
                "description": description,
                "disabled_reason": disabled_reason,
                "enabled_events": enabled_events,
                "id": id,
                "livemode": livemode,
                "object": object_,
                "status": status,
                "url": url,
            }
        )
        if secret is not UNSET:
            field_dict["secret"] = secret

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        def _parse_description(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        description = _parse_description(d.pop("description"))

        def _parse_disabled_reason(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        disabled_reason = _parse_disabled_reason(d.pop("disabled_reason"))

        enabled_events = []
        _enabled_events = d.pop("enabled_events")
        for enabled_events_item_data in _enabled_events:
            enabled_events_item = EventType(enabled_events_item_data)

            enabled_events.append(enabled_events_item)

        id = d.pop("id")

        livemode = d.pop("livemode")

        object_ = WebhookEndpointResourceObject(d.pop("object"))

        status = EndpointStatus(d.pop("status"))

        url = d.pop("url")

        secret = d.pop("secret", UNSET)

        webhook_endpoint_resource = cls(
            created_at=created_at,
            description=description,
            disabled_reason=disabled_reason,
            enabled_events=enabled_events,
            id=id,
            livemode=livemode,
            object_=object_,
            status=status,
            url=url,
            secret=secret,
        )

        webhook_endpoint_resource.additional_properties = d
        return webhook_endpoint_resource

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
