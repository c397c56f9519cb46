from enum import StrEnum


class AddressConfirmation(StrEnum):
    SIGNATURE = "signature"
    TYPED_TWICE = "typed_twice"

    def __str__(self) -> str:
        return str(self.value)
