from enum import StrEnum


class ListPaymentResourceObject(StrEnum):
    LIST = "list"

    def __str__(self) -> str:
        return str(self.value)
