from enum import StrEnum


class ListBalanceTransactionResourceObject(StrEnum):
    LIST = "list"

    def __str__(self) -> str:
        return str(self.value)
