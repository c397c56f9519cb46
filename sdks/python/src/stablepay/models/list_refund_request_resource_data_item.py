from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.address_confirmation import AddressConfirmation
from ..models.chain_id import ChainId
from ..models.currency import Currency
from ..models.refund_request_status import RefundRequestStatus
from ..types import UNSET, Unset

T = TypeVar("T", bound="ListRefundRequestResourceDataItem")


@_attrs_define
class ListRefundRequestResourceDataItem:
    """
    Attributes:
        amount (str): A token amount as a decimal string (at most 6 decimal places), never a JSON number.
        chain_id (ChainId): 8453 (Base, live mode) or 84532 (Base Sepolia, test mode).
        created_at (datetime.datetime): An RFC 3339 time in UTC with milliseconds.
        currency (Currency): Settlement currencies (tokens, all with 6 decimals).
        expires_at (datetime.datetime): An RFC 3339 time in UTC with milliseconds.
        id (str): A refund request id (`rr_…`).
        livemode (bool):
        object_ (str):
        payment (str): A payment id (`pay_…`).
        status (RefundRequestStatus): RefundRequestStatus
        url (str): The customer's page, where they give and confirm the address (public: the id is
            the capability). Send it to the customer. Example: https://pay.example/refund/rr_0355RGziS6Gwe8zF5hRoCU.
        address_confirmed_at (datetime.datetime | None | Unset):
        confirmation (AddressConfirmation | None | Unset):
        destination_address (None | str | Unset):
        reason (None | str | Unset):
        refund (None | str | Unset):
        refunded_at (datetime.datetime | None | Unset):
    """

    amount: str
    chain_id: ChainId
    created_at: datetime.datetime
    currency: Currency
    expires_at: datetime.datetime
    id: str
    livemode: bool
    object_: str
    payment: str
    status: RefundRequestStatus
    url: str
    address_confirmed_at: datetime.datetime | None | Unset = UNSET
    confirmation: AddressConfirmation | None | Unset = UNSET
    destination_address: None | str | Unset = UNSET
    reason: None | str | Unset = UNSET
    refund: None | str | Unset = UNSET
    refunded_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        amount = self.amount

        chain_id = self.chain_id.value

        created_at = self.created_at.isoformat()

        currency = self.currency.value

        expires_at = self.expires_at.isoformat()

        id = self.id

        livemode = self.livemode

        object_ = self.object_

        payment = self.payment

        status = self.status.value

        url = self.url

        address_confirmed_at: None | str | Unset
        if isinstance(self.address_confirmed_at, Unset):
            address_confirmed_at = UNSET
        elif isinstance(self.address_confirmed_at, datetime.datetime):
            address_confirmed_at = self.address_confirmed_at.isoformat()
        else:
            address_confirmed_at = self.address_confirmed_at

        confirmation: None | str | Unset
        if isinstance(self.confirmation, Unset):
            confirmation = UNSET
        elif isinstance(self.confirmation, AddressConfirmation):
            confirmation = self.confirmation.value
        else:
            confirmation = self.confirmation

        destination_address: None | str | Unset
        if isinstance(self.destination_address, Unset):
            destination_address = UNSET
        else:
            destination_address = self.destination_address

        reason: None | str | Unset
        if isinstance(self.reason, Unset):
            reason = UNSET
        else:
            reason = self.reason

        refund: None | str | Unset
        if isinstance(self.refund, Unset):
            refund = UNSET
        else:
            refund = self.refund

        refunded_at: None | str | Unset
        if isinstance(self.refunded_at, Unset):
            refunded_at = UNSET
        elif isinstance(self.refunded_at, datetime.datetime):
            refunded_at = self.refunded_at.isoformat()
        else:
            refunded_at = self.refunded_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "amount": amount,
                "chain_id": chain_id,
                "created_at": created_at,
                "currency": currency,
                "expires_at": expires_at,
                "id": id,
                "livemode": livemode,
                "object": object_,
                "payment": payment,
                "status": status,
                "url": url,
            }
        )
        if address_confirmed_at is not UNSET:
            field_dict["address_confirmed_at"] = address_confirmed_at
        if confirmation is not UNSET:
            field_dict["confirmation"] = confirmation
        if destination_address is not UNSET:
            field_dict["destination_address"] = destination_address
        if reason is not UNSET:
            field_dict["reason"] = reason
        if refund is not UNSET:
            field_dict["refund"] = refund
        if refunded_at is not UNSET:
            field_dict["refunded_at"] = refunded_at

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        amount = d.pop("amount")

        chain_id = ChainId(d.pop("chain_id"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        currency = Currency(d.pop("currency"))

        expires_at = datetime.datetime.fromisoformat(d.pop("expires_at"))

        id = d.pop("id")

        livemode = d.pop("livemode")

        object_ = d.pop("object")

        payment = d.pop("payment")

        status = RefundRequestStatus(d.pop("status"))

        url = d.pop("url")

        def _parse_address_confirmed_at(
            data: object,
        ) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                address_confirmed_at_type_1 = datetime.datetime.fromisoformat(data)

                return address_confirmed_at_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        address_confirmed_at = _parse_address_confirmed_at(
            d.pop("address_confirmed_at", UNSET)
        )

        def _parse_confirmation(data: object) -> AddressConfirmation | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                confirmation_type_1 = AddressConfirmation(data)

                return confirmation_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AddressConfirmation | None | Unset, data)

        confirmation = _parse_confirmation(d.pop("confirmation", UNSET))

        def _parse_destination_address(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        destination_address = _parse_destination_address(
            d.pop("destination_address", UNSET)
        )

        def _parse_reason(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        reason = _parse_reason(d.pop("reason", UNSET))

        def _parse_refund(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        refund = _parse_refund(d.pop("refund", UNSET))

        def _parse_refunded_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                refunded_at_type_1 = datetime.datetime.fromisoformat(data)

                return refunded_at_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        refunded_at = _parse_refunded_at(d.pop("refunded_at", UNSET))

        list_refund_request_resource_data_item = cls(
            amount=amount,
            chain_id=chain_id,
            created_at=created_at,
            currency=currency,
            expires_at=expires_at,
            id=id,
            livemode=livemode,
            object_=object_,
            payment=payment,
            status=status,
            url=url,
            address_confirmed_at=address_confirmed_at,
            confirmation=confirmation,
            destination_address=destination_address,
            reason=reason,
            refund=refund,
            refunded_at=refunded_at,
        )

        list_refund_request_resource_data_item.additional_properties = d
        return list_refund_request_resource_data_item

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
