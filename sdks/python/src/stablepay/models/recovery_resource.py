from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.recovery_resource_object import RecoveryResourceObject

T = TypeVar("T", bound="RecoveryResource")


@_attrs_define
class RecoveryResource:
    """What `POST /webhook_endpoints/{id}/recover` answers.

    Attributes:
        completed (bool): `false` when more than one batch of failed deliveries (100) was found: this call
            resent the newest batch and the worker resends the rest in the background.
        endpoint (str): A webhook endpoint id (`we_…`).
        enqueued (int):
        object_ (RecoveryResourceObject):
        since (datetime.datetime): An RFC 3339 time in UTC with milliseconds.
        still_pending (int):
    """

    completed: bool
    endpoint: str
    enqueued: int
    object_: RecoveryResourceObject
    since: datetime.datetime
    still_pending: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        completed = self.completed

        endpoint = self.endpoint

        enqueued = self.enqueued

        object_ = self.object_.value

        since = self.since.isoformat()

        still_pending = self.still_pending

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "completed": completed,
                "endpoint": endpoint,
                "enqueued": enqueued,
                "object": object_,
                "since": since,
                "still_pending": still_pending,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        completed = d.pop("completed")

        endpoint = d.pop("endpoint")

        enqueued = d.pop("enqueued")

        object_ = RecoveryResourceObject(d.pop("object"))

        since = datetime.datetime.fromisoformat(d.pop("since"))

        still_pending = d.pop("still_pending")

        recovery_resource = cls(
            completed=completed,
            endpoint=endpoint,
            enqueued=enqueued,
            object_=object_,
            since=since,
            still_pending=still_pending,
        )

        recovery_resource.additional_properties = d
        return recovery_resource

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
