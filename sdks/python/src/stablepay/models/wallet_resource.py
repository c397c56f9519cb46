from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.chain_id import ChainId
from ..models.wallet_resource_object import WalletResourceObject
from ..models.wallet_status import WalletStatus
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.verification import Verification


T = TypeVar("T", bound="WalletResource")


@_attrs_define
class WalletResource:
    """
    Attributes:
        address (str): An EVM address: 0x and 40 hex digits. Accepted in lowercase, in uppercase, or in mixed case when
            that is its EIP-55 checksum (format `evm-address`); always written with the checksum.
        chain_id (ChainId): 8453 (Base, live mode) or 84532 (Base Sepolia, test mode).
        created_at (datetime.datetime): An RFC 3339 time in UTC with milliseconds.
        id (str): A wallet id (`wal_…`).
        object_ (WalletResourceObject):
        revoked_at (datetime.datetime | None):
        status (WalletStatus):
        verified_at (datetime.datetime | None):
        verified_mode (None | str): The mode of the key (or dashboard) that verified the wallet: `live` or `test`
            (null until verified). A test key may not revoke a wallet verified in `live` mode,
            and a live session without `recipient` defaults only to one of those. Example: live.
        verification (Verification | Unset):
    """

    address: str
    chain_id: ChainId
    created_at: datetime.datetime
    id: str
    object_: WalletResourceObject
    revoked_at: datetime.datetime | None
    status: WalletStatus
    verified_at: datetime.datetime | None
    verified_mode: None | str
    verification: Verification | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        address = self.address

        chain_id = self.chain_id.value

        created_at = self.created_at.isoformat()

        id = self.id

        object_ = self.object_.value

        revoked_at: None | str
        if isinstance(self.revoked_at, datetime.datetime):
            revoked_at = self.revoked_at.isoformat()
        else:
            revoked_at = self.revoked_at

        status = self.status.value

        verified_at: None | str
        if isinstance(self.verified_at, datetime.datetime):
            verified_at = self.verified_at.isoformat()
        else:
            verified_at = self.verified_at

        verified_mode: None | str
        verified_mode = self.verified_mode

        verification: dict[str, Any] | Unset = UNSET
        if not isinstance(self.verification, Unset):
            verification = self.verification.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "address": address,
                "chain_id": chain_id,
                "created_at": created_at,
                "id": id,
                "object": object_,
                "revoked_at": revoked_at,
                "status": status,
                "verified_at": verified_at,
                "verified_mode": verified_mode,
            }
        )
        if verification is not UNSET:
            field_dict["verification"] = verification

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.verification import Verification

        d = dict(src_dict)
        address = d.pop("address")

        chain_id = ChainId(d.pop("chain_id"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        id = d.pop("id")

        object_ = WalletResourceObject(d.pop("object"))

        def _parse_revoked_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                revoked_at_type_1 = datetime.datetime.fromisoformat(data)

                return revoked_at_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        revoked_at = _parse_revoked_at(d.pop("revoked_at"))

        status = WalletStatus(d.pop("status"))

        def _parse_verified_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                verified_at_type_1 = datetime.datetime.fromisoformat(data)

                return verified_at_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        verified_at = _parse_verified_at(d.pop("verified_at"))

        def _parse_verified_mode(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        verified_mode = _parse_verified_mode(d.pop("verified_mode"))

        _verification = d.pop("verification", UNSET)
        verification: Verification | Unset
        if isinstance(_verification, Unset):
            verification = UNSET
        else:
            verification = Verification.from_dict(_verification)

        wallet_resource = cls(
            address=address,
            chain_id=chain_id,
            created_at=created_at,
            id=id,
            object_=object_,
            revoked_at=revoked_at,
            status=status,
            verified_at=verified_at,
            verified_mode=verified_mode,
            verification=verification,
        )

        wallet_resource.additional_properties = d
        return wallet_resource

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
