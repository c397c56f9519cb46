from enum import StrEnum


class SessionStatus(StrEnum):
    COMPLETED = "completed"
    EXPIRED = "expired"
    OPEN = "open"

    def __str__(self) -> str:
        return str(self.value)
