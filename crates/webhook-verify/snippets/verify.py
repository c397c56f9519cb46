"""Verify stablepay's `Svc-Signature` webhook header. Python 3.10+, standard library only.

raw_body: the request body bytes exactly as received (never re-serialised JSON).
secrets: every secret currently valid for the endpoint (two during a rotation).
"""
import hashlib
import hmac
import re
import time

_INT = re.compile(r"[+-]?[0-9]+")  # int() alone would also accept " 1", "1_0", "١"
_HEX = re.compile(r"(?:[0-9a-fA-F]{2})*")  # bytes.fromhex alone would accept spaces


def verify(header: str, raw_body: bytes, secrets: list[str],
           tolerance_secs: int = 300, now_unix: int | None = None) -> bool:
    if not isinstance(header, str) or not isinstance(raw_body, (bytes, bytearray)):
        return False
    t, sigs = None, []
    for part in header.split(","):  # "t=<unix seconds>,v1=<hex>[,v1=<hex>]"
        key, eq, value = part.strip().partition("=")
        if not eq:
            return False
        if key == "t":
            if not _INT.fullmatch(value):
                return False
            t = int(value)
        elif key == "v1":
            if not _HEX.fullmatch(value):
                return False
            sigs.append(bytes.fromhex(value))
        # other keys (future schemes) are ignored
    now = int(time.time()) if now_unix is None else now_unix
    if t is None or not sigs or abs(now - t) > tolerance_secs:
        return False
    for secret in secrets:
        expected = hmac.new(secret.encode(), f"{t}.".encode() + raw_body, hashlib.sha256).digest()
        if any(hmac.compare_digest(expected, sig) for sig in sigs):  # constant time
            return True
    return False


if __name__ == "__main__":  # test harness (tests/snippets.rs): one JSON case per stdin line
    import base64
    import json
    import sys

    for line in sys.stdin.buffer:
        if line.strip():
            c = json.loads(line)
            tolerance = 300 if c.get("tolerance") is None else c["tolerance"]
            ok = verify(c["header"], base64.b64decode(c["body_b64"]), c["secrets"],
                        tolerance, c.get("now"))
            print("true" if ok else "false")
