from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.audit_action import AuditAction
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.audit_actor_resource import AuditActorResource
    from ..models.list_audit_event_resource_data_item_after_type_0 import (
        ListAuditEventResourceDataItemAfterType0,
    )
    from ..models.list_audit_event_resource_data_item_before_type_0 import (
        ListAuditEventResourceDataItemBeforeType0,
    )


T = TypeVar("T", bound="ListAuditEventResourceDataItem")


@_attrs_define
class ListAuditEventResourceDataItem:
    """
    Attributes:
        action (AuditAction): AuditAction
        actor (AuditActorResource): Who made the change.
        created_at (datetime.datetime): An RFC 3339 time in UTC with milliseconds.
        id (str): A audit event id (`aud_…`).
        object_ (str):
        target (str): The id of what changed. Example: we_0355RGziS6Gwe8zF5hRoCU.
        after (ListAuditEventResourceDataItemAfterType0 | None | Unset): The changed fields after the change (null when
            the thing is gone).
        before (ListAuditEventResourceDataItemBeforeType0 | None | Unset): The changed fields before the change (null
            when the thing is new); never a secret.
        client_address (None | str | Unset): The client's address as the service saw it (behind trusted proxies, the
            forwarded
            one); null for the operator's command line. Example: 203.0.113.7.
        livemode (bool | None | Unset): The mode the change belongs to; null for the account as a whole (users, TOTP,
            settings), which both modes list.
    """

    action: AuditAction
    actor: AuditActorResource
    created_at: datetime.datetime
    id: str
    object_: str
    target: str
    after: ListAuditEventResourceDataItemAfterType0 | None | Unset = UNSET
    before: ListAuditEventResourceDataItemBeforeType0 | None | Unset = UNSET
    client_address: None | str | Unset = UNSET
    livemode: bool | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.list_audit_event_resource_data_item_after_type_0 import (
            ListAuditEventResourceDataItemAfterType0,
        )
        from ..models.list_audit_event_resource_data_item_before_type_0 import (
            ListAuditEventResourceDataItemBeforeType0,
        )

        action = self.action.value

        actor = self.actor.to_dict()

        created_at = self.created_at.isoformat()

        id = self.id

        object_ = self.object_

        target = self.target

        after: dict[str, Any] | None | Unset
        if isinstance(self.after, Unset):
            after = UNSET
        elif isinstance(self.after, ListAuditEventResourceDataItemAfterType0):
            after = self.after.to_dict()
        else:
            after = self.after

        before: dict[str, Any] | None | Unset
        if isinstance(self.before, Unset):
            before = UNSET
        elif isinstance(self.before, ListAuditEventResourceDataItemBeforeType0):
            before = self.before.to_dict()
        else:
            before = self.before

        client_address: None | str | Unset
        if isinstance(self.client_address, Unset):
            client_address = UNSET
        else:
            client_address = self.client_address

        livemode: bool | None | Unset
        if isinstance(self.livemode, Unset):
            livemode = UNSET
        else:
            livemode = self.livemode

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "action": action,
                "actor": actor,
                "created_at": created_at,
                "id": id,
                "object": object_,
                "target": target,
            }
        )
        if after is not UNSET:
            field_dict["after"] = after
        if before is not UNSET:
            field_dict["before"] = before
        if client_address is not UNSET:
            field_dict["client_address"] = client_address
        if livemode is not UNSET:
            field_dict["livemode"] = livemode

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.audit_actor_resource import AuditActorResource
        from ..models.list_audit_event_resource_data_item_after_type_0 import (
            ListAuditEventResourceDataItemAfterType0,
        )
        from ..models.list_audit_event_resource_data_item_before_type_0 import (
            ListAuditEventResourceDataItemBeforeType0,
        )

        d = dict(src_dict)
        action = AuditAction(d.pop("action"))

        actor = AuditActorResource.from_dict(d.pop("actor"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        id = d.pop("id")

        object_ = d.pop("object")

        target = d.pop("target")

        def _parse_after(
            data: object,
        ) -> ListAuditEventResourceDataItemAfterType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                after_type_0 = ListAuditEventResourceDataItemAfterType0.from_dict(data)

                return after_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ListAuditEventResourceDataItemAfterType0 | None | Unset, data)

        after = _parse_after(d.pop("after", UNSET))

        def _parse_before(
            data: object,
        ) -> ListAuditEventResourceDataItemBeforeType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                before_type_0 = ListAuditEventResourceDataItemBeforeType0.from_dict(
                    data
                )

                return before_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ListAuditEventResourceDataItemBeforeType0 | None | Unset, data)

        before = _parse_before(d.pop("before", UNSET))

        def _parse_client_address(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        client_address = _parse_client_address(d.pop("client_address", UNSET))

        def _parse_livemode(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        livemode = _parse_livemode(d.pop("livemode", UNSET))

        list_audit_event_resource_data_item = cls(
            action=action,
            actor=actor,
            created_at=created_at,
            id=id,
            object_=object_,
            target=target,
            after=after,
            before=before,
            client_address=client_address,
            livemode=livemode,
        )

        list_audit_event_resource_data_item.additional_properties = d
        return list_audit_event_resource_data_item

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
