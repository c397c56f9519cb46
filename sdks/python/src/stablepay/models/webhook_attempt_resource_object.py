from enum import StrEnum


class WebhookAttemptResourceObject(StrEnum):
    WEBHOOK_ATTEMPT = "webhook_attempt"

    def __str__(self) -> str:
        return str(self.value)
