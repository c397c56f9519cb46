from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.fiat import Fiat
from ..types import UNSET, Unset

T = TypeVar("T", bound="CustomAmountResource")


@_attrs_define
class CustomAmountResource:
    """The bounds of an amount the buyer names.

    Attributes:
        maximum (str): A token amount as a decimal string (at most 6 decimal places), never a JSON number.
        minimum (str): A token amount as a decimal string (at most 6 decimal places), never a JSON number.
        currency (Fiat | Unset): The money a token is pegged to, and a price may be given in (D34): amounts in
            different ones are never added up.
    """

    maximum: str
    minimum: str
    currency: Fiat | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        maximum = self.maximum

        minimum = self.minimum

        currency: str | Unset = UNSET
        if not isinstance(self.currency, Unset):
            currency = self.currency.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "maximum": maximum,
                "minimum": minimum,
            }
        )
        if currency is not UNSET:
            field_dict["currency"] = currency

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        maximum = d.pop("maximum")

        minimum = d.pop("minimum")

        _currency = d.pop("currency", UNSET)
        currency: Fiat | Unset
        if isinstance(_currency, Unset):
            currency = UNSET
        else:
            currency = Fiat(_currency)

        custom_amount_resource = cls(
            maximum=maximum,
            minimum=minimum,
            currency=currency,
        )

        custom_amount_resource.additional_properties = d
        return custom_amount_resource

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
