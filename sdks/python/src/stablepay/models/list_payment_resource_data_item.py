from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.chain_id import ChainId
from ..models.charge_type import ChargeType
from ..models.currency import Currency
from ..models.payment_status import PaymentStatus
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.list_payment_resource_data_item_metadata import (
        ListPaymentResourceDataItemMetadata,
    )
    from ..models.payment_review import PaymentReview


T = TypeVar("T", bound="ListPaymentResourceDataItem")


@_attrs_define
class ListPaymentResourceDataItem:
    """
    Attributes:
        amount (str): A token amount as a decimal string (at most 6 decimal places), never a JSON number.
        chain_id (ChainId): 8453 (Base, live mode) or 84532 (Base Sepolia, test mode).
        charge_type (ChargeType): ChargeType
        created_at (datetime.datetime): An RFC 3339 time in UTC with milliseconds.
        currency (Currency): Settlement currencies (tokens, all with 6 decimals).
        fee_amount (str): A token amount as a decimal string (at most 6 decimal places), never a JSON number.
        id (str): A payment id (`pay_…`).
        livemode (bool):
        merchant_amount (str): A token amount as a decimal string (at most 6 decimal places), never a JSON number.
        metadata (ListPaymentResourceDataItemMetadata):
        object_ (str):
        overpaid_amount (str): A token amount as a decimal string (at most 6 decimal places), never a JSON number.
        refunded_amount (str): A token amount as a decimal string (at most 6 decimal places), never a JSON number.
        status (PaymentStatus): PaymentStatus
        token_address (str): An EVM address: 0x and 40 hex digits. Accepted in lowercase, in uppercase, or in mixed case
            when that is its EIP-55 checksum (format `evm-address`); always written with the checksum.
        wallet_address (str): An EVM address: 0x and 40 hex digits. Accepted in lowercase, in uppercase, or in mixed
            case when that is its EIP-55 checksum (format `evm-address`); always written with the checksum.
        block_number (None | str | Unset):
        checkout_session (None | str | Unset):
        customer (None | str | Unset):
        customer_reference (None | str | Unset):
        log_index (int | None | Unset):
        review (None | PaymentReview | Unset):
        subscription (None | str | Unset):
        tx_hash (None | str | Unset):
        underpaid_amount (None | str | Unset):
    """

    amount: str
    chain_id: ChainId
    charge_type: ChargeType
    created_at: datetime.datetime
    currency: Currency
    fee_amount: str
    id: str
    livemode: bool
    merchant_amount: str
    metadata: ListPaymentResourceDataItemMetadata
    object_: str
    overpaid_amount: str
    refunded_amount: str
    status: PaymentStatus
    token_address: str
    wallet_address: str
    block_number: None | str | Unset = UNSET
    checkout_session: None | str | Unset = UNSET
    customer: None | str | Unset = UNSET
    customer_reference: None | str | Unset = UNSET
    log_index: int | None | Unset = UNSET
    review: None | PaymentReview | Unset = UNSET
    subscription: None | str | Unset = UNSET
    tx_hash: None | str | Unset = UNSET
    underpaid_amount: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.payment_review import PaymentReview

        amount = self.amount

        chain_id = self.chain_id.value

        charge_type = self.charge_type.value

        created_at = self.created_at.isoformat()

        currency = self.currency.value

        fee_amount = self.fee_amount

        id = self.id

        livemode = self.livemode

        merchant_amount = self.merchant_amount

        metadata = self.metadata.to_dict()

        object_ = self.object_

        overpaid_amount = self.overpaid_amount

        refunded_amount = self.refunded_amount

        status = self.status.value

        token_address = self.token_address

        wallet_address = self.wallet_address

        block_number: None | str | Unset
        if isinstance(self.block_number, Unset):
            block_number = UNSET
        else:
            block_number = self.block_number

        checkout_session: None | str | Unset
        if isinstance(self.checkout_session, Unset):
            checkout_session = UNSET
        else:
            checkout_session = self.checkout_session

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

        log_index: int | None | Unset
        if isinstance(self.log_index, Unset):
            log_index = UNSET
        else:
            log_index = self.log_index

        review: dict[str, Any] | None | Unset
        if isinstance(self.review, Unset):
            review = UNSET
        elif isinstance(self.review, PaymentReview):
            review = self.review.to_dict()
        else:
            review = self.review

        subscription: None | str | Unset
        if isinstance(self.subscription, Unset):
            subscription = UNSET
        else:
            subscription = self.subscription

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

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "amount": amount,
                "chain_id": chain_id,
                "charge_type": charge_type,
                "created_at": created_at,
                "currency": currency,
                "fee_amount": fee_amount,
                "id": id,
                "livemode": livemode,
                "merchant_amount": merchant_amount,
                "metadata": metadata,
                "object": object_,
                "overpaid_amount": overpaid_amount,
                "refunded_amount": refunded_amount,
                "status": status,
                "token_address": token_address,
                "wallet_address": wallet_address,
            }
        )
        if block_number is not UNSET:
            field_dict["block_number"] = block_number
        if checkout_session is not UNSET:
            field_dict["checkout_session"] = checkout_session
        if customer is not UNSET:
            field_dict["customer"] = customer
        if customer_reference is not UNSET:
            field_dict["customer_reference"] = customer_reference
        if log_index is not UNSET:
            field_dict["log_index"] = log_index
        if review is not UNSET:
            field_dict["review"] = review
        if subscription is not UNSET:
            field_dict["subscription"] = subscription
        if tx_hash is not UNSET:
            field_dict["tx_hash"] = tx_hash
        if underpaid_amount is not UNSET:
            field_dict["underpaid_amount"] = underpaid_amount

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.list_payment_resource_data_item_metadata import (
            ListPaymentResourceDataItemMetadata,
        )
        from ..models.payment_review import PaymentReview

        d = dict(src_dict)
        amount = d.pop("amount")

        chain_id = ChainId(d.pop("chain_id"))

        charge_type = ChargeType(d.pop("charge_type"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        currency = Currency(d.pop("currency"))

        fee_amount = d.pop("fee_amount")

        id = d.pop("id")

        livemode = d.pop("livemode")

        merchant_amount = d.pop("merchant_amount")

        metadata = ListPaymentResourceDataItemMetadata.from_dict(d.pop("metadata"))

        object_ = d.pop("object")

        overpaid_amount = d.pop("overpaid_amount")

        refunded_amount = d.pop("refunded_amount")

        status = PaymentStatus(d.pop("status"))

        token_address = d.pop("token_address")

        wallet_address = d.pop("wallet_address")

        def _parse_block_number(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        block_number = _parse_block_number(d.pop("block_number", UNSET))

        def _parse_checkout_session(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        checkout_session = _parse_checkout_session(d.pop("checkout_session", UNSET))

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

        def _parse_log_index(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        log_index = _parse_log_index(d.pop("log_index", UNSET))

        def _parse_review(data: object) -> None | PaymentReview | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                review_type_1 = PaymentReview.from_dict(data)

                return review_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PaymentReview | Unset, data)

        review = _parse_review(d.pop("review", UNSET))

        def _parse_subscription(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        subscription = _parse_subscription(d.pop("subscription", UNSET))

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

        list_payment_resource_data_item = cls(
            amount=amount,
            chain_id=chain_id,
            charge_type=charge_type,
            created_at=created_at,
            currency=currency,
            fee_amount=fee_amount,
            id=id,
            livemode=livemode,
            merchant_amount=merchant_amount,
            metadata=metadata,
            object_=object_,
            overpaid_amount=overpaid_amount,
            refunded_amount=refunded_amount,
            status=status,
            token_address=token_address,
            wallet_address=wallet_address,
            block_number=block_number,
            checkout_session=checkout_session,
            customer=customer,
            customer_reference=customer_reference,
            log_index=log_index,
            review=review,
            subscription=subscription,
            tx_hash=tx_hash,
            underpaid_amount=underpaid_amount,
        )

        list_payment_resource_data_item.additional_properties = d
        return list_payment_resource_data_item

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
