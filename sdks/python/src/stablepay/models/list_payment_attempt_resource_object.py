from enum import StrEnum


class ListPaymentAttemptResourceObject(StrEnum):
    LIST = "list"

    def __str__(self) -> str:
        return str(self.value)
