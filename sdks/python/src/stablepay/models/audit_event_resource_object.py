from enum import StrEnum


class AuditEventResourceObject(StrEnum):
    AUDIT_EVENT = "audit_event"

    def __str__(self) -> str:
        return str(self.value)
