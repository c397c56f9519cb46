from enum import StrEnum


class ReviewStatus(StrEnum):
    APPROVED = "approved"
    PENDING = "pending"
    RETURNED = "returned"

    def __str__(self) -> str:
        return str(self.value)
