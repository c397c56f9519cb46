from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="X402SettleResponse")


@_attrs_define
class X402SettleResponse:
    """`PAYMENT-RESPONSE` and a facilitator's `/settle` answer. `transaction` and `network`
    are required by the SDKs even on failure; absent values are written as `null`, which
    the SDKs read as absent.

        Attributes:
            error_reason (None | str):
            network (str):
            payer (None | str):
            success (bool):
            transaction (str):
    """

    error_reason: None | str
    network: str
    payer: None | str
    success: bool
    transaction: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        error_reason: None | str
        error_reason = self.error_reason

        network = self.network

        payer: None | str
        payer = self.payer

        success = self.success

        transaction = self.transaction

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "errorReason": error_reason,
                "network": network,
                "payer": payer,
                "success": success,
                "transaction": transaction,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_error_reason(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        error_reason = _parse_error_reason(d.pop("errorReason"))

        network = d.pop("network")

        def _parse_payer(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        payer = _parse_payer(d.pop("payer"))

        success = d.pop("success")

        transaction = d.pop("transaction")

        x402_settle_response = cls(
            error_reason=error_reason,
            network=network,
            payer=payer,
            success=success,
            transaction=transaction,
        )

        x402_settle_response.additional_properties = d
        return x402_settle_response

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
