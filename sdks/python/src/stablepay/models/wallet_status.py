from enum import StrEnum


class WalletStatus(StrEnum):
    PENDING = "pending"
    REVOKED = "revoked"
    VERIFIED = "verified"

    def __str__(self) -> str:
        return str(self.value)
