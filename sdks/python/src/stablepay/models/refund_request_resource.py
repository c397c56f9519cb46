from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.address_confirmation import AddressConfirmation
from ..models.chain_id import ChainId
from ..models.currency import Currency
from ..models.refund_request_resource_object import RefundRequestResourceObject
from ..models.refund_request_status import RefundRequestStatus

T = TypeVar("T", bound="RefundRequestResource")


@_attrs_define
class RefundRequestResource:
    """
    Attributes:
        address_confirmed_at (datetime.datetime | None):
        amount (str): A token amount as a decimal string (at most 6 decimal places), never a JSON number.
        chain_id (ChainId): 8453 (Base, live mode) or 84532 (Base Sepolia, test mode).
        confirmation (AddressConfirmation | None):
        created_at (datetime.datetime): An RFC 3339 time in UTC with milliseconds.
        currency (Currency): Settlement currencies (tokens, all with 6 decimals).
        destination_address (None | str):
        expires_at (datetime.datetime): An RFC 3339 time in UTC with milliseconds.
        id (str): A refund request id (`rr_…`).
        livemode (bool):
        object_ (RefundRequestResourceObject):
        payment (str): A payment id (`pay_…`).
        reason (None | str):
        refund (None | str):
        refunded_at (datetime.datetime | None):
        status (RefundRequestStatus): RefundRequestStatus
        url (str): The customer's page, where they give and confirm the address (public: the id is
            the capability). Send it to the customer. Example: https://pay.example/refund/rr_0355RGziS6Gwe8zF5hRoCU.
    """

    address_confirmed_at: datetime.datetime | None
    amount: str
    chain_id: ChainId
    confirmation: AddressConfirmation | None
    created_at: datetime.datetime
    currency: Currency
    destination_address: None | str
    expires_at: datetime.datetime
    id: str
    livemode: bool
    object_: RefundRequestResourceObject
    payment: str
    reason: None | str
    refund: None | str
    refunded_at: datetime.datetime | None
    status: RefundRequestStatus
    url: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        address_confirmed_at: None | str
        if isinstance(self.address_confirmed_at, datetime.datetime):
            address_confirmed_at = self.address_confirmed_at.isoformat()
        else:
            address_confirmed_at = self.address_confirmed_at

        amount = self.amount

        chain_id = self.chain_id.value

        confirmation: None | str
        if isinstance(self.confirmation, AddressConfirmation):
            confirmation = self.confirmation.value
        else:
            confirmation = self.confirmation

        created_at = self.created_at.isoformat()

        currency = self.currency.value

        destination_address: None | str
        destination_address = self.destination_address

        expires_at = self.expires_at.isoformat()

        id = self.id

        livemode = self.livemode

        object_ = self.object_.value

        payment = self.payment

        reason: None | str
        reason = self.reason

        refund: None | str
        refund = self.refund

        refunded_at: None | str
        if isinstance(self.refunded_at, datetime.datetime):
            refunded_at = self.refunded_at.isoformat()
        else:
            refunded_at = self.refunded_at

        status = self.status.value

        url = self.url

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "address_confirmed_at": address_confirmed_at,
                "amount": amount,
                "chain_id": chain_id,
                "confirmation": confirmation,
                "created_at": created_at,
                "currency": currency,
                "destination_address": destination_address,
                "expires_at": expires_at,
                "id": id,
                "livemode": livemode,
                "object": object_,
                "payment": payment,
                "reason": reason,
                "refund": refund,
                "refunded_at": refunded_at,
                "status": status,
                "url": url,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_address_confirmed_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                address_confirmed_at_type_1 = datetime.datetime.fromisoformat(data)

                return address_confirmed_at_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        address_confirmed_at = _parse_address_confirmed_at(
            d.pop("address_confirmed_at")
        )

        amount = d.pop("amount")

        chain_id = ChainId(d.pop("chain_id"))

        def _parse_confirmation(data: object) -> AddressConfirmation | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                confirmation_type_1 = AddressConfirmation(data)

                return confirmation_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AddressConfirmation | None, data)

        confirmation = _parse_confirmation(d.pop("confirmation"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        currency = Currency(d.pop("currency"))

        def _parse_destination_address(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        destination_address = _parse_destination_address(d.pop("destination_address"))

        expires_at = datetime.datetime.fromisoformat(d.pop("expires_at"))

        id = d.pop("id")

        livemode = d.pop("livemode")

        object_ = RefundRequestResourceObject(d.pop("object"))

        payment = d.pop("payment")

        def _parse_reason(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        reason = _parse_reason(d.pop("reason"))

        def _parse_refund(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        refund = _parse_refund(d.pop("refund"))

        def _parse_refunded_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                refunded_at_type_1 = datetime.datetime.fromisoformat(data)

                return refunded_at_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        refunded_at = _parse_refunded_at(d.pop("refunded_at"))

        status = RefundRequestStatus(d.pop("status"))

        url = d.pop("url")

        refund_request_resource = cls(
            address_confirmed_at=address_confirmed_at,
            amount=amount,
            chain_id=chain_id,
            confirmation=confirmation,
            created_at=created_at,
            currency=currency,
            destination_address=destination_address,
            expires_at=expires_at,
            id=id,
            livemode=livemode,
            object_=object_,
            payment=payment,
            reason=reason,
            refund=refund,
            refunded_at=refunded_at,
            status=status,
            url=url,
        )

        refund_request_resource.additional_properties = d
        return refund_request_resource

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
