from enum import IntEnum


class SubscriptionSessionRequestChainType0(IntEnum):
    VALUE_8453 = 8453
    VALUE_84532 = 84532

    def __str__(self) -> str:
        return str(self.value)
