from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.chain_id import ChainId
from ..models.charge_type import ChargeType
from ..models.currency import Currency
from ..models.payment_resource_object import PaymentResourceObject
from ..models.payment_status import PaymentStatus

if TYPE_CHECKING:
    from ..models.payment_resource_metadata import PaymentResourceMetadata
    from ..models.payment_review import PaymentReview


T = TypeVar("T", bound="PaymentResource")


@_attrs_define
class PaymentResource:
    """
    Attributes:
        amount (str): A token amount as a decimal string (at most 6 decimal places), never a JSON number.
        block_number (None | str):
        chain_id (ChainId): 8453 (Base, live mode) or 84532 (Base Sepolia, test mode).
        charge_type (ChargeType): ChargeType
        checkout_session (None | str):
        created_at (datetime.datetime): An RFC 3339 time in UTC with milliseconds.
        currency (Currency): Settlement currencies (tokens, all with 6 decimals).
        customer (None | str):
        customer_reference (None | str):
        fee_amount (str): A token amount as a decimal string (at most 6 decimal places), never a JSON number.
        id (str): A payment id (`pay_…`).
        livemode (bool):
        log_index (int | None):
        merchant_amount (str): A token amount as a decimal string (at most 6 decimal places), never a JSON number.
        metadata (PaymentResourceMetadata):
        object_ (PaymentResourceObject):
        overpaid_amount (str): A token amount as a decimal string (at most 6 decimal places), never a JSON number.
        refunded_amount (str): A token amount as a decimal string (at most 6 decimal places), never a JSON number.
        review (None | PaymentReview):
        status (PaymentStatus): PaymentStatus
        subscription (None | str):
        token_address (str): An EVM address: 0x and 40 hex digits. Accepted in lowercase, in uppercase, or in mixed case
            when that is its EIP-55 checksum (format `evm-address`); always written with the checksum.
        tx_hash (None | str):
        underpaid_amount (None | str):
        wallet_address (str): An EVM address: 0x and 40 hex digits. Accepted in lowercase, in uppercase, or in mixed
            case when that is its EIP-55 checksum (format `evm-address`); always written with the checksum.
    """

    amount: str
    block_number: None | str
    chain_id: ChainId
    charge_type: ChargeType
    checkout_session: None | str
    created_at: datetime.datetime
    currency: Currency
    customer: None | str
    customer_reference: None | str
    fee_amount: str
    id: str
    livemode: bool
    log_index: int | None
    merchant_amount: str
    metadata: PaymentResourceMetadata
    object_: PaymentResourceObject
    overpaid_amount: str
    refunded_amount: str
    review: None | PaymentReview
    status: PaymentStatus
    subscription: None | str
    token_address: str
    tx_hash: None | str
    underpaid_amount: None | str
    wallet_address: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.payment_review import PaymentReview

        amount = self.amount

        block_number: None | str
        block_number = self.block_number

        chain_id = self.chain_id.value

        charge_type = self.charge_type.value

        checkout_session: None | str
        checkout_session = self.checkout_session

        created_at = self.created_at.isoformat()

        currency = self.currency.value

        customer: None | str
        customer = self.customer

        customer_reference: None | str
        customer_reference = self.customer_reference

        fee_amount = self.fee_amount

        id = self.id

        livemode = self.livemode

        log_index: int | None
        log_index = self.log_index

        merchant_amount = self.merchant_amount

        metadata = self.metadata.to_dict()

        object_ = self.object_.value

        overpaid_amount = self.overpaid_amount

        refunded_amount = self.refunded_amount

        review: dict[str, Any] | None
        if isinstance(self.review, PaymentReview):
            review = self.review.to_dict()
        else:
            review = self.review

        status = self.status.value

        subscription: None | str
        subscription = self.subscription

        token_address = self.token_address

        tx_hash: None | str
        tx_hash = self.tx_hash

        underpaid_amount: None | str
        underpaid_amount = self.underpaid_amount

        wallet_address = self.wallet_address

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "amount": amount,
                "block_number": block_number,
                "chain_id": chain_id,
                "charge_type": charge_type,
                "checkout_session": checkout_session,
                "created_at": created_at,
                "currency": currency,
                "customer": customer,
                "customer_reference": customer_reference,
                "fee_amount": fee_amount,
                "id": id,
                "livemode": livemode,
                "log_index": log_index,
                "merchant_amount": merchant_amount,
                "metadata": metadata,
                "object": object_,
                "overpaid_amount": overpaid_amount,
                "refunded_amount": refunded_amount,
                "review": review,
                "status": status,
                "subscription": subscription,
                "token_address": token_address,
                "tx_hash": tx_hash,
                "underpaid_amount": underpaid_amount,
                "wallet_address": wallet_address,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.payment_resource_metadata import PaymentResourceMetadata
        from ..models.payment_review import PaymentReview

        d = dict(src_dict)
        amount = d.pop("amount")

        def _parse_block_number(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        block_number = _parse_block_number(d.pop("block_number"))

        chain_id = ChainId(d.pop("chain_id"))

        charge_type = ChargeType(d.pop("charge_type"))

        def _parse_checkout_session(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        checkout_session = _parse_checkout_session(d.pop("checkout_session"))

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

        fee_amount = d.pop("fee_amount")

        id = d.pop("id")

        livemode = d.pop("livemode")

        def _parse_log_index(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        log_index = _parse_log_index(d.pop("log_index"))

        merchant_amount = d.pop("merchant_amount")

        metadata = PaymentResourceMetadata.from_dict(d.pop("metadata"))

        object_ = PaymentResourceObject(d.pop("object"))

        overpaid_amount = d.pop("overpaid_amount")

        refunded_amount = d.pop("refunded_amount")

        def _parse_review(data: object) -> None | PaymentReview:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                review_type_1 = PaymentReview.from_dict(data)

                return review_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PaymentReview, data)

        review = _parse_review(d.pop("review"))

        status = PaymentStatus(d.pop("status"))

        def _parse_subscription(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        subscription = _parse_subscription(d.pop("subscription"))

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

        wallet_address = d.pop("wallet_address")

        payment_resource = cls(
            amount=amount,
            block_number=block_number,
            chain_id=chain_id,
            charge_type=charge_type,
            checkout_session=checkout_session,
            created_at=created_at,
            currency=currency,
            customer=customer,
            customer_reference=customer_reference,
            fee_amount=fee_amount,
            id=id,
            livemode=livemode,
            log_index=log_index,
            merchant_amount=merchant_amount,
            metadata=metadata,
            object_=object_,
            overpaid_amount=overpaid_amount,
            refunded_amount=refunded_amount,
            review=review,
            status=status,
            subscription=subscription,
            token_address=token_address,
            tx_hash=tx_hash,
            underpaid_amount=underpaid_amount,
            wallet_address=wallet_address,
        )

        payment_resource.additional_properties = d
        return payment_resource

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
