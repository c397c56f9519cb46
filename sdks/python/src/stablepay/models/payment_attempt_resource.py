from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.attempt_status import AttemptStatus
from ..models.payment_attempt_resource_object import PaymentAttemptResourceObject

T = TypeVar("T", bound="PaymentAttemptResource")


@_attrs_define
class PaymentAttemptResource:
    """
    Attributes:
        attempt_number (int):
        created_at (datetime.datetime): An RFC 3339 time in UTC with milliseconds.
        failure_code (None | str):
        failure_reason (None | str):
        id (str): A payment attempt id (`att_…`).
        livemode (bool):
        object_ (PaymentAttemptResourceObject):
        payment (None | str):
        period_key (datetime.datetime): An RFC 3339 time in UTC with milliseconds.
        status (AttemptStatus): AttemptStatus
        subscription (str): A subscription id (`sub_…`).
        tx_hash (None | str):
    """

    attempt_number: int
    created_at: datetime.datetime
    failure_code: None | str
    failure_reason: None | str
    id: str
    livemode: bool
    object_: PaymentAttemptResourceObject
    payment: None | str
    period_key: datetime.datetime
    status: AttemptStatus
    subscription: str
    tx_hash: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        attempt_number = self.attempt_number

        created_at = self.created_at.isoformat()

        failure_code: None | str
        failure_code = self.failure_code

        failure_reason: None | str
        failure_reason = self.failure_reason

        id = self.id

        livemode = self.livemode

        object_ = self.object_.value

        payment: None | str
        payment = self.payment

        period_key = self.period_key.isoformat()

        status = self.status.value

        subscription = self.subscription

        tx_hash: None | str
        tx_hash = self.tx_hash

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "attempt_number": attempt_number,
                "created_at": created_at,
                "failure_code": failure_code,
                "failure_reason": failure_reason,
                "id": id,
                "livemode": livemode,
                "object": object_,
                "payment": payment,
                "period_key": period_key,
                "status": status,
                "subscription": subscription,
                "tx_hash": tx_hash,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        attempt_number = d.pop("attempt_number")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        def _parse_failure_code(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        failure_code = _parse_failure_code(d.pop("failure_code"))

        def _parse_failure_reason(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        failure_reason = _parse_failure_reason(d.pop("failure_reason"))

        id = d.pop("id")

        livemode = d.pop("livemode")

        object_ = PaymentAttemptResourceObject(d.pop("object"))

        def _parse_payment(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        payment = _parse_payment(d.pop("payment"))

        period_key = datetime.datetime.fromisoformat(d.pop("period_key"))

        status = AttemptStatus(d.pop("status"))

        subscription = d.pop("subscription")

        def _parse_tx_hash(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        tx_hash = _parse_tx_hash(d.pop("tx_hash"))

        payment_attempt_resource = cls(
            attempt_number=attempt_number,
            created_at=created_at,
            failure_code=failure_code,
            failure_reason=failure_reason,
            id=id,
            livemode=livemode,
            object_=object_,
            payment=payment,
            period_key=period_key,
            status=status,
            subscription=subscription,
            tx_hash=tx_hash,
        )

        payment_attempt_resource.additional_properties = d
        return payment_attempt_resource

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
