from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.chain_id import ChainId
from ..types import UNSET, Unset

T = TypeVar("T", bound="ListScreeningCheckResourceDataItem")


@_attrs_define
class ListScreeningCheckResourceDataItem:
    """
    Attributes:
        address (str): An EVM address: 0x and 40 hex digits. Accepted in lowercase, in uppercase, or in mixed case when
            that is its EIP-55 checksum (format `evm-address`); always written with the checksum.
        answer (str): `clear`, `listed` or `unknown` (the source did not answer: never taken for clear). Example:
            listed.
        chain_id (ChainId): 8453 (Base, live mode) or 84532 (Base Sepolia, test mode).
        checked_at (datetime.datetime): An RFC 3339 time in UTC with milliseconds.
        object_ (str):
        path (str): Where it was checked: `one_signature`, `x402`, `facilitator`, `router`, `deposit`,
            `subscribe` or `subscription_charge`. Example: router.
        source (str): `sanctions_oracle`, or an imported list's name. Example: sanctions_oracle.
        entry (None | str | Unset):
        list_ (None | str | Unset): For `listed`: the list that names the payer, and its own reference for the entry.
        list_version (int | None | Unset): The imported list's version read; null for the oracle.
    """

    address: str
    answer: str
    chain_id: ChainId
    checked_at: datetime.datetime
    object_: str
    path: str
    source: str
    entry: None | str | Unset = UNSET
    list_: None | str | Unset = UNSET
    list_version: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        address = self.address

        answer = self.answer

        chain_id = self.chain_id.value

        checked_at = self.checked_at.isoformat()

        object_ = self.object_

        path = self.path

        source = self.source

        entry: None | str | Unset
        if isinstance(self.entry, Unset):
            entry = UNSET
        else:
            entry = self.entry

        list_: None | str | Unset
        if isinstance(self.list_, Unset):
            list_ = UNSET
        else:
            list_ = self.list_

        list_version: int | None | Unset
        if isinstance(self.list_version, Unset):
            list_version = UNSET
        else:
            list_version = self.list_version

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "address": address,
                "answer": answer,
                "chain_id": chain_id,
                "checked_at": checked_at,
                "object": object_,
                "path": path,
                "source": source,
            }
        )
        if entry is not UNSET:
            field_dict["entry"] = entry
        if list_ is not UNSET:
            field_dict["list"] = list_
        if list_version is not UNSET:
            field_dict["list_version"] = list_version

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        address = d.pop("address")

        answer = d.pop("answer")

        chain_id = ChainId(d.pop("chain_id"))

        checked_at = datetime.datetime.fromisoformat(d.pop("checked_at"))

        object_ = d.pop("object")

        path = d.pop("path")

        source = d.pop("source")

        def _parse_entry(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        entry = _parse_entry(d.pop("entry", UNSET))

        def _parse_list_(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        list_ = _parse_list_(d.pop("list", UNSET))

        def _parse_list_version(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        list_version = _parse_list_version(d.pop("list_version", UNSET))

        list_screening_check_resource_data_item = cls(
            address=address,
            answer=answer,
            chain_id=chain_id,
            checked_at=checked_at,
            object_=object_,
            path=path,
            source=source,
            entry=entry,
            list_=list_,
            list_version=list_version,
        )

        list_screening_check_resource_data_item.additional_properties = d
        return list_screening_check_resource_data_item

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
