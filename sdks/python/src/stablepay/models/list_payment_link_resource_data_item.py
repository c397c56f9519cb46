from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.chain_id import ChainId
from ..models.currency import Currency
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.custom_amount_resource import CustomAmountResource
    from ..models.list_payment_link_resource_data_item_metadata import (
        ListPaymentLinkResourceDataItemMetadata,
    )
    from ..models.price_resource import PriceResource


T = TypeVar("T", bound="ListPaymentLinkResourceDataItem")


@_attrs_define
class ListPaymentLinkResourceDataItem:
    """
    Attributes:
        active (bool): An inactive link's URL opens no session.
        chain_id (ChainId): 8453 (Base, live mode) or 84532 (Base Sepolia, test mode).
        completed_count (int): The link's sessions completed so far.
        created_at (datetime.datetime): An RFC 3339 time in UTC with milliseconds.
        currency (Currency): Settlement currencies (tokens, all with 6 decimals).
        id (str): A payment link id (`plink_…`).
        livemode (bool):
        metadata (ListPaymentLinkResourceDataItemMetadata):
        name (str): The product's name: the title of every session the link opens.
        object_ (str):
        recipient (str): An EVM address: 0x and 40 hex digits. Accepted in lowercase, in uppercase, or in mixed case
            when that is its EIP-55 checksum (format `evm-address`); always written with the checksum.
        url (str): The public URL to share: each visit opens a fresh checkout session (303 to its
            hosted page), one open session per visitor at a time. Example:
            https://pay.example/link/plink_0355RGziS6Gwe8zF5hRoCU.
        amount (None | str | Unset):
        completed_limit (int | None | Unset): At most this many completed payments: past it the link opens no session.
        custom_amount (CustomAmountResource | None | Unset):
        custom_price (CustomAmountResource | None | Unset):
        description (None | str | Unset):
        price (None | PriceResource | Unset):
        success_url (None | str | Unset):
    """

    active: bool
    chain_id: ChainId
    completed_count: int
    created_at: datetime.datetime
    currency: Currency
    id: str
    livemode: bool
    metadata: ListPaymentLinkResourceDataItemMetadata
    name: str
    object_: str
    recipient: str
    url: str
    amount: None | str | Unset = UNSET
    completed_limit: int | None | Unset = UNSET
    custom_amount: CustomAmountResource | None | Unset = UNSET
    custom_price: CustomAmountResource | None | Unset = UNSET
    description: None | str | Unset = UNSET
    price: None | PriceResource | Unset = UNSET
    success_url: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.custom_amount_resource import CustomAmountResource
        from ..models.price_resource import PriceResource

        active = self.active

        chain_id = self.chain_id.value

        completed_count = self.completed_count

        created_at = self.created_at.isoformat()

        currency = self.currency.value

        id = self.id

        livemode = self.livemode

        metadata = self.metadata.to_dict()

        name = self.name

        object_ = self.object_

        recipient = self.recipient

        url = self.url

        amount: None | str | Unset
        if isinstance(self.amount, Unset):
            amount = UNSET
        else:
            amount = self.amount

        completed_limit: int | None | Unset
        if isinstance(self.completed_limit, Unset):
            completed_limit = UNSET
        else:
            completed_limit = self.completed_limit

        custom_amount: dict[str, Any] | None | Unset
        if isinstance(self.custom_amount, Unset):
            custom_amount = UNSET
        elif isinstance(self.custom_amount, CustomAmountResource):
            custom_amount = self.custom_amount.to_dict()
        else:
            custom_amount = self.custom_amount

        custom_price: dict[str, Any] | None | Unset
        if isinstance(self.custom_price, Unset):
            custom_price = UNSET
        elif isinstance(self.custom_price, CustomAmountResource):
            custom_price = self.custom_price.to_dict()
        else:
            custom_price = self.custom_price

        description: None | str | Unset
        if isinstance(self.description, Unset):
            description = UNSET
        else:
            description = self.description

        price: dict[str, Any] | None | Unset
        if isinstance(self.price, Unset):
            price = UNSET
        elif isinstance(self.price, PriceResource):
            price = self.price.to_dict()
        else:
            price = self.price

        success_url: None | str | Unset
        if isinstance(self.success_url, Unset):
            success_url = UNSET
        else:
            success_url = self.success_url

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "active": active,
                "chain_id": chain_id,
                "completed_count": completed_count,
                "created_at": created_at,
                "currency": currency,
                "id": id,
                "livemode": livemode,
                "metadata": metadata,
                "name": name,
                "object": object_,
                "recipient": recipient,
                "url": url,
            }
        )
        if amount is not UNSET:
            field_dict["amount"] = amount
        if completed_limit is not UNSET:
            field_dict["completed_limit"] = completed_limit
        if custom_amount is not UNSET:
            field_dict["custom_amount"] = custom_amount
        if custom_price is not UNSET:
            field_dict["custom_price"] = custom_price
        if description is not UNSET:
            field_dict["description"] = description
        if price is not UNSET:
            field_dict["price"] = price
        if success_url is not UNSET:
            field_dict["success_url"] = success_url

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.custom_amount_resource import CustomAmountResource
        from ..models.list_payment_link_resource_data_item_metadata import (
            ListPaymentLinkResourceDataItemMetadata,
        )
        from ..models.price_resource import PriceResource

        d = dict(src_dict)
        active = d.pop("active")

        chain_id = ChainId(d.pop("chain_id"))

        completed_count = d.pop("completed_count")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        currency = Currency(d.pop("currency"))

        id = d.pop("id")

        livemode = d.pop("livemode")

        metadata = ListPaymentLinkResourceDataItemMetadata.from_dict(d.pop("metadata"))

        name = d.pop("name")

        object_ = d.pop("object")

        recipient = d.pop("recipient")

        url = d.pop("url")

        def _parse_amount(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        amount = _parse_amount(d.pop("amount", UNSET))

        def _parse_completed_limit(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        completed_limit = _parse_completed_limit(d.pop("completed_limit", UNSET))

        def _parse_custom_amount(data: object) -> CustomAmountResource | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                custom_amount_type_1 = CustomAmountResource.from_dict(data)

                return custom_amount_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CustomAmountResource | None | Unset, data)

        custom_amount = _parse_custom_amount(d.pop("custom_amount", UNSET))

        def _parse_custom_price(data: object) -> CustomAmountResource | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                custom_price_type_1 = CustomAmountResource.from_dict(data)

                return custom_price_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CustomAmountResource | None | Unset, data)

        custom_price = _parse_custom_price(d.pop("custom_price", UNSET))

        def _parse_description(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        description = _parse_description(d.pop("description", UNSET))

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

        def _parse_success_url(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        success_url = _parse_success_url(d.pop("success_url", UNSET))

        list_payment_link_resource_data_item = cls(
            active=active,
            chain_id=chain_id,
            completed_count=completed_count,
            created_at=created_at,
            currency=currency,
            id=id,
            livemode=livemode,
            metadata=metadata,
            name=name,
            object_=object_,
            recipient=recipient,
            url=url,
            amount=amount,
            completed_limit=completed_limit,
            custom_amount=custom_amount,
            custom_price=custom_price,
            description=description,
            price=price,
            success_url=success_url,
        )

        list_payment_link_resource_data_item.additional_properties = d
        return list_payment_link_resource_data_item

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
