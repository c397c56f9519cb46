from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="CreateRefundRequestRequest")


@_attrs_define
class CreateRefundRequestRequest:
    """
    Attributes:
        amount (str): A decimal string above 0 and at most 1000000000, at most 6 decimal places; never a JSON number.
        payment (str): A payment id (`pay_…`).
        reason (None | str | Unset): No control characters.
    """

    amount: str
    payment: str
    reason: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        amount = self.amount

        payment = self.payment

        reason: None | str | Unset
        if isinstance(self.reason, Unset):
            reason = UNSET
        else:
            reason = self.reason

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "amount": amount,
                "payment": payment,
            }
        )
        if reason is not UNSET:
            field_dict["reason"] = reason

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        amount = d.pop("amount")

        payment = d.pop("payment")

        def _parse_reason(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        reason = _parse_reason(d.pop("reason", UNSET))

        create_refund_request_request = cls(
            amount=amount,
            payment=payment,
            reason=reason,
        )

        return create_refund_request_request
