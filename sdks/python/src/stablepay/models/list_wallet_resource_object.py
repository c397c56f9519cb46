from enum import StrEnum


class ListWalletResourceObject(StrEnum):
    LIST = "list"

    def __str__(self) -> str:
        return str(self.value)
