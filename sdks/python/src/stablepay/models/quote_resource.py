from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="QuoteResource")


@_attrs_define
class QuoteResource:
    """The rate `amount` was converted at, read from an on-chain price feed.

    Attributes:
        expires_at (datetime.datetime | None):
        feed (str): An EVM address: 0x and 40 hex digits. Accepted in lowercase, in uppercase, or in mixed case when
            that is its EIP-55 checksum (format `evm-address`); always written with the checksum.
        pair (str): The feed's pair: `EUR/USD` for a price in the other money than the token's,
            else the token's own pair (its peg, checked; `rate` is then "1"). Example: EUR/USD.
        rate (str): The rate as a decimal string (8 decimals at most): USD per EUR for `EUR/USD`. Example: 1.0825.
        round_id (str): The feed's round (a uint80, as a decimal string).
        updated_at (datetime.datetime): An RFC 3339 time in UTC with milliseconds.
    """

    expires_at: datetime.datetime | None
    feed: str
    pair: str
    rate: str
    round_id: str
    updated_at: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        expires_at: None | str
        if isinstance(self.expires_at, datetime.datetime):
            expires_at = self.expires_at.isoformat()
        else:
            expires_at = self.expires_at

        feed = self.feed

        pair = self.pair

        rate = self.rate

        round_id = self.round_id

        updated_at = self.updated_at.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "expires_at": expires_at,
                "feed": feed,
                "pair": pair,
                "rate": rate,
                "round_id": round_id,
                "updated_at": updated_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_expires_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                expires_at_type_1 = datetime.datetime.fromisoformat(data)

                return expires_at_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        expires_at = _parse_expires_at(d.pop("expires_at"))

        feed = d.pop("feed")

        pair = d.pop("pair")

        rate = d.pop("rate")

        round_id = d.pop("round_id")

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        quote_resource = cls(
            expires_at=expires_at,
            feed=feed,
            pair=pair,
            rate=rate,
            round_id=round_id,
            updated_at=updated_at,
        )

        quote_resource.additional_properties = d
        return quote_resource

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
