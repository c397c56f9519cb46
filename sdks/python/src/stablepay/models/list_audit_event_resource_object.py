from enum import StrEnum


class ListAuditEventResourceObject(StrEnum):
    LIST = "list"

    def __str__(self) -> str:
        return str(self.value)
