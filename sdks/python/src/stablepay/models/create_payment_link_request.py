from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.currency import Currency
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.create_payment_link_request_metadata_type_0 import (
        CreatePaymentLinkRequestMetadataType0,
    )
    from ..models.custom_amount_input import CustomAmountInput
    from ..models.custom_price_input import CustomPriceInput
    from ..models.price_input import PriceInput


T = TypeVar("T", bound="CreatePaymentLinkRequest")


@_attrs_define
class CreatePaymentLinkRequest:
    """The POST body as sent; loosely typed where a field has several shapes. The `schema`
    attributes say what `parse` accepts.

        Attributes:
            name (str): Shown to the buyer: not only white space, no control characters.
            amount (None | str | Unset): A decimal string above 0 and at most 1000000000, at most 6 decimal places; never a
                JSON number.
            completed_limit (int | None | Unset): At most this many completed payments; past it the link opens no session.
            currency (Currency | None | Unset):
            custom_amount (CustomAmountInput | None | Unset):
            custom_price (CustomPriceInput | None | Unset):
            description (None | str | Unset): No control characters.
            metadata (CreatePaymentLinkRequestMetadataType0 | None | Unset): Copied onto every session the link opens.
            price (None | PriceInput | Unset):
            recipient (None | str | Unset):
            success_url (None | str | Unset): An absolute http(s) URL, at most 2000 characters.
    """

    name: str
    amount: None | str | Unset = UNSET
    completed_limit: int | None | Unset = UNSET
    currency: Currency | None | Unset = UNSET
    custom_amount: CustomAmountInput | None | Unset = UNSET
    custom_price: CustomPriceInput | None | Unset = UNSET
    description: None | str | Unset = UNSET
    metadata: CreatePaymentLinkRequestMetadataType0 | None | Unset = UNSET
    price: None | PriceInput | Unset = UNSET
    recipient: None | str | Unset = UNSET
    success_url: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.create_payment_link_request_metadata_type_0 import (
            CreatePaymentLinkRequestMetadataType0,
        )
        from ..models.custom_amount_input import CustomAmountInput
        from ..models.custom_price_input import CustomPriceInput
        from ..models.price_input import PriceInput

        name = self.name

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

        currency: None | str | Unset
        if isinstance(self.currency, Unset):
            currency = UNSET
        elif isinstance(self.currency, Currency):
            currency = self.currency.value
        else:
            currency = self.currency

        custom_amount: dict[str, Any] | None | Unset
        if isinstance(self.custom_amount, Unset):
            custom_amount = UNSET
        elif isinstance(self.custom_amount, CustomAmountInput):
            custom_amount = self.custom_amount.to_dict()
        else:
            custom_amount = self.custom_amount

        custom_price: dict[str, Any] | None | Unset
        if isinstance(self.custom_price, Unset):
            custom_price = UNSET
        elif isinstance(self.custom_price, CustomPriceInput):
            custom_price = self.custom_price.to_dict()
        else:
            custom_price = self.custom_price

        description: None | str | Unset
        if isinstance(self.description, Unset):
            description = UNSET
        else:
            description = self.description

        metadata: dict[str, Any] | None | Unset
        if isinstance(self.metadata, Unset):
            metadata = UNSET
        elif isinstance(self.metadata, CreatePaymentLinkRequestMetadataType0):
            metadata = self.metadata.to_dict()
        else:
            metadata = self.metadata

        price: dict[str, Any] | None | Unset
        if isinstance(self.price, Unset):
            price = UNSET
        elif isinstance(self.price, PriceInput):
            price = self.price.to_dict()
        else:
            price = self.price

        recipient: None | str | Unset
        if isinstance(self.recipient, Unset):
            recipient = UNSET
        else:
            recipient = self.recipient

        success_url: None | str | Unset
        if isinstance(self.success_url, Unset):
            success_url = UNSET
        else:
            success_url = self.success_url

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "name": name,
            }
        )
        if amount is not UNSET:
            field_dict["amount"] = amount
        if completed_limit is not UNSET:
            field_dict["completed_limit"] = completed_limit
        if currency is not UNSET:
            field_dict["currency"] = currency
        if custom_amount is not UNSET:
            field_dict["custom_amount"] = custom_amount
        if custom_price is not UNSET:
            field_dict["custom_price"] = custom_price
        if description is not UNSET:
            field_dict["description"] = description
        if metadata is not UNSET:
            field_dict["metadata"] = metadata
        if price is not UNSET:
            field_dict["price"] = price
        if recipient is not UNSET:
            field_dict["recipient"] = recipient
        if success_url is not UNSET:
            field_dict["success_url"] = success_url

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.create_payment_link_request_metadata_type_0 import (
            CreatePaymentLinkRequestMetadataType0,
        )
        from ..models.custom_amount_input import CustomAmountInput
        from ..models.custom_price_input import CustomPriceInput
        from ..models.price_input import PriceInput

        d = dict(src_dict)
        name = d.pop("name")

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

        def _parse_currency(data: object) -> Currency | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                currency_type_1 = Currency(data)

                return currency_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Currency | None | Unset, data)

        currency = _parse_currency(d.pop("currency", UNSET))

        def _parse_custom_amount(data: object) -> CustomAmountInput | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                custom_amount_type_1 = CustomAmountInput.from_dict(data)

                return custom_amount_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CustomAmountInput | None | Unset, data)

        custom_amount = _parse_custom_amount(d.pop("custom_amount", UNSET))

        def _parse_custom_price(data: object) -> CustomPriceInput | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                custom_price_type_1 = CustomPriceInput.from_dict(data)

                return custom_price_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CustomPriceInput | None | Unset, data)

        custom_price = _parse_custom_price(d.pop("custom_price", UNSET))

        def _parse_description(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        description = _parse_description(d.pop("description", UNSET))

        def _parse_metadata(
            data: object,
        ) -> CreatePaymentLinkRequestMetadataType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                metadata_type_0 = CreatePaymentLinkRequestMetadataType0.from_dict(data)

                return metadata_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CreatePaymentLinkRequestMetadataType0 | None | Unset, data)

        metadata = _parse_metadata(d.pop("metadata", UNSET))

        def _parse_price(data: object) -> None | PriceInput | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                price_type_1 = PriceInput.from_dict(data)

                return price_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PriceInput | Unset, data)

        price = _parse_price(d.pop("price", UNSET))

        def _parse_recipient(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        recipient = _parse_recipient(d.pop("recipient", UNSET))

        def _parse_success_url(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        success_url = _parse_success_url(d.pop("success_url", UNSET))

        create_payment_link_request = cls(
            name=name,
            amount=amount,
            completed_limit=completed_limit,
            currency=currency,
            custom_amount=custom_amount,
            custom_price=custom_price,
            description=description,
            metadata=metadata,
            price=price,
            recipient=recipient,
            success_url=success_url,
        )

        return create_payment_link_request
