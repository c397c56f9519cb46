from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.balance_type import BalanceType
from ..models.chain_id import ChainId
from ..models.currency import Currency
from ..models.fiat import Fiat
from ..models.review_status import ReviewStatus
from ..types import UNSET, Unset

T = TypeVar("T", bound="ListBalanceTransactionResourceDataItem")


@_attrs_define
class ListBalanceTransactionResourceDataItem:
    """
    Attributes:
        amount (str): Signed decimal string: money in positive, refunds and reversals negative. Example: -3.
        chain_id (ChainId): 8453 (Base, live mode) or 84532 (Base Sepolia, test mode).
        created_at (datetime.datetime): An RFC 3339 time in UTC with milliseconds.
        currency (Currency): Settlement currencies (tokens, all with 6 decimals).
        fee (str): The service's fee in this entry (signed like `amount`).
        id (str): A balance transaction id (`txn_…`).
        livemode (bool):
        log_index (int):
        net (str): `amount - fee`: what the merchant's wallet gained (or lost).
        object_ (str):
        payment (str): A payment id (`pay_…`).
        source (str): The `pay_` or `re_` id the entry comes from (a reversal's is the payment's). Example:
            pay_0355RGziS6Gwe8zF5hRoCU.
        token_address (str): An EVM address: 0x and 40 hex digits. Accepted in lowercase, in uppercase, or in mixed case
            when that is its EIP-55 checksum (format `evm-address`); always written with the checksum.
        tx_hash (str): A 32-byte hash: 0x and 64 hex digits (written in lowercase).
        type_ (BalanceType): BalanceType
        block_number (None | str | Unset): Decimal string; null only for refunds booked before the ledger existed.
        block_time (datetime.datetime | None | Unset):
        price_amount (None | str | Unset):
        price_currency (Fiat | None | Unset):
        quote_pair (None | str | Unset): The feed pair the price was quoted at (`EUR/USD`, or the token's own for a
            peg). Example: EUR/USD.
        quote_rate (None | str | Unset): The quoted rate (8 decimals at most): USD per EUR for `EUR/USD`, "1" for a peg.
            Example: 1.0825.
        review (None | ReviewStatus | Unset):
    """

    amount: str
    chain_id: ChainId
    created_at: datetime.datetime
    currency: Currency
    fee: str
    id: str
    livemode: bool
    log_index: int
    net: str
    object_: str
    payment: str
    source: str
    token_address: str
    tx_hash: str
    type_: BalanceType
    block_number: None | str | Unset = UNSET
    block_time: datetime.datetime | None | Unset = UNSET
    price_amount: None | str | Unset = UNSET
    price_currency: Fiat | None | Unset = UNSET
    quote_pair: None | str | Unset = UNSET
    quote_rate: None | str | Unset = UNSET
    review: None | ReviewStatus | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        amount = self.amount

        chain_id = self.chain_id.value

        created_at = self.created_at.isoformat()

        currency = self.currency.value

        fee = self.fee

        id = self.id

        livemode = self.livemode

        log_index = self.log_index

        net = self.net

        object_ = self.object_

        payment = self.payment

        source = self.source

        token_address = self.token_address

        tx_hash = self.tx_hash

        type_ = self.type_.value

        block_number: None | str | Unset
        if isinstance(self.block_number, Unset):
            block_number = UNSET
        else:
            block_number = self.block_number

        block_time: None | str | Unset
        if isinstance(self.block_time, Unset):
            block_time = UNSET
        elif isinstance(self.block_time, datetime.datetime):
            block_time = self.block_time.isoformat()
        else:
            block_time = self.block_time

        price_amount: None | str | Unset
        if isinstance(self.price_amount, Unset):
            price_amount = UNSET
        else:
            price_amount = self.price_amount

        price_currency: None | str | Unset
        if isinstance(self.price_currency, Unset):
            price_currency = UNSET
        elif isinstance(self.price_currency, Fiat):
            price_currency = self.price_currency.value
        else:
            price_currency = self.price_currency

        quote_pair: None | str | Unset
        if isinstance(self.quote_pair, Unset):
            quote_pair = UNSET
        else:
            quote_pair = self.quote_pair

        quote_rate: None | str | Unset
        if isinstance(self.quote_rate, Unset):
            quote_rate = UNSET
        else:
            quote_rate = self.quote_rate

        review: None | str | Unset
        if isinstance(self.review, Unset):
            review = UNSET
        elif isinstance(self.review, ReviewStatus):
            review = self.review.value
        else:
            review = self.review

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "amount": amount,
                "chain_id": chain_id,
                "created_at": created_at,
                "currency": currency,
                "fee": fee,
                "id": id,
                "livemode": livemode,
                "log_index": log_index,
                "net": net,
                "object": object_,
                "payment": payment,
                "source": source,
                "token_address": token_address,
                "tx_hash": tx_hash,
                "type": type_,
            }
        )
        if block_number is not UNSET:
            field_dict["block_number"] = block_number
        if block_time is not UNSET:
            field_dict["block_time"] = block_time
        if price_amount is not UNSET:
            field_dict["price_amount"] = price_amount
        if price_currency is not UNSET:
            field_dict["price_currency"] = price_currency
        if quote_pair is not UNSET:
            field_dict["quote_pair"] = quote_pair
        if quote_rate is not UNSET:
            field_dict["quote_rate"] = quote_rate
        if review is not UNSET:
            field_dict["review"] = review

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        amount = d.pop("amount")

        chain_id = ChainId(d.pop("chain_id"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        currency = Currency(d.pop("currency"))

        fee = d.pop("fee")

        id = d.pop("id")

        livemode = d.pop("livemode")

        log_index = d.pop("log_index")

        net = d.pop("net")

        object_ = d.pop("object")

        payment = d.pop("payment")

        source = d.pop("source")

        token_address = d.pop("token_address")

        tx_hash = d.pop("tx_hash")

        type_ = BalanceType(d.pop("type"))

        def _parse_block_number(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        block_number = _parse_block_number(d.pop("block_number", UNSET))

        def _parse_block_time(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                block_time_type_1 = datetime.datetime.fromisoformat(data)

                return block_time_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        block_time = _parse_block_time(d.pop("block_time", UNSET))

        def _parse_price_amount(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        price_amount = _parse_price_amount(d.pop("price_amount", UNSET))

        def _parse_price_currency(data: object) -> Fiat | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                price_currency_type_1 = Fiat(data)

                return price_currency_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Fiat | None | Unset, data)

        price_currency = _parse_price_currency(d.pop("price_currency", UNSET))

        def _parse_quote_pair(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        quote_pair = _parse_quote_pair(d.pop("quote_pair", UNSET))

        def _parse_quote_rate(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        quote_rate = _parse_quote_rate(d.pop("quote_rate", UNSET))

        def _parse_review(data: object) -> None | ReviewStatus | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                review_type_1 = ReviewStatus(data)

                return review_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ReviewStatus | Unset, data)

        review = _parse_review(d.pop("review", UNSET))

        list_balance_transaction_resource_data_item = cls(
            amount=amount,
            chain_id=chain_id,
            created_at=created_at,
            currency=currency,
            fee=fee,
            id=id,
            livemode=livemode,
            log_index=log_index,
            net=net,
            object_=object_,
            payment=payment,
            source=source,
            token_address=token_address,
            tx_hash=tx_hash,
            type_=type_,
            block_number=block_number,
            block_time=block_time,
            price_amount=price_amount,
            price_currency=price_currency,
            quote_pair=quote_pair,
            quote_rate=quote_rate,
            review=review,
        )

        list_balance_transaction_resource_data_item.additional_properties = d
        return list_balance_transaction_resource_data_item

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
