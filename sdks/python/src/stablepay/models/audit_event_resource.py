from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.audit_action import AuditAction
from ..models.audit_event_resource_object import AuditEventResourceObject

if TYPE_CHECKING:
    from ..models.audit_actor_resource import AuditActorResource
    from ..models.audit_event_resource_after_type_0 import AuditEventResourceAfterType0
    from ..models.audit_event_resource_before_type_0 import (
        AuditEventResourceBeforeType0,
    )


T = TypeVar("T", bound="AuditEventResource")


@_attrs_define
class AuditEventResource:
    """
    Attributes:
        action (AuditAction): AuditAction
        actor (AuditActorResource): Who made the change.
        after (AuditEventResourceAfterType0 | None): The changed fields after the change (null when the thing is gone).
        before (AuditEventResourceBeforeType0 | None): The changed fields before the change (null when the thing is
            new); never a secret.
        client_address (None | str): The client's address as the service saw it (behind trusted proxies, the forwarded
            one); null for the operator's command line. Example: 203.0.113.7.
        created_at (datetime.datetime): An RFC 3339 time in UTC with milliseconds.
        id (str): A audit event id (`aud_…`).
        livemode (bool | None): The mode the change belongs to; null for the account as a whole (users, TOTP,
            settings), which both modes list.
        object_ (AuditEventResourceObject):
        target (str): The id of what changed. Example: we_0355RGziS6Gwe8zF5hRoCU.
    """

    action: AuditAction
    actor: AuditActorResource
    after: AuditEventResourceAfterType0 | None
    before: AuditEventResourceBeforeType0 | None
    client_address: None | str
    created_at: datetime.datetime
    id: str
    livemode: bool | None
    object_: AuditEventResourceObject
    target: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.audit_event_resource_after_type_0 import (
            AuditEventResourceAfterType0,
        )
        from ..models.audit_event_resource_before_type_0 import (
            AuditEventResourceBeforeType0,
        )

        action = self.action.value

        actor = self.actor.to_dict()

        after: dict[str, Any] | None
        if isinstance(self.after, AuditEventResourceAfterType0):
            after = self.after.to_dict()
        else:
            after = self.after

        before: dict[str, Any] | None
        if isinstance(self.before, AuditEventResourceBeforeType0):
            before = self.before.to_dict()
        else:
            before = self.before

        client_address: None | str
        client_address = self.client_address

        created_at = self.created_at.isoformat()

        id = self.id

        livemode: bool | None
        livemode = self.livemode

        object_ = self.object_.value

        target = self.target

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "action": action,
                "actor": actor,
                "after": after,
                "before": before,
                "client_address": client_address,
                "created_at": created_at,
                "id": id,
                "livemode": livemode,
                "object": object_,
                "target": target,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.audit_actor_resource import AuditActorResource
        from ..models.audit_event_resource_after_type_0 import (
            AuditEventResourceAfterType0,
        )
        from ..models.audit_event_resource_before_type_0 import (
            AuditEventResourceBeforeType0,
        )

        d = dict(src_dict)
        action = AuditAction(d.pop("action"))

        actor = AuditActorResource.from_dict(d.pop("actor"))

        def _parse_after(data: object) -> AuditEventResourceAfterType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                after_type_0 = AuditEventResourceAfterType0.from_dict(data)

                return after_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AuditEventResourceAfterType0 | None, data)

        after = _parse_after(d.pop("after"))

        def _parse_before(data: object) -> AuditEventResourceBeforeType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                before_type_0 = AuditEventResourceBeforeType0.from_dict(data)

                return before_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AuditEventResourceBeforeType0 | None, data)

        before = _parse_before(d.pop("before"))

        def _parse_client_address(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        client_address = _parse_client_address(d.pop("client_address"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        id = d.pop("id")

        def _parse_livemode(data: object) -> bool | None:
            if data is None:
                return data
            return cast(bool | None, data)

        livemode = _parse_livemode(d.pop("livemode"))

        object_ = AuditEventResourceObject(d.pop("object"))

        target = d.pop("target")

        audit_event_resource = cls(
            action=action,
            actor=actor,
            after=after,
            before=before,
            client_address=client_address,
            created_at=created_at,
            id=id,
            livemode=livemode,
            object_=object_,
            target=target,
        )

        audit_event_resource.additional_properties = d
        return audit_event_resource

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
