from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="X402SupportedKind")


@_attrs_define
class X402SupportedKind:
    """One kind of payment the facilitator settles.

    Attributes:
        network (str):
        scheme (str):
        x_402_version (int):
    """

    network: str
    scheme: str
    x_402_version: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        network = self.network

        scheme = self.scheme

        x_402_version = self.x_402_version

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "network": network,
                "scheme": scheme,
                "x402Version": x_402_version,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        network = d.pop("network")

        scheme = d.pop("scheme")

        x_402_version = d.pop("x402Version")

        x402_supported_kind = cls(
            network=network,
            scheme=scheme,
            x_402_version=x_402_version,
        )

        x402_supported_kind.additional_properties = d
        return x402_supported_kind

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
