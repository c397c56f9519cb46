from enum import StrEnum


class RecoveryResourceObject(StrEnum):
    WEBHOOK_RECOVERY = "webhook_recovery"

    def __str__(self) -> str:
        return str(self.value)
