from enum import StrEnum


class ListPaymentLinkResourceObject(StrEnum):
    LIST = "list"

    def __str__(self) -> str:
        return str(self.value)
