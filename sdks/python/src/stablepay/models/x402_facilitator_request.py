from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.x402_payment_payload import X402PaymentPayload
    from ..models.x402_payment_requirements import X402PaymentRequirements


T = TypeVar("T", bound="X402FacilitatorRequest")


@_attrs_define
class X402FacilitatorRequest:
    """A facilitator's `/verify` or `/settle` request.

    Attributes:
        payment_payload (X402PaymentPayload): The `PAYMENT-SIGNATURE` document (and a facilitator request's
            `paymentPayload`).
        payment_requirements (X402PaymentRequirements): One way to pay (`accepts[]`, and a payment's `accepted`).
        x_402_version (int): 2 (x402 protocol v2).
    """

    payment_payload: X402PaymentPayload
    payment_requirements: X402PaymentRequirements
    x_402_version: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        payment_payload = self.payment_payload.to_dict()

        payment_requirements = self.payment_requirements.to_dict()

        x_402_version = self.x_402_version

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "paymentPayload": payment_payload,
                "paymentRequirements": payment_requirements,
                "x402Version": x_402_version,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.x402_payment_payload import X402PaymentPayload
        from ..models.x402_payment_requirements import X402PaymentRequirements

        d = dict(src_dict)
        payment_payload = X402PaymentPayload.from_dict(d.pop("paymentPayload"))

        payment_requirements = X402PaymentRequirements.from_dict(
            d.pop("paymentRequirements")
        )

        x_402_version = d.pop("x402Version")

        x402_facilitator_request = cls(
            payment_payload=payment_payload,
            payment_requirements=payment_requirements,
            x_402_version=x_402_version,
        )

        x402_facilitator_request.additional_properties = d
        return x402_facilitator_request

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
