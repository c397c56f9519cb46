from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="CustomAmountInput")


@_attrs_define
class CustomAmountInput:
    """Bounds on the amount a buyer names, in the token.

    Attributes:
        maximum (str): A token amount as a decimal string (at most 6 decimal places), never a JSON number.
        minimum (str): A token amount as a decimal string (at most 6 decimal places), never a JSON number.
    """

    maximum: str
    minimum: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        maximum = self.maximum

        minimum = self.minimum

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "maximum": maximum,
                "minimum": minimum,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        maximum = d.pop("maximum")

        minimum = d.pop("minimum")

        custom_amount_input = cls(
            maximum=maximum,
            minimum=minimum,
        )

        custom_amount_input.additional_properties = d
        return custom_amount_input

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
