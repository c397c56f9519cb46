from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.chain_id import ChainId
from ..models.currency import Currency
from ..models.payment_link_resource_object import PaymentLinkResourceObject

if TYPE_CHECKING:
    from ..models.custom_amount_resource import CustomAmountResource
    from ..models.payment_link_resource_metadata import PaymentLinkResourceMetadata
    from ..models.price_resource import PriceResource


T = TypeVar("T", bound="PaymentLinkResource")


@_attrs_define
class PaymentLinkResource:
    """
    Attributes:
        active (bool): An inactive link's URL opens no session.
        amount (None | str):
        chain_id (ChainId): 8453 (Base, live mode) or 84532 (Base Sepolia, test mode).
        completed_count (int): The link's sessions completed so far.
        completed_limit (int | None): At most this many completed payments: past it the link opens no session.
        created_at (datetime.datetime): An RFC 3339 time in UTC with milliseconds.
        currency (Currency): Settlement currencies (tokens, all with 6 decimals).
        custom_amount (CustomAmountResource | None):
        custom_price (CustomAmountResource | None):
        description (None | str):
        id (str): A payment link id (`plink_…`).
        livemode (bool):
        metadata (PaymentLinkResourceMetadata):
        name (str): The product's name: the title of every session the link opens.
        object_ (PaymentLinkResourceObject):
        price (None | PriceResource):
        recipient (str): An EVM address: 0x and 40 hex digits. Accepted in lowercase, in uppercase, or in mixed case
            when that is its EIP-55 checksum (format `evm-address`); always written with the checksum.
        success_url (None | str):
        url (str): The public URL to share: each visit opens a fresh checkout session (303 to its
            hosted page), one open session per visitor at a time. Example:
            https://pay.example/link/plink_0355RGziS6Gwe8zF5hRoCU.
    """

    active: bool
    amount: None | str
    chain_id: ChainId
    completed_count: int
    completed_limit: int | None
    created_at: datetime.datetime
    currency: Currency
    custom_amount: CustomAmountResource | None
    custom_price: CustomAmountResource | None
    description: None | str
    id: str
    livemode: bool
    metadata: PaymentLinkResourceMetadata
    name: str
    object_: PaymentLinkResourceObject
    price: None | PriceResource
    recipient: str
    success_url: None | str
    url: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.custom_amount_resource import CustomAmountResource
        from ..models.price_resource import PriceResource

        active = self.active

        amount: None | str
        amount = self.amount

        chain_id = self.chain_id.value

        completed_count = self.completed_count

        completed_limit: int | None
        completed_limit = self.completed_limit

        created_at = self.created_at.isoformat()

        currency = self.currency.value

        custom_amount: dict[str, Any] | None
        if isinstance(self.custom_amount, CustomAmountResource):
            custom_amount = self.custom_amount.to_dict()
        else:
            custom_amount = self.custom_amount

        custom_price: dict[str, Any] | None
        if isinstance(self.custom_price, CustomAmountResource):
            custom_price = self.custom_price.to_dict()
        else:
            custom_price = self.custom_price

        description: None | str
        description = self.description

        id = self.id

        livemode = self.livemode

        metadata = self.metadata.to_dict()

        name = self.name

        object_ = self.object_.value

        price: dict[str, Any] | None
        if isinstance(self.price, PriceResource):
            price = self.price.to_dict()
        else:
            price = self.price

        recipient = self.recipient

        success_url: None | str
        success_url = self.success_url

        url = self.url

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "active": active,
                "amount": amount,
                "chain_id": chain_id,
                "completed_count": completed_count,
                "completed_limit": completed_limit,
                "created_at": created_at,
                "currency": currency,
                "custom_amount": custom_amount,
                "custom_price": custom_price,
                "description": description,
                "id": id,
                "livemode": livemode,
                "metadata": metadata,
                "name": name,
                "object": object_,
                "price": price,
                "recipient": recipient,
                "success_url": success_url,
                "url": url,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.custom_amount_resource import CustomAmountResource
        from ..models.payment_link_resource_metadata import PaymentLinkResourceMetadata
        from ..models.price_resource import PriceResource

        d = dict(src_dict)
        active = d.pop("active")

        def _parse_amount(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        amount = _parse_amount(d.pop("amount"))

        chain_id = ChainId(d.pop("chain_id"))

        completed_count = d.pop("completed_count")

        def _parse_completed_limit(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        completed_limit = _parse_completed_limit(d.pop("completed_limit"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        currency = Currency(d.pop("currency"))

        def _parse_custom_amount(data: object) -> CustomAmountResource | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                custom_amount_type_1 = CustomAmountResource.from_dict(data)

                return custom_amount_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CustomAmountResource | None, data)

        custom_amount = _parse_custom_amount(d.pop("custom_amount"))

        def _parse_custom_price(data: object) -> CustomAmountResource | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                custom_price_type_1 = CustomAmountResource.from_dict(data)

                return custom_price_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CustomAmountResource | None, data)

        custom_price = _parse_custom_price(d.pop("custom_price"))

        def _parse_description(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        description = _parse_description(d.pop("description"))

        id = d.pop("id")

        livemode = d.pop("livemode")

        metadata = PaymentLinkResourceMetadata.from_dict(d.pop("metadata"))

        name = d.pop("name")

        object_ = PaymentLinkResourceObject(d.pop("object"))

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

        recipient = d.pop("recipient")

        def _parse_success_url(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        success_url = _parse_success_url(d.pop("success_url"))

        url = d.pop("url")

        payment_link_resource = cls(
            active=active,
            amount=amount,
            chain_id=chain_id,
            completed_count=completed_count,
            completed_limit=completed_limit,
            created_at=created_at,
            currency=currency,
            custom_amount=custom_amount,
            custom_price=custom_price,
            description=description,
            id=id,
            livemode=livemode,
            metadata=metadata,
            name=name,
            object_=object_,
            price=price,
            recipient=recipient,
            success_url=success_url,
            url=url,
        )

        payment_link_resource.additional_properties = d
        return payment_link_resource

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
