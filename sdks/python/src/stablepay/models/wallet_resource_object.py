from enum import StrEnum


class WalletResourceObject(StrEnum):
    WALLET = "wallet"

    def __str__(self) -> str:
        return str(self.value)
