from enum import StrEnum


class SubscriptionSessionRequestChainType1(StrEnum):
    BASE = "base"
    BASE_SEPOLIA = "base-sepolia"
    VALUE_2 = "8453"
    VALUE_3 = "84532"

    def __str__(self) -> str:
        return str(self.value)
