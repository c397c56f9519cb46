from enum import StrEnum


class ListRefundResourceObject(StrEnum):
    LIST = "list"

    def __str__(self) -> str:
        return str(self.value)
