from enum import StrEnum


class WebhookEventResourceObject(StrEnum):
    WEBHOOK_EVENT = "webhook_event"

    def __str__(self) -> str:
        return str(self.value)
