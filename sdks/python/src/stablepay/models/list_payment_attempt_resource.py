from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.list_payment_attempt_resource_object import (
    ListPaymentAttemptResourceObject,
)

if TYPE_CHECKING:
    from ..models.list_payment_attempt_resource_data_item import (
        ListPaymentAttemptResourceDataItem,
    )


T = TypeVar("T", bound="ListPaymentAttemptResource")


@_attrs_define
class ListPaymentAttemptResource:
    """The list envelope.

    Attributes:
        data (list[ListPaymentAttemptResourceDataItem]):
        has_more (bool):
        object_ (ListPaymentAttemptResourceObject):
    """

    data: list[ListPaymentAttemptResourceDataItem]
    has_more: bool
    object_: ListPaymentAttemptResourceObject
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        data = []
        for data_item_data in self.data:
            data_item = data_item_data.to_dict()
            data.append(data_item)

        has_more = self.has_more

        object_ = self.object_.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "data": data,
                "has_more": has_more,
                "object": object_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.list_payment_attempt_resource_data_item import (
            ListPaymentAttemptResourceDataItem,
        )

        d = dict(src_dict)
        data = []
        _data = d.pop("data")
        for data_item_data in _data:
            data_item = ListPaymentAttemptResourceDataItem.from_dict(data_item_data)

            data.append(data_item)

        has_more = d.pop("has_more")

        object_ = ListPaymentAttemptResourceObject(d.pop("object"))

        list_payment_attempt_resource = cls(
            data=data,
            has_more=has_more,
            object_=object_,
        )

        list_payment_attempt_resource.additional_properties = d
        return list_payment_attempt_resource

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
