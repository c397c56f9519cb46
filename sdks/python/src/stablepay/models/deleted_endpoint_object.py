from enum import StrEnum


class DeletedEndpointObject(StrEnum):
    WEBHOOK_ENDPOINT = "webhook_endpoint"

    def __str__(self) -> str:
        return str(self.value)
