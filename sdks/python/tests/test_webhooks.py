"""The shared Svc-Signature vectors (crates/webhook-verify/vectors.json, the Rust verifier's
own cases) and construct_event's two outcomes."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time

import pytest

from stablepay import SignatureVerificationError, webhooks

from .conftest import REPO


def test_every_shared_vector_gets_the_rust_verifiers_verdict() -> None:
    cases = json.loads((REPO / "crates/webhook-verify/vectors.json").read_text())["cases"]
    assert len(cases) >= 30
    wrong = [
        f"{c['name']}: want {c['want']}"
        for c in cases
        if webhooks.verify(
            c["header"], base64.b64decode(c["body_b64"]), c["secrets"], c["tolerance"], c["now"]
        )
        != c["want"]
    ]
    assert wrong == []


def test_construct_event_returns_the_verified_envelope_and_refuses_an_altered_one() -> None:
    body = json.dumps({"id": "evt_1", "type": "payment.succeeded", "data": {"object": {"id": "pay_1"}}})
    t = int(time.time())

    def sign(at: int) -> str:
        return hmac.new(b"whsec_x", f"{at}.{body}".encode(), hashlib.sha256).hexdigest()

    event = webhooks.construct_event(body.encode(), f"t={t},v1={sign(t)}", "whsec_x")
    assert event["id"] == "evt_1" and event["data"]["object"] == {"id": "pay_1"}
    rotated = webhooks.construct_event(body, f"t={t},v1={sign(t)}", ["whsec_new", "whsec_x"])
    assert rotated["type"] == "payment.succeeded"
    with pytest.raises(SignatureVerificationError):
        webhooks.construct_event(body.replace("pay_1", "pay_2"), f"t={t},v1={sign(t)}", "whsec_x")
    # Signed correctly, but 301 s ago: outside the default tolerance of 300 s.
    with pytest.raises(SignatureVerificationError):
        webhooks.construct_event(body, f"t={t - 301},v1={sign(t - 301)}", "whsec_x")
    assert webhooks.construct_event(body, f"t={t - 290},v1={sign(t - 290)}", "whsec_x")["id"] == "evt_1"
    with pytest.raises(SignatureVerificationError):
        webhooks.construct_event(body, None, "whsec_x")
