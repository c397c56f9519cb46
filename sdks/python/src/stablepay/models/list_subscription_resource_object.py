from enum import StrEnum


class ListSubscriptionResourceObject(StrEnum):
    LIST = "list"

    def __str__(self) -> str:
        return str(self.value)
