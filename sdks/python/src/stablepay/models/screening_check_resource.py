from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.chain_id import ChainId

T = TypeVar("T", bound="ScreeningCheckResource")


@_attrs_define
class ScreeningCheckResource:
    """
    Attributes:
        address (str): An EVM address: 0x and 40 hex digits. Accepted in lowercase, in uppercase, or in mixed case when
            that is its EIP-55 checksum (format `evm-address`); always written with the checksum.
        answer (str): `clear`, `listed` or `unknown` (the source did not answer: never taken for clear). Example:
            listed.
        chain_id (ChainId): 8453 (Base, live mode) or 84532 (Base Sepolia, test mode).
        checked_at (datetime.datetime): An RFC 3339 time in UTC with milliseconds.
        entry (None | str):
        list_ (None | str): For `listed`: the list that names the payer, and its own reference for the entry.
        list_version (int | None): The imported list's version read; null for the oracle.
        object_ (str):
        path (str): Where it was checked: `one_signature`, `x402`, `facilitator`, `router`, `deposit`,
            `subscribe` or `subscription_charge`. Example: router.
        source (str): `sanctions_oracle`, or an imported list's name. Example: sanctions_oracle.
    """

    address: str
    answer: str
    chain_id: ChainId
    checked_at: datetime.datetime
    entry: None | str
    list_: None | str
    list_version: int | None
    object_: str
    path: str
    source: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        address = self.address

        answer = self.answer

        chain_id = self.chain_id.value

        checked_at = self.checked_at.isoformat()

        entry: None | str
        entry = self.entry

        list_: None | str
        list_ = self.list_

        list_version: int | None
        list_version = self.list_version

        object_ = self.object_

        path = self.path

        source = self.source

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "address": address,
                "answer": answer,
                "chain_id": chain_id,
                "checked_at": checked_at,
                "entry": entry,
                "list": list_,
                "list_version": list_version,
                "object": object_,
                "path": path,
                "source": source,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        address = d.pop("address")

        answer = d.pop("answer")

        chain_id = ChainId(d.pop("chain_id"))

        checked_at = datetime.datetime.fromisoformat(d.pop("checked_at"))

        def _parse_entry(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        entry = _parse_entry(d.pop("entry"))

        def _parse_list_(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        list_ = _parse_list_(d.pop("list"))

        def _parse_list_version(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        list_version = _parse_list_version(d.pop("list_version"))

        object_ = d.pop("object")

        path = d.pop("path")

        source = d.pop("source")

        screening_check_resource = cls(
            address=address,
            answer=answer,
            chain_id=chain_id,
            checked_at=checked_at,
            entry=entry,
            list_=list_,
            list_version=list_version,
            object_=object_,
            path=path,
            source=source,
        )

        screening_check_resource.additional_properties = d
        return screening_check_resource

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
