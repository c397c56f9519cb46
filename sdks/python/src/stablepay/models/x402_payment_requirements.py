from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.x402_payment_requirements_extra import X402PaymentRequirementsExtra


T = TypeVar("T", bound="X402PaymentRequirements")


@_attrs_define
class X402PaymentRequirements:
    """One way to pay (`accepts[]`, and a payment's `accepted`).

    Attributes:
        amount (str): Token base units, as a decimal string.
        asset (str):
        max_timeout_seconds (int):
        network (str):
        pay_to (str):
        scheme (str):
        extra (X402PaymentRequirementsExtra | Unset): The token's EIP-712 `name` and `version`, which the payer signs
            under.
    """

    amount: str
    asset: str
    max_timeout_seconds: int
    network: str
    pay_to: str
    scheme: str
    extra: X402PaymentRequirementsExtra | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        amount = self.amount

        asset = self.asset

        max_timeout_seconds = self.max_timeout_seconds

        network = self.network

        pay_to = self.pay_to

        scheme = self.scheme

        extra: dict[str, Any] | Unset = UNSET
        if not isinstance(self.extra, Unset):
            extra = self.extra.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "amount": amount,
                "asset": asset,
                "maxTimeoutSeconds": max_timeout_seconds,
                "network": network,
                "payTo": pay_to,
                "scheme": scheme,
            }
        )
        if extra is not UNSET:
            field_dict["extra"] = extra

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.x402_payment_requirements_extra import (
            X402PaymentRequirementsExtra,
        )

        d = dict(src_dict)
        amount = d.pop("amount")

        asset = d.pop("asset")

        max_timeout_seconds = d.pop("maxTimeoutSeconds")

        network = d.pop("network")

        pay_to = d.pop("payTo")

        scheme = d.pop("scheme")

        _extra = d.pop("extra", UNSET)
        extra: X402PaymentRequirementsExtra | Unset
        if isinstance(_extra, Unset):
            extra = UNSET
        else:
            extra = X402PaymentRequirementsExtra.from_dict(_extra)

        x402_payment_requirements = cls(
            amount=amount,
            asset=asset,
            max_timeout_seconds=max_timeout_seconds,
            network=network,
            pay_to=pay_to,
            scheme=scheme,
            extra=extra,
        )

        x402_payment_requirements.additional_properties = d
        return x402_payment_requirements

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
