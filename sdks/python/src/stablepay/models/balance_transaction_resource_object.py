from enum import StrEnum


class BalanceTransactionResourceObject(StrEnum):
    BALANCE_TRANSACTION = "balance_transaction"

    def __str__(self) -> str:
        return str(self.value)
