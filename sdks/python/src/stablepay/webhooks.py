"""Verifying stablepay's webhook deliveries: ``Svc-Signature: t=<unix seconds>,v1=<hex>``,
an HMAC-SHA256 of ``"<t>." + body`` with the endpoint's secret."""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import time
from collections.abc import Sequence
from typing import Any

from .exceptions import SignatureVerificationError

SIGNATURE_HEADER = "Svc-Signature"
_T = re.compile(r"[+-]?[0-9]+")
_HEX = re.compile(r"(?:[0-9a-fA-F]{2})*")


def verify(
    header: str | None,
    raw_body: bytes | str,
    secrets: str | Sequence[str],
    tolerance_secs: int = 300,
    now: int | None = None,
) -> bool:
    """Whether ``header`` signs ``raw_body`` (the body exactly as received, never
    re-serialised JSON) with one of ``secrets`` (two during a rotation) within the
    tolerance. Never raises; a malformed header is ``False``."""
    if not isinstance(header, str):
        return False
    t: int | None = None
    signatures: list[bytes] = []
    for part in header.split(","):
        key, eq, value = part.strip().partition("=")
        if not eq:
            return False
        if key == "t":
            if not _T.fullmatch(value):
                return False
            t = int(value)
        elif key == "v1":
            if not _HEX.fullmatch(value):
                return False
            signatures.append(bytes.fromhex(value))
        # other keys (future schemes) are ignored
    clock = int(time.time()) if now is None else now
    if t is None or not signatures or abs(clock - t) > tolerance_secs:
        return False
    body = raw_body.encode() if isinstance(raw_body, str) else raw_body
    for secret in [secrets] if isinstance(secrets, str) else secrets:
        expected = hmac.new(secret.encode(), f"{t}.".encode() + body, hashlib.sha256).digest()
        if any(hmac.compare_digest(expected, sig) for sig in signatures):
            return True
    return False


def construct_event(
    raw_body: bytes | str,
    header: str | None,
    secrets: str | Sequence[str],
    tolerance_secs: int = 300,
    now: int | None = None,
) -> dict[str, Any]:
    """The delivered envelope (``id``, ``type``, ``created_at``, ``data.object``) once its
    signature verifies; raises ``SignatureVerificationError`` otherwise."""
    if not verify(header, raw_body, secrets, tolerance_secs, now):
        raise SignatureVerificationError(
            "The Svc-Signature header does not verify this body with the endpoint's secret "
            "(or it is too old)"
        )
    event = json.loads(raw_body)
    if not isinstance(event, dict):
        raise SignatureVerificationError("The delivery's body is not an event envelope")
    return event
