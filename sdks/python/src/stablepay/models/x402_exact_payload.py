from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.x402_authorization import X402Authorization


T = TypeVar("T", bound="X402ExactPayload")


@_attrs_define
class X402ExactPayload:
    """
    Attributes:
        authorization (X402Authorization): An EIP-3009 authorization as sent: every field a string.
        signature (str):
    """

    authorization: X402Authorization
    signature: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        authorization = self.authorization.to_dict()

        signature = self.signature

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "authorization": authorization,
                "signature": signature,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.x402_authorization import X402Authorization

        d = dict(src_dict)
        authorization = X402Authorization.from_dict(d.pop("authorization"))

        signature = d.pop("signature")

        x402_exact_payload = cls(
            authorization=authorization,
            signature=signature,
        )

        x402_exact_payload.additional_properties = d
        return x402_exact_payload

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
