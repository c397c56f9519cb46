from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="VerifyWalletRequest")


@_attrs_define
class VerifyWalletRequest:
    """
    Attributes:
        signature (str): The signature of the challenge message: 0x and hex bytes (65 for an EOA; any length an ERC-1271
            wallet returns, up to 2048).
    """

    signature: str

    def to_dict(self) -> dict[str, Any]:
        signature = self.signature

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "signature": signature,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        signature = d.pop("signature")

        verify_wallet_request = cls(
            signature=signature,
        )

        return verify_wallet_request
