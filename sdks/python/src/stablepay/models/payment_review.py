from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.review_status import ReviewStatus

T = TypeVar("T", bound="PaymentReview")


@_attrs_define
class PaymentReview:
    """A payment's review (D33).

    Attributes:
        decided_at (datetime.datetime | None):
        reason (str):
        source (str): The source that listed the payer: `sanctions_oracle` or an imported list's name.
        status (ReviewStatus): ReviewStatus
    """

    decided_at: datetime.datetime | None
    reason: str
    source: str
    status: ReviewStatus
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        decided_at: None | str
        if isinstance(self.decided_at, datetime.datetime):
            decided_at = self.decided_at.isoformat()
        else:
            decided_at = self.decided_at

        reason = self.reason

        source = self.source

        status = self.status.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "decided_at": decided_at,
                "reason": reason,
                "source": source,
                "status": status,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_decided_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                decided_at_type_1 = datetime.datetime.fromisoformat(data)

                return decided_at_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        decided_at = _parse_decided_at(d.pop("decided_at"))

        reason = d.pop("reason")

        source = d.pop("source")

        status = ReviewStatus(d.pop("status"))

        payment_review = cls(
            decided_at=decided_at,
            reason=reason,
            source=source,
            status=status,
        )

        payment_review.additional_properties = d
        return payment_review

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
