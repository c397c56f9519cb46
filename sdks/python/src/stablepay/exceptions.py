"""What a call raises: the API's error envelope, and a webhook that does not verify."""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from typing import Any


class StablepayError(Exception):
    """A non-2xx answer: the envelope's ``code`` (``invalid_request_error``,
    ``authentication_error``, ``not_found_error``, ``conflict_error``, ``idempotency_error``,
    ``rate_limit_error``, ``api_error``, ...), its message and, on validation failures, the
    fields at fault (``param`` is the first of them)."""

    status: int
    code: str
    type: str
    message: str
    param: str | None
    details: list[dict[str, str]]
    request_id: str | None
    retry_after: int | None

    def __init__(self, status: int, content: bytes, headers: Mapping[str, str]) -> None:
        error = _envelope(content)
        self.status = status
        self.code = str(error.get("code") or ("api_error" if status >= 500 else "unknown_error"))
        self.type = str(error.get("type") or self.code)
        self.message = str(error.get("message") or f"HTTP {status} without an error envelope")
        details = error.get("details")
        self.details = (
            [
                {"field": str(d.get("field")), "message": str(d.get("message"))}
                for d in details
                if isinstance(d, dict)
            ]
            if isinstance(details, list)
            else []
        )
        self.param = self.details[0]["field"] if self.details else None
        self.request_id = headers.get("request-id")
        self.retry_after = retry_after_seconds(headers)
        super().__init__(f"{status} {self.code}: {self.message}")


class SignatureVerificationError(Exception):
    """A webhook whose ``Svc-Signature`` does not verify (wrong secret, altered body, too
    old): answer the delivery with a 400."""


def _envelope(content: bytes) -> dict[str, Any]:
    try:
        body = json.loads(content)
    except ValueError:
        return {}
    error = body.get("error") if isinstance(body, dict) else None
    return error if isinstance(error, dict) else {}


def retry_after_seconds(headers: Mapping[str, str]) -> int | None:
    """``Retry-After`` as whole seconds (the API sends seconds; an HTTP date is read too)."""
    value = headers.get("retry-after")
    if value is None:
        return None
    value = value.strip()
    if value.isdigit():
        return int(value)
    try:
        at = parsedate_to_datetime(value)
        return max(0, int((at - datetime.now(timezone.utc)).total_seconds() + 0.999))
    except (TypeError, ValueError):
        return None
