from enum import StrEnum


class ListWebhookEventResourceObject(StrEnum):
    LIST = "list"

    def __str__(self) -> str:
        return str(self.value)
