from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.chain_id import ChainId
from ..models.currency import Currency
from ..models.session_mode import SessionMode
from ..models.session_status import SessionStatus
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.list_checkout_session_resource_data_item_metadata import (
        ListCheckoutSessionResourceDataItemMetadata,
    )
    from ..models.price_resource import PriceResource
    from ..models.quote_resource import QuoteResource


T = TypeVar("T", bound="ListCheckoutSessionResourceDataItem")


@_attrs_define
class ListCheckoutSessionResourceDataItem:
    """
    Attributes:
        amount (str): A token amount as a decimal string (at most 6 decimal places), never a JSON number.
        amount_received (str): A token amount as a decimal string (at most 6 decimal places), never a JSON number.
        chain_id (ChainId): 8453 (Base, live mode) or 84532 (Base Sepolia, test mode).
        created_at (datetime.datetime): An RFC 3339 time in UTC with milliseconds.
        currency (Currency): Settlement currencies (tokens, all with 6 decimals).
        expires_at (datetime.datetime): An RFC 3339 time in UTC with milliseconds.
        fee_amount (str): A token amount as a decimal string (at most 6 decimal places), never a JSON number.
        fee_bps (int):
        fee_tier (str):
        id (str): A checkout session id (`cs_…`).
        livemode (bool):
        merchant_net_amount (str): A token amount as a decimal string (at most 6 decimal places), never a JSON number.
        metadata (ListCheckoutSessionResourceDataItemMetadata):
        mode (SessionMode):
        object_ (str):
        recipient_address (str): An EVM address: 0x and 40 hex digits. Accepted in lowercase, in uppercase, or in mixed
            case when that is its EIP-55 checksum (format `evm-address`); always written with the checksum.
        status (SessionStatus):
        title (str):
        token_address (str): An EVM address: 0x and 40 hex digits. Accepted in lowercase, in uppercase, or in mixed case
            when that is its EIP-55 checksum (format `evm-address`); always written with the checksum.
        underpayment_tolerance_bps (int): How far short of `amount`, in basis points of it, a deposit may fall and still
            complete the session (D32): the request's, else the merchant's default at creation
            (0 unless set); always 0 in subscription mode.
        cancel_url (None | str | Unset):
        chain_plan_id (None | str | Unset):
        completed_at (datetime.datetime | None | Unset):
        customer (None | str | Unset):
        customer_reference (None | str | Unset):
        deposit_address (None | str | Unset):
        description (None | str | Unset):
        interval_seconds (int | None | Unset):
        payment_link (None | str | Unset):
        price (None | PriceResource | Unset):
        quote (None | QuoteResource | Unset):
        requoted_from (None | str | Unset):
        subscription (None | str | Unset):
        success_url (None | str | Unset):
        tx_hash (None | str | Unset):
        underpaid_amount (None | str | Unset):
        url (None | str | Unset):
        wallet_address (None | str | Unset):
        x402_url (None | str | Unset): Where an agent pays by x402 (`GET` answers 402 with the payment requirements): an
            open payment-mode session in USDC or EURC with a deposit address; null otherwise.
    """

    amount: str
    amount_received: str
    chain_id: ChainId
    created_at: datetime.datetime
    currency: Currency
    expires_at: datetime.datetime
    fee_amount: str
    fee_bps: int
    fee_tier: str
    id: str
    livemode: bool
    merchant_net_amount: str
    metadata: ListCheckoutSessionResourceDataItemMetadata
    mode: SessionMode
    object_: str
    recipient_address: str
    status: SessionStatus
    title: str
    token_address: str
    underpayment_tolerance_bps: int
    cancel_url: None | str | Unset = UNSET
    chain_plan_id: None | str | Unset = UNSET
    completed_at: datetime.datetime | None | Unset = UNSET
    customer: None | str | Unset = UNSET
    customer_reference: None | str | Unset = UNSET
    deposit_address: None | str | Unset = UNSET
    description: None | str | Unset = UNSET
    interval_seconds: int | None | Unset = UNSET
    payment_link: None | str | Unset = UNSET
    price: None | PriceResource | Unset = UNSET
    quote: None | QuoteResource | Unset = UNSET
    requoted_from: None | str | Unset = UNSET
    subscription: None | str | Unset = UNSET
    success_url: None | str | Unset = UNSET
    tx_hash: None | str | Unset = UNSET
    underpaid_amount: None | str | Unset = UNSET
    url: None | str | Unset = UNSET
    wallet_address: None | str | Unset = UNSET
    x402_url: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.price_resource import PriceResource
        from ..models.quote_resource import QuoteResource

        amount = self.amount

        amount_received = self.amount_received

        chain_id = self.chain_id.value

        created_at = self.created_at.isoformat()

        currency = self.currency.value

        expires_at = self.expires_at.isoformat()

        fee_amount = self.fee_amount

        fee_bps = self.fee_bps

        fee_tier = self.fee_tier

        id = self.id

        livemode = self.livemode

        merchant_net_amount = self.merchant_net_amount

        metadata = self.metadata.to_dict()

        mode = self.mode.value

        object_ = self.object_

        recipient_address = self.recipient_address

        status = self.status.value

        title = self.title

        token_address = self.token_address

        underpayment_tolerance_bps = self.underpayment_tolerance_bps

        cancel_url: None | str | Unset
        if isinstance(self.cancel_url, Unset):
            cancel_url = UNSET
        else:
            cancel_url = self.cancel_url

        chain_plan_id: None | str | Unset
        if isinstance(self.chain_plan_id, Unset):
            chain_plan_id = UNSET
        else:
            chain_plan_id = self.chain_plan_id

        completed_at: None | str | Unset
        if isinstance(self.completed_at, Unset):
            completed_at = UNSET
        elif isinstance(self.completed_at, datetime.datetime):
            completed_at = self.completed_at.isoformat()
        else:
            completed_at = self.completed_at

        customer: None | str | Unset
        if isinstance(self.customer, Unset):
            customer = UNSET
        else:
            customer = self.customer

        customer_reference: None | str | Unset
        if isinstance(self.customer_reference, Unset):
            customer_reference = UNSET
        else:
            customer_reference = self.customer_reference

        deposit_address: None | str | Unset
        if isinstance(self.deposit_address, Unset):
            deposit_address = UNSET
        else:
            deposit_address = self.deposit_address

        description: None | str | Unset
        if isinstance(self.description, Unset):
            description = UNSET
        else:
            description = self.description

        interval_seconds: int | None | Unset
        if isinstance(self.interval_seconds, Unset):
            interval_seconds = UNSET
        else:
            interval_seconds = self.interval_seconds

        payment_link: None | str | Unset
        if isinstance(self.payment_link, Unset):
            payment_link = UNSET
        else:
            payment_link = self.payment_link

        price: dict[str, Any] | None | Unset
        if isinstance(self.price, Unset):
            price = UNSET
        elif isinstance(self.price, PriceResource):
            price = self.price.to_dict()
        else:
            price = self.price

        quote: dict[str, Any] | None | Unset
        if isinstance(self.quote, Unset):
            quote = UNSET
        elif isinstance(self.quote, QuoteResource):
            quote = self.quote.to_dict()
        else:
            quote = self.quote

        requoted_from: None | str | Unset
        if isinstance(self.requoted_from, Unset):
            requoted_from = UNSET
        else:
            requoted_from = self.requoted_from

        subscription: None | str | Unset
        if isinstance(self.subscription, Unset):
            subscription = UNSET
        else:
            subscription = self.subscription

        success_url: None | str | Unset
        if isinstance(self.success_url, Unset):
            success_url = UNSET
        else:
            success_url = self.success_url

        tx_hash: None | str | Unset
        if isinstance(self.tx_hash, Unset):
            tx_hash = UNSET
        else:
            tx_hash = self.tx_hash

        underpaid_amount: None | str | Unset
        if isinstance(self.underpaid_amount, Unset):
            underpaid_amount = UNSET
        else:
            underpaid_amount = self.underpaid_amount

        url: None | str | Unset
        if isinstance(self.url, Unset):
            url = UNSET
        else:
            url = self.url

        wallet_address: None | str | Unset
        if isinstance(self.wallet_address, Unset):
            wallet_address = UNSET
        else:
            wallet_address = self.wallet_address

        x402_url: None | str | Unset
        if isinstance(self.x402_url, Unset):
            x402_url = UNSET
        else:
            x402_url = self.x402_url

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "amount": amount,
                "amount_received": amount_received,
                "chain_id": chain_id,
                "created_at": created_at,
                "currency": currency,
                "expires_at": expires_at,
                "fee_amount": fee_amount,
                "fee_bps": fee_bps,
                "fee_tier": fee_tier,
                "id": id,
                "livemode": livemode,
                "merchant_net_amount": merchant_net_amount,
                "metadata": metadata,
                "mode": mode,
                "object": object_,
                "recipient_address": recipient_address,
                "status": status,
                "title": title,
                "token_address": token_address,
                "underpayment_tolerance_bps": underpayment_tolerance_bps,
            }
        )
        if cancel_url is not UNSET:
            field_dict["cancel_url"] = cancel_url
        if chain_plan_id is not UNSET:
            field_dict["chain_plan_id"] = chain_plan_id
        if completed_at is not UNSET:
            field_dict["completed_at"] = completed_at
        if customer is not UNSET:
            field_dict["customer"] = customer
        if customer_reference is not UNSET:
            field_dict["customer_reference"] = customer_reference
        if deposit_address is not UNSET:
            field_dict["deposit_address"] = deposit_address
        if description is not UNSET:
            field_dict["description"] = description
        if interval_seconds is not UNSET:
            field_dict["interval_seconds"] = interval_seconds
        if payment_link is not UNSET:
            field_dict["payment_link"] = payment_link
        if price is not UNSET:
            field_dict["price"] = price
        if quote is not UNSET:
            field_dict["quote"] = quote
        if requoted_from is not UNSET:
            field_dict["requoted_from"] = requoted_from
        if subscription is not UNSET:
            field_dict["subscription"] = subscription
        if success_url is not UNSET:
            field_dict["success_url"] = success_url
        if tx_hash is not UNSET:
            field_dict["tx_hash"] = tx_hash
        if underpaid_amount is not UNSET:
            field_dict["underpaid_amount"] = underpaid_amount
        if url is not UNSET:
            field_dict["url"] = url
        if wallet_address is not UNSET:
            field_dict["wallet_address"] = wallet_address
        if x402_url is not UNSET:
            field_dict["x402_url"] = x402_url

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.list_checkout_session_resource_data_item_metadata import (
            ListCheckoutSessionResourceDataItemMetadata,
        )
        from ..models.price_resource import PriceResource
        from ..models.quote_resource import QuoteResource

        d = dict(src_dict)
        amount = d.pop("amount")

        amount_received = d.pop("amount_received")

        chain_id = ChainId(d.pop("chain_id"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        currency = Currency(d.pop("currency"))

        expires_at = datetime.datetime.fromisoformat(d.pop("expires_at"))

        fee_amount = d.pop("fee_amount")

        fee_bps = d.pop("fee_bps")

        fee_tier = d.pop("fee_tier")

        id = d.pop("id")

        livemode = d.pop("livemode")

        merchant_net_amount = d.pop("merchant_net_amount")

        metadata = ListCheckoutSessionResourceDataItemMetadata.from_dict(
            d.pop("metadata")
        )

        mode = SessionMode(d.pop("mode"))

        object_ = d.pop("object")

        recipient_address = d.pop("recipient_address")

        status = SessionStatus(d.pop("status"))

        title = d.pop("title")

        token_address = d.pop("token_address")

        underpayment_tolerance_bps = d.pop("underpayment_tolerance_bps")

        def _parse_cancel_url(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        cancel_url = _parse_cancel_url(d.pop("cancel_url", UNSET))

        def _parse_chain_plan_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        chain_plan_id = _parse_chain_plan_id(d.pop("chain_plan_id", UNSET))

        def _parse_completed_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                completed_at_type_1 = datetime.datetime.fromisoformat(data)

                return completed_at_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        completed_at = _parse_completed_at(d.pop("completed_at", UNSET))

        def _parse_customer(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        customer = _parse_customer(d.pop("customer", UNSET))

        def _parse_customer_reference(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        customer_reference = _parse_customer_reference(
            d.pop("customer_reference", UNSET)
        )

        def _parse_deposit_address(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        deposit_address = _parse_deposit_address(d.pop("deposit_address", UNSET))

        def _parse_description(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        description = _parse_description(d.pop("description", UNSET))

        def _parse_interval_seconds(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        interval_seconds = _parse_interval_seconds(d.pop("interval_seconds", UNSET))

        def _parse_payment_link(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        payment_link = _parse_payment_link(d.pop("payment_link", UNSET))

        def _parse_price(data: object) -> None | PriceResource | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                price_type_1 = PriceResource.from_dict(data)

                return price_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PriceResource | Unset, data)

        price = _parse_price(d.pop("price", UNSET))

        def _parse_quote(data: object) -> None | QuoteResource | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                quote_type_1 = QuoteResource.from_dict(data)

                return quote_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | QuoteResource | Unset, data)

        quote = _parse_quote(d.pop("quote", UNSET))

        def _parse_requoted_from(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        requoted_from = _parse_requoted_from(d.pop("requoted_from", UNSET))

        def _parse_subscription(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        subscription = _parse_subscription(d.pop("subscription", UNSET))

        def _parse_success_url(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        success_url = _parse_success_url(d.pop("success_url", UNSET))

        def _parse_tx_hash(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        tx_hash = _parse_tx_hash(d.pop("tx_hash", UNSET))

        def _parse_underpaid_amount(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        underpaid_amount = _parse_underpaid_amount(d.pop("underpaid_amount", UNSET))

        def _parse_url(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        url = _parse_url(d.pop("url", UNSET))

        def _parse_wallet_address(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        wallet_address = _parse_wallet_address(d.pop("wallet_address", UNSET))

        def _parse_x402_url(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        x402_url = _parse_x402_url(d.pop("x402_url", UNSET))

        list_checkout_session_resource_data_item = cls(
            amount=amount,
            amount_received=amount_received,
            chain_id=chain_id,
            created_at=created_at,
            currency=currency,
            expires_at=expires_at,
            fee_amount=fee_amount,
            fee_bps=fee_bps,
            fee_tier=fee_tier,
            id=id,
            livemode=livemode,
            merchant_net_amount=merchant_net_amount,
            metadata=metadata,
            mode=mode,
            object_=object_,
            recipient_address=recipient_address,
            status=status,
            title=title,
            token_address=token_address,
            underpayment_tolerance_bps=underpayment_tolerance_bps,
            cancel_url=cancel_url,
            chain_plan_id=chain_plan_id,
            completed_at=completed_at,
            customer=customer,
            customer_reference=customer_reference,
            deposit_address=deposit_address,
            description=description,
            interval_seconds=interval_seconds,
            payment_link=payment_link,
            price=price,
            quote=quote,
            requoted_from=requoted_from,
            subscription=subscription,
            success_url=success_url,
            tx_hash=tx_hash,
            underpaid_amount=underpaid_amount,
            url=url,
            wallet_address=wallet_address,
            x402_url=x402_url,
        )

        list_checkout_session_resource_data_item.additional_properties = d
        return list_checkout_session_resource_data_item

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
