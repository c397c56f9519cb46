from enum import StrEnum


class WebhookEndpointResourceObject(StrEnum):
    WEBHOOK_ENDPOINT = "webhook_endpoint"

    def __str__(self) -> str:
        return str(self.value)
