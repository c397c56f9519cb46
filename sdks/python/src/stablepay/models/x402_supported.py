from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.x402_supported_kind import X402SupportedKind
    from ..models.x402_supported_signers import X402SupportedSigners


T = TypeVar("T", bound="X402Supported")


@_attrs_define
class X402Supported:
    """`GET /x402/supported`.

    Attributes:
        extensions (list[str]):
        kinds (list[X402SupportedKind]):
        signers (X402SupportedSigners): The address that sends settlements, per network pattern (`eip155:*`).
    """

    extensions: list[str]
    kinds: list[X402SupportedKind]
    signers: X402SupportedSigners
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        extensions = self.extensions

        kinds = []
        for kinds_item_data in self.kinds:
            kinds_item = kinds_item_data.to_dict()
            kinds.append(kinds_item)

        signers = self.signers.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "extensions": extensions,
                "kinds": kinds,
                "signers": signers,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.x402_supported_kind import X402SupportedKind
        from ..models.x402_supported_signers import X402SupportedSigners

        d = dict(src_dict)
        extensions = cast(list[str], d.pop("extensions"))

        kinds = []
        _kinds = d.pop("kinds")
        for kinds_item_data in _kinds:
            kinds_item = X402SupportedKind.from_dict(kinds_item_data)

            kinds.append(kinds_item)

        signers = X402SupportedSigners.from_dict(d.pop("signers"))

        x402_supported = cls(
            extensions=extensions,
            kinds=kinds,
            signers=signers,
        )

        x402_supported.additional_properties = d
        return x402_supported

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
