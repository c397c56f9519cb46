from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.chain_id import ChainId
from ..models.subscription_status import SubscriptionStatus
from ..types import UNSET, Unset

T = TypeVar("T", bound="ListSubscriptionResourceDataItem")


@_attrs_define
class ListSubscriptionResourceDataItem:
    """
    Attributes:
        amount (str): A token amount as a decimal string (at most 6 decimal places), never a JSON number.
        chain_id (ChainId): 8453 (Base, live mode) or 84532 (Base Sepolia, test mode).
        chain_plan_id (str):
        chain_subscription_id (str):
        created_at (datetime.datetime): An RFC 3339 time in UTC with milliseconds.
        customer (str): A customer id (`cus_…`).
        id (str): A subscription id (`sub_…`).
        interval_seconds (int):
        livemode (bool):
        object_ (str):
        retry_count (int):
        status (SubscriptionStatus): SubscriptionStatus
        title (str):
        wallet_address (str): An EVM address: 0x and 40 hex digits. Accepted in lowercase, in uppercase, or in mixed
            case when that is its EIP-55 checksum (format `evm-address`); always written with the checksum.
        canceled_at (datetime.datetime | None | Unset):
        last_failure_code (None | str | Unset):
        next_payment_at (datetime.datetime | None | Unset):
        next_retry_at (datetime.datetime | None | Unset):
    """

    amount: str
    chain_id: ChainId
    chain_plan_id: str
    chain_subscription_id: str
    created_at: datetime.datetime
    customer: str
    id: str
    interval_seconds: int
    livemode: bool
    object_: str
    retry_count: int
    status: SubscriptionStatus
    title: str
    wallet_address: str
    canceled_at: datetime.datetime | None | Unset = UNSET
    last_failure_code: None | str | Unset = UNSET
    next_payment_at: datetime.datetime | None | Unset = UNSET
    next_retry_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        amount = self.amount

        chain_id = self.chain_id.value

        chain_plan_id = self.chain_plan_id

        chain_subscription_id = self.chain_subscription_id

        created_at = self.created_at.isoformat()

        customer = self.customer

        id = self.id

        interval_seconds = self.interval_seconds

        livemode = self.livemode

        object_ = self.object_

        retry_count = self.retry_count

        status = self.status.value

        title = self.title

        wallet_address = self.wallet_address

        canceled_at: None | str | Unset
        if isinstance(self.canceled_at, Unset):
            canceled_at = UNSET
        elif isinstance(self.canceled_at, datetime.datetime):
            canceled_at = self.canceled_at.isoformat()
        else:
            canceled_at = self.canceled_at

        last_failure_code: None | str | Unset
        if isinstance(self.last_failure_code, Unset):
            last_failure_code = UNSET
        else:
            last_failure_code = self.last_failure_code

        next_payment_at: None | str | Unset
        if isinstance(self.next_payment_at, Unset):
            next_payment_at = UNSET
        elif isinstance(self.next_payment_at, datetime.datetime):
            next_payment_at = self.next_payment_at.isoformat()
        else:
            next_payment_at = self.next_payment_at

        next_retry_at: None | str | Unset
        if isinstance(self.next_retry_at, Unset):
            next_retry_at = UNSET
        elif isinstance(self.next_retry_at, datetime.datetime):
            next_retry_at = self.next_retry_at.isoformat()
        else:
            next_retry_at = self.next_retry_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "amount": amount,
                "chain_id": chain_id,
                "chain_plan_id": chain_plan_id,
                "chain_subscription_id": chain_subscription_id,
                "created_at": created_at,
                "customer": customer,
                "id": id,
                "interval_seconds": interval_seconds,
                "livemode": livemode,
                "object": object_,
                "retry_count": retry_count,
                "status": status,
                "title": title,
                "wallet_address": wallet_address,
            }
        )
        if canceled_at is not UNSET:
            field_dict["canceled_at"] = canceled_at
        if last_failure_code is not UNSET:
            field_dict["last_failure_code"] = last_failure_code
        if next_payment_at is not UNSET:
            field_dict["next_payment_at"] = next_payment_at
        if next_retry_at is not UNSET:
            field_dict["next_retry_at"] = next_retry_at

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        amount = d.pop("amount")

        chain_id = ChainId(d.pop("chain_id"))

        chain_plan_id = d.pop("chain_plan_id")

        chain_subscription_id = d.pop("chain_subscription_id")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        customer = d.pop("customer")

        id = d.pop("id")

        interval_seconds = d.pop("interval_seconds")

        livemode = d.pop("livemode")

        object_ = d.pop("object")

        retry_count = d.pop("retry_count")

        status = SubscriptionStatus(d.pop("status"))

        title = d.pop("title")

        wallet_address = d.pop("wallet_address")

        def _parse_canceled_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                canceled_at_type_1 = datetime.datetime.fromisoformat(data)

                return canceled_at_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        canceled_at = _parse_canceled_at(d.pop("canceled_at", UNSET))

        def _parse_last_failure_code(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        last_failure_code = _parse_last_failure_code(d.pop("last_failure_code", UNSET))

        def _parse_next_payment_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                next_payment_at_type_1 = datetime.datetime.fromisoformat(data)

                return next_payment_at_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        next_payment_at = _parse_next_payment_at(d.pop("next_payment_at", UNSET))

        def _parse_next_retry_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                next_retry_at_type_1 = datetime.datetime.fromisoformat(data)

                return next_retry_at_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        next_retry_at = _parse_next_retry_at(d.pop("next_retry_at", UNSET))

        list_subscription_resource_data_item = cls(
            amount=amount,
            chain_id=chain_id,
            chain_plan_id=chain_plan_id,
            chain_subscription_id=chain_subscription_id,
            created_at=created_at,
            customer=customer,
            id=id,
            interval_seconds=interval_seconds,
            livemode=livemode,
            object_=object_,
            retry_count=retry_count,
            status=status,
            title=title,
            wallet_address=wallet_address,
            canceled_at=canceled_at,
            last_failure_code=last_failure_code,
            next_payment_at=next_payment_at,
            next_retry_at=next_retry_at,
        )

        list_subscription_resource_data_item.additional_properties = d
        return list_subscription_resource_data_item

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
