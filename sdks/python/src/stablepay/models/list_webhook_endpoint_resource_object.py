from enum import StrEnum


class ListWebhookEndpointResourceObject(StrEnum):
    LIST = "list"

    def __str__(self) -> str:
        return str(self.value)
