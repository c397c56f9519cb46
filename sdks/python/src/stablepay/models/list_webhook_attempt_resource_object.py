from enum import StrEnum


class ListWebhookAttemptResourceObject(StrEnum):
    LIST = "list"

    def __str__(self) -> str:
        return str(self.value)
