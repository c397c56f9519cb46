from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.chain_id import ChainId
from ..models.currency import Currency
from ..models.refund_resource_object import RefundResourceObject
from ..models.refund_status import RefundStatus

T = TypeVar("T", bound="RefundResource")


@_attrs_define
class RefundResource:
    """
    Attributes:
        amount (str): A token amount as a decimal string (at most 6 decimal places), never a JSON number.
        chain_id (ChainId): 8453 (Base, live mode) or 84532 (Base Sepolia, test mode).
        created_at (datetime.datetime): An RFC 3339 time in UTC with milliseconds.
        currency (Currency): Settlement currencies (tokens, all with 6 decimals).
        from_address (str): An EVM address: 0x and 40 hex digits. Accepted in lowercase, in uppercase, or in mixed case
            when that is its EIP-55 checksum (format `evm-address`); always written with the checksum.
        id (str): A refund id (`re_…`).
        livemode (bool):
        object_ (RefundResourceObject):
        payment (str): A payment id (`pay_…`).
        reason (None | str):
        status (RefundStatus): RefundStatus
        to_address (str): An EVM address: 0x and 40 hex digits. Accepted in lowercase, in uppercase, or in mixed case
            when that is its EIP-55 checksum (format `evm-address`); always written with the checksum.
        token_address (str): An EVM address: 0x and 40 hex digits. Accepted in lowercase, in uppercase, or in mixed case
            when that is its EIP-55 checksum (format `evm-address`); always written with the checksum.
        tx_hash (str): A 32-byte hash: 0x and 64 hex digits (written in lowercase).
    """

    amount: str
    chain_id: ChainId
    created_at: datetime.datetime
    currency: Currency
    from_address: str
    id: str
    livemode: bool
    object_: RefundResourceObject
    payment: str
    reason: None | str
    status: RefundStatus
    to_address: str
    token_address: str
    tx_hash: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        amount = self.amount

        chain_id = self.chain_id.value

        created_at = self.created_at.isoformat()

        currency = self.currency.value

        from_address = self.from_address

        id = self.id

        livemode = self.livemode

        object_ = self.object_.value

        payment = self.payment

        reason: None | str
        reason = self.reason

        status = self.status.value

        to_address = self.to_address

        token_address = self.token_address

        tx_hash = self.tx_hash

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "amount": amount,
                "chain_id": chain_id,
                "created_at": created_at,
                "currency": currency,
                "from_address": from_address,
                "id": id,
                "livemode": livemode,
                "object": object_,
                "payment": payment,
                "reason": reason,
                "status": status,
                "to_address": to_address,
                "token_address": token_address,
                "tx_hash": tx_hash,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        amount = d.pop("amount")

        chain_id = ChainId(d.pop("chain_id"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        currency = Currency(d.pop("currency"))

        from_address = d.pop("from_address")

        id = d.pop("id")

        livemode = d.pop("livemode")

        object_ = RefundResourceObject(d.pop("object"))

        payment = d.pop("payment")

        def _parse_reason(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        reason = _parse_reason(d.pop("reason"))

        status = RefundStatus(d.pop("status"))

        to_address = d.pop("to_address")

        token_address = d.pop("token_address")

        tx_hash = d.pop("tx_hash")

        refund_resource = cls(
            amount=amount,
            chain_id=chain_id,
            created_at=created_at,
            currency=currency,
            from_address=from_address,
            id=id,
            livemode=livemode,
            object_=object_,
            payment=payment,
            reason=reason,
            status=status,
            to_address=to_address,
            token_address=token_address,
            tx_hash=tx_hash,
        )

        refund_resource.additional_properties = d
        return refund_resource

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
