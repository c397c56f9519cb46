from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.x402_exact_payload import X402ExactPayload
    from ..models.x402_payment_payload_extensions_type_0 import (
        X402PaymentPayloadExtensionsType0,
    )
    from ..models.x402_payment_payload_resource_type_0 import (
        X402PaymentPayloadResourceType0,
    )
    from ..models.x402_payment_requirements import X402PaymentRequirements


T = TypeVar("T", bound="X402PaymentPayload")


@_attrs_define
class X402PaymentPayload:
    """The `PAYMENT-SIGNATURE` document (and a facilitator request's `paymentPayload`).

    Attributes:
        accepted (X402PaymentRequirements): One way to pay (`accepts[]`, and a payment's `accepted`).
        payload (X402ExactPayload):
        x_402_version (int):
        extensions (None | Unset | X402PaymentPayloadExtensionsType0):
        resource (None | Unset | X402PaymentPayloadResourceType0):
    """

    accepted: X402PaymentRequirements
    payload: X402ExactPayload
    x_402_version: int
    extensions: None | Unset | X402PaymentPayloadExtensionsType0 = UNSET
    resource: None | Unset | X402PaymentPayloadResourceType0 = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.x402_payment_payload_extensions_type_0 import (
            X402PaymentPayloadExtensionsType0,
        )
        from ..models.x402_payment_payload_resource_type_0 import (
            X402PaymentPayloadResourceType0,
        )

        accepted = self.accepted.to_dict()

        payload = self.payload.to_dict()

        x_402_version = self.x_402_version

        extensions: dict[str, Any] | None | Unset
        if isinstance(self.extensions, Unset):
            extensions = UNSET
        elif isinstance(self.extensions, X402PaymentPayloadExtensionsType0):
            extensions = self.extensions.to_dict()
        else:
            extensions = self.extensions

        resource: dict[str, Any] | None | Unset
        if isinstance(self.resource, Unset):
            resource = UNSET
        elif isinstance(self.resource, X402PaymentPayloadResourceType0):
            resource = self.resource.to_dict()
        else:
            resource = self.resource

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "accepted": accepted,
                "payload": payload,
                "x402Version": x_402_version,
            }
        )
        if extensions is not UNSET:
            field_dict["extensions"] = extensions
        if resource is not UNSET:
            field_dict["resource"] = resource

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.x402_exact_payload import X402ExactPayload
        from ..models.x402_payment_payload_extensions_type_0 import (
            X402PaymentPayloadExtensionsType0,
        )
        from ..models.x402_payment_payload_resource_type_0 import (
            X402PaymentPayloadResourceType0,
        )
        from ..models.x402_payment_requirements import X402PaymentRequirements

        d = dict(src_dict)
        accepted = X402PaymentRequirements.from_dict(d.pop("accepted"))

        payload = X402ExactPayload.from_dict(d.pop("payload"))

        x_402_version = d.pop("x402Version")

        def _parse_extensions(
            data: object,
        ) -> None | Unset | X402PaymentPayloadExtensionsType0:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                extensions_type_0 = X402PaymentPayloadExtensionsType0.from_dict(data)

                return extensions_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | X402PaymentPayloadExtensionsType0, data)

        extensions = _parse_extensions(d.pop("extensions", UNSET))

        def _parse_resource(
            data: object,
        ) -> None | Unset | X402PaymentPayloadResourceType0:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                resource_type_0 = X402PaymentPayloadResourceType0.from_dict(data)

                return resource_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | X402PaymentPayloadResourceType0, data)

        resource = _parse_resource(d.pop("resource", UNSET))

        x402_payment_payload = cls(
            accepted=accepted,
            payload=payload,
            x_402_version=x_402_version,
            extensions=extensions,
            resource=resource,
        )

        x402_payment_payload.additional_properties = d
        return x402_payment_payload

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
