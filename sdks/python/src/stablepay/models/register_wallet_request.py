from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.chain_id import ChainId
from ..types import UNSET, Unset

T = TypeVar("T", bound="RegisterWalletRequest")


@_attrs_define
class RegisterWalletRequest:
    """
    Attributes:
        address (str): An EVM address: 0x and 40 hex digits. Accepted in lowercase, in uppercase, or in mixed case when
            that is its EIP-55 checksum (format `evm-address`); always written with the checksum.
        chain_id (ChainId | None | Unset):
    """

    address: str
    chain_id: ChainId | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        address = self.address

        chain_id: int | None | Unset
        if isinstance(self.chain_id, Unset):
            chain_id = UNSET
        elif isinstance(self.chain_id, ChainId):
            chain_id = self.chain_id.value
        else:
            chain_id = self.chain_id

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "address": address,
            }
        )
        if chain_id is not UNSET:
            field_dict["chain_id"] = chain_id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        address = d.pop("address")

        def _parse_chain_id(data: object) -> ChainId | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, int):
                    raise TypeError()
                chain_id_type_1 = ChainId(data)

                return chain_id_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ChainId | None | Unset, data)

        chain_id = _parse_chain_id(d.pop("chain_id", UNSET))

        register_wallet_request = cls(
            address=address,
            chain_id=chain_id,
        )

        return register_wallet_request
