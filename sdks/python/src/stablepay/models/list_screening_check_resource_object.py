from enum import StrEnum


class ListScreeningCheckResourceObject(StrEnum):
    LIST = "list"

    def __str__(self) -> str:
        return str(self.value)
