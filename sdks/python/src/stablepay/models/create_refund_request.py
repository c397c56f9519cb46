from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="CreateRefundRequest")


@_attrs_define
class CreateRefundRequest:
    """
    Attributes:
        payment (str): A payment id (`pay_…`).
        tx_hash (str): A 32-byte hash: 0x and 64 hex digits (written in lowercase).
        amount (None | str | Unset): A decimal string above 0 and at most 1000000000, at most 6 decimal places; never a
            JSON number.
        reason (None | str | Unset): No control characters.
        refund_request (None | str | Unset):
    """

    payment: str
    tx_hash: str
    amount: None | str | Unset = UNSET
    reason: None | str | Unset = UNSET
    refund_request: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        payment = self.payment

        tx_hash = self.tx_hash

        amount: None | str | Unset
        if isinstance(self.amount, Unset):
            amount = UNSET
        else:
            amount = self.amount

        reason: None | str | Unset
        if isinstance(self.reason, Unset):
            reason = UNSET
        else:
            reason = self.reason

        refund_request: None | str | Unset
        if isinstance(self.refund_request, Unset):
            refund_request = UNSET
        else:
            refund_request = self.refund_request

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "payment": payment,
                "tx_hash": tx_hash,
            }
        )
        if amount is not UNSET:
            field_dict["amount"] = amount
        if reason is not UNSET:
            field_dict["reason"] = reason
        if refund_request is not UNSET:
            field_dict["refund_request"] = refund_request

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        payment = d.pop("payment")

        tx_hash = d.pop("tx_hash")

        def _parse_amount(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        amount = _parse_amount(d.pop("amount", UNSET))

        def _parse_reason(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        reason = _parse_reason(d.pop("reason", UNSET))

        def _parse_refund_request(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        refund_request = _parse_refund_request(d.pop("refund_request", UNSET))

        create_refund_request = cls(
            payment=payment,
            tx_hash=tx_hash,
            amount=amount,
            reason=reason,
            refund_request=refund_request,
        )

        return create_refund_request
