from enum import StrEnum


class RefundResourceObject(StrEnum):
    REFUND = "refund"

    def __str__(self) -> str:
        return str(self.value)
