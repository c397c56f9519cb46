from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.chain_id import ChainId
from ..models.subscription_resource_object import SubscriptionResourceObject
from ..models.subscription_status import SubscriptionStatus

T = TypeVar("T", bound="SubscriptionResource")


@_attrs_define
class SubscriptionResource:
    """
    Attributes:
        amount (str): A token amount as a decimal string (at most 6 decimal places), never a JSON number.
        canceled_at (datetime.datetime | None):
        chain_id (ChainId): 8453 (Base, live mode) or 84532 (Base Sepolia, test mode).
        chain_plan_id (str):
        chain_subscription_id (str):
        created_at (datetime.datetime): An RFC 3339 time in UTC with milliseconds.
        customer (str): A customer id (`cus_…`).
        id (str): A subscription id (`sub_…`).
        interval_seconds (int):
        last_failure_code (None | str):
        livemode (bool):
        next_payment_at (datetime.datetime | None):
        next_retry_at (datetime.datetime | None):
        object_ (SubscriptionResourceObject):
        retry_count (int):
        status (SubscriptionStatus): SubscriptionStatus
        title (str):
        wallet_address (str): An EVM address: 0x and 40 hex digits. Accepted in lowercase, in uppercase, or in mixed
            case when that is its EIP-55 checksum (format `evm-address`); always written with the checksum.
    """

    amount: str
    canceled_at: datetime.datetime | None
    chain_id: ChainId
    chain_plan_id: str
    chain_subscription_id: str
    created_at: datetime.datetime
    customer: str
    id: str
    interval_seconds: int
    last_failure_code: None | str
    livemode: bool
    next_payment_at: datetime.datetime | None
    next_retry_at: datetime.datetime | None
    object_: SubscriptionResourceObject
    retry_count: int
    status: SubscriptionStatus
    title: str
    wallet_address: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        amount = self.amount

        canceled_at: None | str
        if isinstance(self.canceled_at, datetime.datetime):
            canceled_at = self.canceled_at.isoformat()
        else:
            canceled_at = self.canceled_at

        chain_id = self.chain_id.value

        chain_plan_id = self.chain_plan_id

        chain_subscription_id = self.chain_subscription_id

        created_at = self.created_at.isoformat()

        customer = self.customer

        id = self.id

        interval_seconds = self.interval_seconds

        last_failure_code: None | str
        last_failure_code = self.last_failure_code

        livemode = self.livemode

        next_payment_at: None | str
        if isinstance(self.next_payment_at, datetime.datetime):
            next_payment_at = self.next_payment_at.isoformat()
        else:
            next_payment_at = self.next_payment_at

        next_retry_at: None | str
        if isinstance(self.next_retry_at, datetime.datetime):
            next_retry_at = self.next_retry_at.isoformat()
        else:
            next_retry_at = self.next_retry_at

        object_ = self.object_.value

        retry_count = self.retry_count

        status = self.status.value

        title = self.title

        wallet_address = self.wallet_address

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "amount": amount,
                "canceled_at": canceled_at,
                "chain_id": chain_id,
                "chain_plan_id": chain_plan_id,
                "chain_subscription_id": chain_subscription_id,
                "created_at": created_at,
                "customer": customer,
                "id": id,
                "interval_seconds": interval_seconds,
                "last_failure_code": last_failure_code,
                "livemode": livemode,
                "next_payment_at": next_payment_at,
                "next_retry_at": next_retry_at,
                "object": object_,
                "retry_count": retry_count,
                "status": status,
                "title": title,
                "wallet_address": wallet_address,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        amount = d.pop("amount")

        def _parse_canceled_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                canceled_at_type_1 = datetime.datetime.fromisoformat(data)

                return canceled_at_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        canceled_at = _parse_canceled_at(d.pop("canceled_at"))

        chain_id = ChainId(d.pop("chain_id"))

        chain_plan_id = d.pop("chain_plan_id")

        chain_subscription_id = d.pop("chain_subscription_id")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        customer = d.pop("customer")

        id = d.pop("id")

        interval_seconds = d.pop("interval_seconds")

        def _parse_last_failure_code(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        last_failure_code = _parse_last_failure_code(d.pop("last_failure_code"))

        livemode = d.pop("livemode")

        def _parse_next_payment_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                next_payment_at_type_1 = datetime.datetime.fromisoformat(data)

                return next_payment_at_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        next_payment_at = _parse_next_payment_at(d.pop("next_payment_at"))

        def _parse_next_retry_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                next_retry_at_type_1 = datetime.datetime.fromisoformat(data)

                return next_retry_at_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        next_retry_at = _parse_next_retry_at(d.pop("next_retry_at"))

        object_ = SubscriptionResourceObject(d.pop("object"))

        retry_count = d.pop("retry_count")

        status = SubscriptionStatus(d.pop("status"))

        title = d.pop("title")

        wallet_address = d.pop("wallet_address")

        subscription_resource = cls(
            amount=amount,
            canceled_at=canceled_at,
            chain_id=chain_id,
            chain_plan_id=chain_plan_id,
            chain_subscription_id=chain_subscription_id,
            created_at=created_at,
            customer=customer,
            id=id,
            interval_seconds=interval_seconds,
            last_failure_code=last_failure_code,
            livemode=livemode,
            next_payment_at=next_payment_at,
            next_retry_at=next_retry_at,
            object_=object_,
            retry_count=retry_count,
            status=status,
            title=title,
            wallet_address=wallet_address,
        )

        subscription_resource.additional_properties = d
        return subscription_resource

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
