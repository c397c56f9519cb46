from enum import StrEnum


class BalanceType(StrEnum):
    LATE_PAYMENT = "late_payment"
    OVERPAYMENT = "overpayment"
    PAYMENT = "payment"
    REFUND = "refund"
    REVERSAL = "reversal"
    SUBSCRIPTION_CHARGE = "subscription_charge"

    def __str__(self) -> str:
        return str(self.value)
