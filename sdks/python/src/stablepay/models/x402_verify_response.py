from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="X402VerifyResponse")


@_attrs_define
class X402VerifyResponse:
    """A facilitator's `/verify` answer.

    Attributes:
        invalid_reason (None | str):
        is_valid (bool):
        payer (None | str):
    """

    invalid_reason: None | str
    is_valid: bool
    payer: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        invalid_reason: None | str
        invalid_reason = self.invalid_reason

        is_valid = self.is_valid

        payer: None | str
        payer = self.payer

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "invalidReason": invalid_reason,
                "isValid": is_valid,
                "payer": payer,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_invalid_reason(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        invalid_reason = _parse_invalid_reason(d.pop("invalidReason"))

        is_valid = d.pop("isValid")

        def _parse_payer(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        payer = _parse_payer(d.pop("payer"))

        x402_verify_response = cls(
            invalid_reason=invalid_reason,
            is_valid=is_valid,
            payer=payer,
        )

        x402_verify_response.additional_properties = d
        return x402_verify_response

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
