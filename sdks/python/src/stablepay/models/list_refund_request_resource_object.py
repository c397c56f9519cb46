from enum import StrEnum


class ListRefundRequestResourceObject(StrEnum):
    LIST = "list"

    def __str__(self) -> str:
        return str(self.value)
