from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.chain_id import ChainId
from ..models.checkout_session_resource_object import CheckoutSessionResourceObject
from ..models.currency import Currency
from ..models.session_mode import SessionMode
from ..models.session_status import SessionStatus

if TYPE_CHECKING:
    from ..models.checkout_session_resource_metadata import (
        CheckoutSessionResourceMetadata,
    )
    from ..models.price_resource import PriceResource
    from ..models.quote_resource import QuoteResource


T = TypeVar("T", bound="CheckoutSessionResource")


@_attrs_define
class CheckoutSessionResource:
    """
    Attributes:
        amount (str): A token amount as a decimal string (at most 6 decimal places), never a JSON number.
        amount_received (str): A token amount as a decimal string (at most 6 decimal places), never a JSON number.
        cancel_url (None | str):
        chain_id (ChainId): 8453 (Base, live mode) or 84532 (Base Sepolia, test mode).
        chain_plan_id (None | str):
        completed_at (datetime.datetime | None):
        created_at (datetime.datetime): An RFC 3339 time in UTC with milliseconds.
        currency (Currency): Settlement currencies (tokens, all with 6 decimals).
        customer (None | str):
        customer_reference (None | str):
        deposit_address (None | str):
        description (None | str):
        expires_at (datetime.datetime): An RFC 3339 time in UTC with milliseconds.
        fee_amount (str): A token amount as a decimal string (at most 6 decimal places), never a JSON number.
        fee_bps (int):
        fee_tier (str):
        id (str): A checkout session id (`cs_…`).
        interval_seconds (int | None):
        livemode (bool):
        merchant_net_amount (str): A token amount as a decimal string (at most 6 decimal places), never a JSON number.
        metadata (CheckoutSessionResourceMetadata):
        mode (SessionMode):
        object_ (CheckoutSessionResourceObject):
        payment_link (None | str):
        price (None | PriceResource):
        quote (None | QuoteResource):
        recipient_address (str): An EVM address: 0x and 40 hex digits. Accepted in lowercase, in uppercase, or in mixed
            case when that is its EIP-55 checksum (format `evm-address`); always written with the checksum.
        requoted_from (None | str):
        status (SessionStatus):
        subscription (None | str):
        success_url (None | str):
        title (str):
        token_address (str): An EVM address: 0x and 40 hex digits. Accepted in lowercase, in uppercase, or in mixed case
            when that is its EIP-55 checksum (format `evm-address`); always written with the checksum.
        tx_hash (None | str):
        underpaid_amount (None | str):
        underpayment_tolerance_bps (int): How far short of `amount`, in basis points of it, a deposit may fall and still
            complete the session (D32): the request's, else the merchant's default at creation
            (0 unless set); always 0 in subscription mode.
        url (None | str):
        wallet_address (None | str):
        x402_url (None | str): Where an agent pays by x402 (`GET` answers 402 with the payment requirements): an
            open payment-mode session in USDC or EURC with a deposit address; null otherwise.
    """

    amount: str
    amount_received: str
    cancel_url: None | str
    chain_id: ChainId
    chain_plan_id: None | str
    completed_at: datetime.datetime | None
    created_at: datetime.datetime
    currency: Currency
    customer: None | str
    customer_reference: None | str
    deposit_address: None | str
    description: None | str
    expires_at: datetime.datetime
    fee_amount: str
    fee_bps: int
    fee_tier: str
    id: str
    interval_seconds: int | None
    livemode: bool
    merchant_net_amount: str
    metadata: CheckoutSessionResourceMetadata
    mode: SessionMode
    object_: CheckoutSessionResourceObject
    payment_link: None | str
    price: None | PriceResource
    quote: None | QuoteResource
    recipient_address: str
    requoted_from: None | str
    status: SessionStatus
    subscription: None | str
    success_url: None | str
    title: str
    token_address: str
    tx_hash: None | str
    underpaid_amount: None | str
    underpayment_tolerance_bps: int
    url: None | str
    wallet_address: None | str
    x402_url: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.price_resource import PriceResource
        from ..models.quote_resource import QuoteResource

        amount = self.amount

        amount_received = self.amount_received

        cancel_url: None | str
        cancel_url = self.cancel_url

        chain_id = self.chain_id.value

        chain_plan_id: None | str
        chain_plan_id = self.chain_plan_id

        completed_at: None | str
        if isinstance(self.completed_at, datetime.datetime):
            completed_at = self.completed_at.isoformat()
        else:
            completed_at = self.completed_at

        created_at = self.created_at.isoformat()

        currency = self.currency.value

        customer: None | str
        customer = self.customer

        customer_reference: None | str
        customer_reference = self.customer_reference

        deposit_address: None | str
        deposit_address = self.deposit_address

        description: None | str
        description = self.description

        expires_at = self.expires_at.isoformat()

        fee_amount = self.fee_amount

        fee_bps = self.fee_bps

        fee_tier = self.fee_tier

        id = self.id

        interval_seconds: int | None
        interval_seconds = self.interval_seconds

        livemode = self.livemode

        merchant_net_amount = self.merchant_net_amount

        metadata = self.metadata.to_dict()

        mode = self.mode.value

        object_ = self.object_.value

        payment_link: None | str
        payment_link = self.payment_link

        price: dict[str, Any] | None
        if isinstance(self.price, PriceResource):
            price = self.price.to_dict()
        else:
            price = self.price

        quote: dict[str, Any] | None
        if isinstance(self.quote, QuoteResource):
            quote = self.quote.to_dict()
        else:
            quote = self.quote

        recipient_address = self.recipient_address

        requoted_from: None | str
        requoted_from = self.requoted_from

        status = self.status.value

        subscription: None | str
        subscription = self.subscription

        success_url: None | str
        success_url = self.success_url

        title = self.title

        token_address = self.token_address

        tx_hash: None | str
        tx_hash = self.tx_hash

        underpaid_amount: None | str
        underpaid_amount = self.underpaid_amount

        underpayment_tolerance_bps = self.underpayment_tolerance_bps

        url: None | str
        url = self.url

        wallet_address: None | str
        wallet_address = self.wallet_address

        x402_url: None | str
        x402_url = self.x402_url

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "amount": amount,
                "amount_received": amount_received,
                "cancel_url": cancel_url,
                "chain_id": chain_id,
                "chain_plan_id": chain_plan_id,
                "completed_at": completed_at,
                "created_at": created_at,
                "currency": currency,
                "customer": customer,
                "customer_reference": customer_reference,
                "deposit_address": deposit_address,
                "description": description,
                "expires_at": expires_at,
                "fee_amount": fee_amount,
                "fee_bps": fee_bps,
                "fee_tier": fee_tier,
                "id": id,
                "interval_seconds": interval_seconds,
                "livemode": livemode,
                "merchant_net_amount": merchant_net_amount,
                "metadata": metadata,
                "mode": mode,
                "object": object_,
                "payment_link": payment_link,
                "price": price,
                "quote": quote,
                "recipient_address": recipient_address,
                "requoted_from": requoted_from,
                "status": status,
                "subscription": subscription,
                "success_url": success_url,
                "title": title,
                "token_address": token_address,
                "tx_hash": tx_hash,
                "underpaid_amount": underpaid_amount,
                "underpayment_tolerance_bps": underpayment_tolerance_bps,
                "url": url,
                "wallet_address": wallet_address,
                "x402_url": x402_url,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.checkout_session_resource_metadata import (
            CheckoutSessionResourceMetadata,
        )
        from ..models.price_resource import PriceResource
        from ..models.quote_resource import QuoteResource

        d = dict(src_dict)
        amount = d.pop("amount")

        amount_received = d.pop("amount_received")

        def _parse_cancel_url(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        cancel_url = _parse_cancel_url(d.pop("cancel_url"))

        chain_id = ChainId(d.pop("chain_id"))

        def _parse_chain_plan_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        chain_plan_id = _parse_chain_plan_id(d.pop("chain_plan_id"))

        def _parse_completed_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                completed_at_type_1 = datetime.datetime.fromisoformat(data)

                return completed_at_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        completed_at = _parse_completed_at(d.pop("completed_at"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        currency = Currency(d.pop("currency"))

        def _parse_customer(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        customer = _parse_customer(d.pop("customer"))

        def _parse_customer_reference(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        customer_reference = _parse_customer_reference(d.pop("customer_reference"))

        def _parse_deposit_address(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        deposit_address = _parse_deposit_address(d.pop("deposit_address"))

        def _parse_description(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        description = _parse_description(d.pop("description"))

        expires_at = datetime.datetime.fromisoformat(d.pop("expires_at"))

        fee_amount = d.pop("fee_amount")

        fee_bps = d.pop("fee_bps")

        fee_tier = d.pop("fee_tier")

        id = d.pop("id")

        def _parse_interval_seconds(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        interval_seconds = _parse_interval_seconds(d.pop("interval_seconds"))

        livemode = d.pop("livemode")

        merchant_net_amount = d.pop("merchant_net_amount")

        metadata = CheckoutSessionResourceMetadata.from_dict(d.pop("metadata"))

        mode = SessionMode(d.pop("mode"))

        object_ = CheckoutSessionResourceObject(d.pop("object"))

        def _parse_payment_link(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        payment_link = _parse_payment_link(d.pop("payment_link"))

        def _parse_price(data: object) -> None | PriceResource:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                price_type_1 = PriceResource.from_dict(data)

                return price_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PriceResource, data)

        price = _parse_price(d.pop("price"))

        def _parse_quote(data: object) -> None | QuoteResource:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                quote_type_1 = QuoteResource.from_dict(data)

                return quote_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | QuoteResource, data)

        quote = _parse_quote(d.pop("quote"))

        recipient_address = d.pop("recipient_address")

        def _parse_requoted_from(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        requoted_from = _parse_requoted_from(d.pop("requoted_from"))

        status = SessionStatus(d.pop("status"))

        def _parse_subscription(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        subscription = _parse_subscription(d.pop("subscription"))

        def _parse_success_url(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        success_url = _parse_success_url(d.pop("success_url"))

        title = d.pop("title")

        token_address = d.pop("token_address")

        def _parse_tx_hash(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        tx_hash = _parse_tx_hash(d.pop("tx_hash"))

        def _parse_underpaid_amount(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        underpaid_amount = _parse_underpaid_amount(d.pop("underpaid_amount"))

        underpayment_tolerance_bps = d.pop("underpayment_tolerance_bps")

        def _parse_url(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        url = _parse_url(d.pop("url"))

        def _parse_wallet_address(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        wallet_address = _parse_wallet_address(d.pop("wallet_address"))

        def _parse_x402_url(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        x402_url = _parse_x402_url(d.pop("x402_url"))

        checkout_session_resource = cls(
            amount=amount,
            amount_received=amount_received,
            cancel_url=cancel_url,
            chain_id=chain_id,
            chain_plan_id=chain_plan_id,
            completed_at=completed_at,
            created_at=created_at,
            currency=currency,
            customer=customer,
            customer_reference=customer_reference,
            deposit_address=deposit_address,
            description=description,
            expires_at=expires_at,
            fee_amount=fee_amount,
            fee_bps=fee_bps,
            fee_tier=fee_tier,
            id=id,
            interval_seconds=interval_seconds,
            livemode=livemode,
            merchant_net_amount=merchant_net_amount,
            metadata=metadata,
            mode=mode,
            object_=object_,
            payment_link=payment_link,
            price=price,
            quote=quote,
            recipient_address=recipient_address,
            requoted_from=requoted_from,
            status=status,
            subscription=subscription,
            success_url=success_url,
            title=title,
            token_address=token_address,
            tx_hash=tx_hash,
            underpaid_amount=underpaid_amount,
            underpayment_tolerance_bps=underpayment_tolerance_bps,
            url=url,
            wallet_address=wallet_address,
            x402_url=x402_url,
        )

        checkout_session_resource.additional_properties = d
        return checkout_session_resource

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
