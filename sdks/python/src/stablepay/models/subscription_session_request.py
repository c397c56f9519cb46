from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.currency import Currency
from ..models.subscription_session_request_chain_type_0 import (
    SubscriptionSessionRequestChainType0,
)
from ..models.subscription_session_request_chain_type_1 import (
    SubscriptionSessionRequestChainType1,
)
from ..models.subscription_session_request_mode import SubscriptionSessionRequestMode
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.price_input import PriceInput
    from ..models.subscription_session_request_metadata_type_0 import (
        SubscriptionSessionRequestMetadataType0,
    )


T = TypeVar("T", bound="SubscriptionSessionRequest")


@_attrs_define
class SubscriptionSessionRequest:
    """
    Attributes:
        chain_plan_id (int | str):
        mode (SubscriptionSessionRequestMode):
        title (str): Shown to the buyer: not only white space, no control characters.
        amount (None | str | Unset): If given, must equal the plan's amount.
        cancel_url (None | str | Unset): An absolute http(s) URL, at most 2000 characters.
        chain (None | SubscriptionSessionRequestChainType0 | SubscriptionSessionRequestChainType1 | Unset):
        currency (Currency | None | Unset):
        customer_reference (None | str | Unset): Your own id for the buyer: not only white space, no control characters.
        description (None | str | Unset): No control characters.
        expires_in_seconds (int | None | Unset): Default 86400.
        interval_seconds (int | None | Unset): Subscription mode: if given, must equal the plan's interval.
        metadata (None | SubscriptionSessionRequestMetadataType0 | Unset): Free key-value data, echoed back verbatim.
        price (None | PriceInput | Unset):
        recipient (None | str | Unset):
        success_url (None | str | Unset): An absolute http(s) URL, at most 2000 characters.
        underpayment_tolerance_bps (int | None | Unset): Payment mode: how far short of `amount`, in basis points of it,
            a deposit may fall
            and still complete the session (D32); default the merchant's setting (dashboard →
            Settings), 0 unless set. The shortfall is `underpaid_amount`.
    """

    chain_plan_id: int | str
    mode: SubscriptionSessionRequestMode
    title: str
    amount: None | str | Unset = UNSET
    cancel_url: None | str | Unset = UNSET
    chain: (
        None
        | SubscriptionSessionRequestChainType0
        | SubscriptionSessionRequestChainType1
        | Unset
    ) = UNSET
    currency: Currency | None | Unset = UNSET
    customer_reference: None | str | Unset = UNSET
    description: None | str | Unset = UNSET
    expires_in_seconds: int | None | Unset = UNSET
    interval_seconds: int | None | Unset = UNSET
    metadata: None | SubscriptionSessionRequestMetadataType0 | Unset = UNSET
    price: None | PriceInput | Unset = UNSET
    recipient: None | str | Unset = UNSET
    success_url: None | str | Unset = UNSET
    underpayment_tolerance_bps: int | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.price_input import PriceInput
        from ..models.subscription_session_request_metadata_type_0 import (
            SubscriptionSessionRequestMetadataType0,
        )

        chain_plan_id: int | str
        chain_plan_id = self.chain_plan_id

        mode = self.mode.value

        title = self.title

        amount: None | str | Unset
        if isinstance(self.amount, Unset):
            amount = UNSET
        else:
            amount = self.amount

        cancel_url: None | str | Unset
        if isinstance(self.cancel_url, Unset):
            cancel_url = UNSET
        else:
            cancel_url = self.cancel_url

        chain: int | None | str | Unset
        if isinstance(self.chain, Unset):
            chain = UNSET
        elif isinstance(self.chain, SubscriptionSessionRequestChainType0) or isinstance(
            self.chain, SubscriptionSessionRequestChainType1
        ):
            chain = self.chain.value
        else:
            chain = self.chain

        currency: None | str | Unset
        if isinstance(self.currency, Unset):
            currency = UNSET
        elif isinstance(self.currency, Currency):
            currency = self.currency.value
        else:
            currency = self.currency

        customer_reference: None | str | Unset
        if isinstance(self.customer_reference, Unset):
            customer_reference = UNSET
        else:
            customer_reference = self.customer_reference

        description: None | str | Unset
        if isinstance(self.description, Unset):
            description = UNSET
        else:
            description = self.description

        expires_in_seconds: int | None | Unset
        if isinstance(self.expires_in_seconds, Unset):
            expires_in_seconds = UNSET
        else:
            expires_in_seconds = self.expires_in_seconds

        interval_seconds: int | None | Unset
        if isinstance(self.interval_seconds, Unset):
            interval_seconds = UNSET
        else:
            interval_seconds = self.interval_seconds

        metadata: dict[str, Any] | None | Unset
        if isinstance(self.metadata, Unset):
            metadata = UNSET
        elif isinstance(self.metadata, SubscriptionSessionRequestMetadataType0):
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

        underpayment_tolerance_bps: int | None | Unset
        if isinstance(self.underpayment_tolerance_bps, Unset):
            underpayment_tolerance_bps = UNSET
        else:
            underpayment_tolerance_bps = self.underpayment_tolerance_bps

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "chain_plan_id": chain_plan_id,
                "mode": mode,
                "title": title,
            }
        )
        if amount is not UNSET:
            field_dict["amount"] = amount
        if cancel_url is not UNSET:
            field_dict["cancel_url"] = cancel_url
        if chain is not UNSET:
            field_dict["chain"] = chain
        if currency is not UNSET:
            field_dict["currency"] = currency
        if customer_reference is not UNSET:
            field_dict["customer_reference"] = customer_reference
        if description is not UNSET:
            field_dict["description"] = description
        if expires_in_seconds is not UNSET:
            field_dict["expires_in_seconds"] = expires_in_seconds
        if interval_seconds is not UNSET:
            field_dict["interval_seconds"] = interval_seconds
        if metadata is not UNSET:
            field_dict["metadata"] = metadata
        if price is not UNSET:
            field_dict["price"] = price
        if recipient is not UNSET:
            field_dict["recipient"] = recipient
        if success_url is not UNSET:
            field_dict["success_url"] = success_url
        if underpayment_tolerance_bps is not UNSET:
            field_dict["underpayment_tolerance_bps"] = underpayment_tolerance_bps

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.price_input import PriceInput
        from ..models.subscription_session_request_metadata_type_0 import (
            SubscriptionSessionRequestMetadataType0,
        )

        d = dict(src_dict)

        def _parse_chain_plan_id(data: object) -> int | str:
            return cast(int | str, data)

        chain_plan_id = _parse_chain_plan_id(d.pop("chain_plan_id"))

        mode = SubscriptionSessionRequestMode(d.pop("mode"))

        title = d.pop("title")

        def _parse_amount(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        amount = _parse_amount(d.pop("amount", UNSET))

        def _parse_cancel_url(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        cancel_url = _parse_cancel_url(d.pop("cancel_url", UNSET))

        def _parse_chain(
            data: object,
        ) -> (
            None
            | SubscriptionSessionRequestChainType0
            | SubscriptionSessionRequestChainType1
            | Unset
        ):
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, int):
                    raise TypeError()
                chain_type_0 = SubscriptionSessionRequestChainType0(data)

                return chain_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, str):
                    raise TypeError()
                chain_type_1 = SubscriptionSessionRequestChainType1(data)

                return chain_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(
                None
                | SubscriptionSessionRequestChainType0
                | SubscriptionSessionRequestChainType1
                | Unset,
                data,
            )

        chain = _parse_chain(d.pop("chain", UNSET))

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

        def _parse_customer_reference(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        customer_reference = _parse_customer_reference(
            d.pop("customer_reference", UNSET)
        )

        def _parse_description(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        description = _parse_description(d.pop("description", UNSET))

        def _parse_expires_in_seconds(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        expires_in_seconds = _parse_expires_in_seconds(
            d.pop("expires_in_seconds", UNSET)
        )

        def _parse_interval_seconds(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        interval_seconds = _parse_interval_seconds(d.pop("interval_seconds", UNSET))

        def _parse_metadata(
            data: object,
        ) -> None | SubscriptionSessionRequestMetadataType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                metadata_type_0 = SubscriptionSessionRequestMetadataType0.from_dict(
                    data
                )

                return metadata_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | SubscriptionSessionRequestMetadataType0 | Unset, data)

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

        def _parse_underpayment_tolerance_bps(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        underpayment_tolerance_bps = _parse_underpayment_tolerance_bps(
            d.pop("underpayment_tolerance_bps", UNSET)
        )

        subscription_session_request = cls(
            chain_plan_id=chain_plan_id,
            mode=mode,
            title=title,
            amount=amount,
            cancel_url=cancel_url,
            chain=chain,
            currency=currency,
            customer_reference=customer_reference,
            description=description,
            expires_in_seconds=expires_in_seconds,
            interval_seconds=interval_seconds,
            metadata=metadata,
            price=price,
            recipient=recipient,
            success_url=success_url,
            underpayment_tolerance_bps=underpayment_tolerance_bps,
        )

        return subscription_session_request
