from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.chain_id import ChainId
from ..models.wallet_status import WalletStatus
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.verification import Verification


T = TypeVar("T", bound="ListWalletResourceDataItem")


@_attrs_define
class ListWalletResourceDataItem:
    """
    Attributes:
        address (str): An EVM address: 0x and 40 hex digits. Accepted in lowercase, in uppercase, or in mixed case when
            that is its EIP-55 checksum (format `evm-address`); always written with the checksum.
        chain_id (ChainId): 8453 (Base, live mode) or 84532 (Base Sepolia, test mode).
        created_at (datetime.datetime): An RFC 3339 time in UTC with milliseconds.
        id (str): A wallet id (`wal_…`).
        object_ (str):
        status (WalletStatus):
        revoked_at (datetime.datetime | None | Unset):
        verification (Verification | Unset):
        verified_at (datetime.datetime | None | Unset):
        verified_mode (None | str | Unset): The mode of the key (or dashboard) that verified the wallet: `live` or
            `test`
            (null until verified). A test key may not revoke a wallet verified in `live` mode,
            and a live session without `recipient` defaults only to one of those. Example: live.
    """

    address: str
    chain_id: ChainId
    created_at: datetime.datetime
    id: str
    object_: str
    status: WalletStatus
    revoked_at: datetime.datetime | None | Unset = UNSET
    verification: Verification | Unset = UNSET
    verified_at: datetime.datetime | None | Unset = UNSET
    verified_mode: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        address = self.address

        chain_id = self.chain_id.value

        created_at = self.created_at.isoformat()

        id = self.id

        object_ = self.object_

        status = self.status.value

        revoked_at: None | str | Unset
        if isinstance(self.revoked_at, Unset):
            revoked_at = UNSET
        elif isinstance(self.revoked_at, datetime.datetime):
            revoked_at = self.revoked_at.isoformat()
        else:
            revoked_at = self.revoked_at

        verification: dict[str, Any] | Unset = UNSET
        if not isinstance(self.verification, Unset):
            verification = self.verification.to_dict()

        verified_at: None | str | Unset
        if isinstance(self.verified_at, Unset):
            verified_at = UNSET
        elif isinstance(self.verified_at, datetime.datetime):
            verified_at = self.verified_at.isoformat()
        else:
            verified_at = self.verified_at

        verified_mode: None | str | Unset
        if isinstance(self.verified_mode, Unset):
            verified_mode = UNSET
        else:
            verified_mode = self.verified_mode

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "address": address,
                "chain_id": chain_id,
                "created_at": created_at,
                "id": id,
                "object": object_,
                "status": status,
            }
        )
        if revoked_at is not UNSET:
            field_dict["revoked_at"] = revoked_at
        if verification is not UNSET:
            field_dict["verification"] = verification
        if verified_at is not UNSET:
            field_dict["verified_at"] = verified_at
        if verified_mode is not UNSET:
            field_dict["verified_mode"] = verified_mode

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.verification import Verification

        d = dict(src_dict)
        address = d.pop("address")

        chain_id = ChainId(d.pop("chain_id"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        id = d.pop("id")

        object_ = d.pop("object")

        status = WalletStatus(d.pop("status"))

        def _parse_revoked_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                revoked_at_type_1 = datetime.datetime.fromisoformat(data)

                return revoked_at_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        revoked_at = _parse_revoked_at(d.pop("revoked_at", UNSET))

        _verification = d.pop("verification", UNSET)
        verification: Verification | Unset
        if isinstance(_verification, Unset):
            verification = UNSET
        else:
            verification = Verification.from_dict(_verification)

        def _parse_verified_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                verified_at_type_1 = datetime.datetime.fromisoformat(data)

                return verified_at_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        verified_at = _parse_verified_at(d.pop("verified_at", UNSET))

        def _parse_verified_mode(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        verified_mode = _parse_verified_mode(d.pop("verified_mode", UNSET))

        list_wallet_resource_data_item = cls(
            address=address,
            chain_id=chain_id,
            created_at=created_at,
            id=id,
            object_=object_,
            status=status,
            revoked_at=revoked_at,
            verification=verification,
            verified_at=verified_at,
            verified_mode=verified_mode,
        )

        list_wallet_resource_data_item.additional_properties = d
        return list_wallet_resource_data_item

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
