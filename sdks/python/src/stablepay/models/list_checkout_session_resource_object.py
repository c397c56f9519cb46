from enum import StrEnum


class ListCheckoutSessionResourceObject(StrEnum):
    LIST = "list"

    def __str__(self) -> str:
        return str(self.value)
