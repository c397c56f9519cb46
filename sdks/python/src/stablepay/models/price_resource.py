from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.fiat import Fiat

T = TypeVar("T", bound="PriceResource")


@_attrs_define
class PriceResource:
    """What the merchant priced the session at, in a fiat money.

    Attributes:
        amount (str): A token amount as a decimal string (at most 6 decimal places), never a JSON number.
        currency (Fiat): The money a token is pegged to, and a price may be given in (D34): amounts in
            different ones are never added up.
    """

    amount: str
    currency: Fiat
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        amount = self.amount

        currency = self.currency.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "amount": amount,
                "currency": currency,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        amount = d.pop("amount")

        currency = Fiat(d.pop("currency"))

        price_resource = cls(
            amount=amount,
            currency=currency,
        )

        price_resource.additional_properties = d
        return price_resource

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
