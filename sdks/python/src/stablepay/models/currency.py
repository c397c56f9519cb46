from enum import StrEnum


class Currency(StrEnum):
    EURC = "EURC"
    USDC = "USDC"
    USDT = "USDT"

    def __str__(self) -> str:
        return str(self.value)
