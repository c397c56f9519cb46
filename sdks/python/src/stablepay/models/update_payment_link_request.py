from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="UpdatePaymentLinkRequest")


@_attrs_define
class UpdatePaymentLinkRequest:
    """
    Attributes:
        active (bool): `false` stops the link opening sessions (those it opened stay payable until they
            expire); `true` turns it back on. A link's price and terms never change: make a
            new link instead.
    """

    active: bool

    def to_dict(self) -> dict[str, Any]:
        active = self.active

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "active": active,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        active = d.pop("active")

        update_payment_link_request = cls(
            active=active,
        )

        return update_payment_link_request
