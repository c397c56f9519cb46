from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="RecoverWebhookEndpointRequest")


@_attrs_define
class RecoverWebhookEndpointRequest:
    """
    Attributes:
        since (datetime.datetime): Failed deliveries created at or after this time are sent again.
    """

    since: datetime.datetime

    def to_dict(self) -> dict[str, Any]:
        since = self.since.isoformat()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "since": since,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        since = datetime.datetime.fromisoformat(d.pop("since"))

        recover_webhook_endpoint_request = cls(
            since=since,
        )

        return recover_webhook_endpoint_request
