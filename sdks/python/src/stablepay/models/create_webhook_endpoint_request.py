from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.event_type import EventType
from ..types import UNSET, Unset

T = TypeVar("T", bound="CreateWebhookEndpointRequest")


@_attrs_define
class CreateWebhookEndpointRequest:
    """
    Attributes:
        url (str): An absolute https URL (http only to localhost, 127.0.0.1 or [::1]), without credentials, at most 2000
            characters.
        description (None | str | Unset): No control characters.
        enabled_events (list[EventType] | None | Unset): The events to deliver; empty or absent means every event.
    """

    url: str
    description: None | str | Unset = UNSET
    enabled_events: list[EventType] | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        url = self.url

        description: None | str | Unset
        if isinstance(self.description, Unset):
            description = UNSET
        else:
            description = self.description

        enabled_events: list[str] | None | Unset
        if isinstance(self.enabled_events, Unset):
            enabled_events = UNSET
        elif isinstance(self.enabled_events, list):
            enabled_events = []
            for enabled_events_type_0_item_data in self.enabled_events:
                enabled_events_type_0_item = enabled_events_type_0_item_data.value
                enabled_events.append(enabled_events_type_0_item)

        else:
            enabled_events = self.enabled_events

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "url": url,
            }
        )
        if description is not UNSET:
            field_dict["description"] = description
        if enabled_events is not UNSET:
            field_dict["enabled_events"] = enabled_events

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        url = d.pop("url")

        def _parse_description(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        description = _parse_description(d.pop("description", UNSET))

        def _parse_enabled_events(data: object) -> list[EventType] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                enabled_events_type_0 = []
                _enabled_events_type_0 = data
                for enabled_events_type_0_item_data in _enabled_events_type_0:
                    enabled_events_type_0_item = EventType(
                        enabled_events_type_0_item_data
                    )

                    enabled_events_type_0.append(enabled_events_type_0_item)

                return enabled_events_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[EventType] | None | Unset, data)

        enabled_events = _parse_enabled_events(d.pop("enabled_events", UNSET))

        create_webhook_endpoint_request = cls(
            url=url,
            description=description,
            enabled_events=enabled_events,
        )

        return create_webhook_endpoint_request
