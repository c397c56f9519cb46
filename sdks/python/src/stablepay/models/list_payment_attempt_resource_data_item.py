from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.attempt_status import AttemptStatus
from ..types import UNSET, Unset

T = TypeVar("T", bound="ListPaymentAttemptResourceDataItem")


@_attrs_define
class ListPaymentAttemptResourceDataItem:
    """
    Attributes:
        attempt_number (int):
        created_at (datetime.datetime): An RFC 3339 time in UTC with milliseconds.
        id (str): A payment attempt id (`att_…`).
        livemode (bool):
        object_ (str):
        period_key (datetime.datetime): An RFC 3339 time in UTC with milliseconds.
        status (AttemptStatus): AttemptStatus
        subscription (str): A subscription id (`sub_…`).
        failure_code (None | str | Unset):
        failure_reason (None | str | Unset):
        payment (None | str | Unset):
        tx_hash (None | str | Unset):
    """

    attempt_number: int
    created_at: datetime.datetime
    id: str
    livemode: bool
    object_: str
    period_key: datetime.datetime
    status: AttemptStatus
    subscription: str
    failure_code: None | str | Unset = UNSET
    failure_reason: None | str | Unset = UNSET
    payment: None | str | Unset = UNSET
    tx_hash: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        attempt_number = self.attempt_number

        created_at = self.created_at.isoformat()

        id = self.id

        livemode = self.livemode

        object_ = self.object_

        period_key = self.period_key.isoformat()

        status = self.status.value

        subscription = self.subscription

        failure_code: None | str | Unset
        if isinstance(self.failure_code, Unset):
            failure_code = UNSET
        else:
            failure_code = self.failure_code

        failure_reason: None | str | Unset
        if isinstance(self.failure_reason, Unset):
            failure_reason = UNSET
        else:
            failure_reason = self.failure_reason

        payment: None | str | Unset
        if isinstance(self.payment, Unset):
            payment = UNSET
        else:
            payment = self.payment

        tx_hash: None | str | Unset
        if isinstance(self.tx_hash, Unset):
            tx_hash = UNSET
        else:
            tx_hash = self.tx_hash

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "attempt_number": attempt_number,
                "created_at": created_at,
                "id": id,
                "livemode": livemode,
                "object": object_,
                "period_key": period_key,
                "status": status,
                "subscription": subscription,
            }
        )
        if failure_code is not UNSET:
            field_dict["failure_code"] = failure_code
        if failure_reason is not UNSET:
            field_dict["failure_reason"] = failure_reason
        if payment is not UNSET:
            field_dict["payment"] = payment
        if tx_hash is not UNSET:
            field_dict["tx_hash"] = tx_hash

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        attempt_number = d.pop("attempt_number")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        id = d.pop("id")

        livemode = d.pop("livemode")

        object_ = d.pop("object")

        period_key = datetime.datetime.fromisoformat(d.pop("period_key"))

        status = AttemptStatus(d.pop("status"))

        subscription = d.pop("subscription")

        def _parse_failure_code(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        failure_code = _parse_failure_code(d.pop("failure_code", UNSET))

        def _parse_failure_reason(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        failure_reason = _parse_failure_reason(d.pop("failure_reason", UNSET))

        def _parse_payment(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        payment = _parse_payment(d.pop("payment", UNSET))

        def _parse_tx_hash(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        tx_hash = _parse_tx_hash(d.pop("tx_hash", UNSET))

        list_payment_attempt_resource_data_item = cls(
            attempt_number=attempt_number,
            created_at=created_at,
            id=id,
            livemode=livemode,
            object_=object_,
            period_key=period_key,
            status=status,
            subscription=subscription,
            failure_code=failure_code,
            failure_reason=failure_reason,
            payment=payment,
            tx_hash=tx_hash,
        )

        list_payment_attempt_resource_data_item.additional_properties = d
        return list_payment_attempt_resource_data_item

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
