"""stablepay's API from Python: the generated requests (``stablepay.api``) and models
(``stablepay.models``), with a client that adds idempotency, retries, errors and
pagination (``Stablepay``, ``AsyncStablepay``), and webhook verification
(``stablepay.webhooks``)."""

from . import webhooks
from ._sdk import AsyncStablepay, Mode, RetryInfo, Stablepay
from .exceptions import SignatureVerificationError, StablepayError

__version__ = "1.0.0"

__all__ = [
    "AsyncStablepay",
    "Mode",
    "RetryInfo",
    "SignatureVerificationError",
    "Stablepay",
    "StablepayError",
    "webhooks",
]
