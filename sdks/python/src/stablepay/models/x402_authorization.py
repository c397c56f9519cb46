from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="X402Authorization")


@_attrs_define
class X402Authorization:
    """An EIP-3009 authorization as sent: every field a string.

    Attributes:
        from_ (str):
        nonce (str):
        to (str):
        valid_after (str):
        valid_before (str):
        value (str):
    """

    from_: str
    nonce: str
    to: str
    valid_after: str
    valid_before: str
    value: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from_ = self.from_

        nonce = self.nonce

        to = self.to

        valid_after = self.valid_after

        valid_before = self.valid_before

        value = self.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "from": from_,
                "nonce": nonce,
                "to": to,
                "validAfter": valid_after,
                "validBefore": valid_before,
                "value": value,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        from_ = d.pop("from")

        nonce = d.pop("nonce")

        to = d.pop("to")

        valid_after = d.pop("validAfter")

        valid_before = d.pop("validBefore")

        value = d.pop("value")

        x402_authorization = cls(
            from_=from_,
            nonce=nonce,
            to=to,
            valid_after=valid_after,
            valid_before=valid_before,
            value=value,
        )

        x402_authorization.additional_properties = d
        return x402_authorization

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
