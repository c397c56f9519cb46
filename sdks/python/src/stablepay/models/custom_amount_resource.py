from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.fiat import Fiat

T = TypeVar("T", bound="CustomAmountResource")


@_attrs_define
class CustomAmountResource:
    """The bounds of an amount the buyer names.

    Attributes:
        currency (Fiat | None):
        maximum (str): A token amount as a decimal string (at most 6 decimal places), never a JSON number.
        minimum (str): A token amount as a decimal string (at most 6 decimal places), never a JSON number.
    """

    currency: Fiat | None
    maximum: str
    minimum: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        currency: None | str
        if isinstance(self.currency, Fiat):
            currency = self.currency.value
        else:
            currency = self.currency

        maximum = self.maximum

        minimum = self.minimum

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "currency": currency,
                "maximum": maximum,
                "minimum": minimum,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_currency(data: object) -> Fiat | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                currency_type_1 = Fiat(data)

                return currency_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Fiat | None, data)

        currency = _parse_currency(d.pop("currency"))

        maximum = d.pop("maximum")

        minimum = d.pop("minimum")

        custom_amount_resource = cls(
            currency=currency,
            maximum=maximum,
            minimum=minimum,
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
