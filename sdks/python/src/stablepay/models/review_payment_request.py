from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="ReviewPaymentRequest")


@_attrs_define
class ReviewPaymentRequest:
    """
    Attributes:
        decision (str): `approve` completes the session with the usual events; `return` opens a refund
            request to the payment's sender for what it has left to refund.
    """

    decision: str

    def to_dict(self) -> dict[str, Any]:
        decision = self.decision

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "decision": decision,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        decision = d.pop("decision")

        review_payment_request = cls(
            decision=decision,
        )

        return review_payment_request
