from enum import IntEnum


class ChainId(IntEnum):
    VALUE_8453 = 8453
    VALUE_84532 = 84532

    def __str__(self) -> str:
        return str(self.value)
