"""The client against the real service: pagination over more than 300 objects (sync and
async), the real rate limiter's 429s retried, a create in flight retried under its
Idempotency-Key, and errors carrying the envelope."""

from __future__ import annotations

import asyncio
import functools
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from typing import Any

import pytest

from stablepay import AsyncStablepay, RetryInfo, Stablepay, StablepayError
from stablepay.api.balance_transactions import export_balance_transactions
from stablepay.api.checkout_sessions import create_checkout_session, list_checkout_sessions
from stablepay.api.payments import retrieve_payment
from stablepay.api.settlement_wallets import list_wallets
from stablepay.models import (
    CheckoutSessionResource,
    PaymentSessionRequest,
    PaymentSessionRequestMode,
)


def client(env: dict[str, Any], **options: Any) -> Stablepay:
    return Stablepay(api_key=env["merchants"][1]["test_key"], base_url=env["api_base"], **options)


def body(env: dict[str, Any], reference: str, amount: str = "1.25") -> PaymentSessionRequest:
    return PaymentSessionRequest(
        mode=PaymentSessionRequestMode.PAYMENT,
        title="SDK page test",
        amount=amount,
        recipient=env["merchants"][1]["wallet"]["address"],
        customer_reference=reference,
    )


def test_the_mode_comes_from_the_key(env: dict[str, Any]) -> None:
    assert client(env).mode == "test"
    live = Stablepay(api_key=env["merchants"][1]["live_key"], base_url=env["api_base"])
    assert live.mode == "live"
    with pytest.raises(ValueError, match="svc_sk_test_"):
        Stablepay(api_key="pk_test_x", base_url=env["api_base"])


def test_paginate_walks_305_sessions_in_pages_of_100(env: dict[str, Any]) -> None:
    sp = client(env)
    reference = f"sdk-py-{uuid.uuid4()}"
    with ThreadPoolExecutor(8) as pool:
        created = list(
            pool.map(
                lambda _: sp.call(create_checkout_session.sync_detailed, body=body(env, reference)),
                range(305),
            )
        )
    pages = 0
    original = list_checkout_sessions.sync_detailed

    @functools.wraps(original)
    def counted(**arguments: Any) -> Any:
        nonlocal pages
        pages += 1
        return original(**arguments)

    listed = list(sp.paginate(counted, customer_reference=reference))
    assert pages == 4
    assert len(listed) == 305
    assert {s.id for s in listed} == {s.id for s in created}
    times = [s.created_at for s in listed]
    assert all(isinstance(t, datetime) for t in times)
    assert times == sorted(times, reverse=True), "newest first"

    async def walk() -> list[str]:
        async with AsyncStablepay(
            api_key=env["merchants"][1]["test_key"], base_url=env["api_base"]
        ) as asp:
            return [
                s.id
                async for s in asp.paginate(
                    list_checkout_sessions.asyncio_detailed, customer_reference=reference, limit=50
                )
            ]

    assert asyncio.run(walk()) == [s.id for s in listed]


def test_429s_from_the_real_rate_limiter_are_retried(env: dict[str, Any]) -> None:
    retries: list[RetryInfo] = []
    key = env["merchants"][1]["limited_test_key"]
    limited = Stablepay(api_key=key, base_url=env["api_base"], on_retry=retries.append)
    calls = 0
    # The key's budget is 30 a minute (a minute's worth at once): the 31st call waits.
    while not retries and calls < 60:
        limited.call(list_wallets.sync_detailed)
        calls += 1
    assert retries, f"no 429 in {calls} calls"
    assert retries[0].status == 429
    assert retries[0].delay_secs >= 1
    impatient = Stablepay(api_key=key, base_url=env["api_base"], max_retries=0)
    with pytest.raises(StablepayError) as raised:
        impatient.call(list_wallets.sync_detailed)
    assert raised.value.status == 429
    assert raised.value.code == "rate_limit_error"
    assert raised.value.retry_after is not None and raised.value.retry_after >= 1


def test_concurrent_creates_under_one_key_make_one_session(env: dict[str, Any]) -> None:
    retries: list[RetryInfo] = []
    reference = f"sdk-py-{uuid.uuid4()}"
    key = f"sdk-py-{uuid.uuid4()}"

    async def create_twenty() -> list[CheckoutSessionResource]:
        async with AsyncStablepay(
            api_key=env["merchants"][1]["test_key"], base_url=env["api_base"], on_retry=retries.append
        ) as asp:
            return await asyncio.gather(
                *(
                    asp.call(
                        create_checkout_session.asyncio_detailed,
                        body=body(env, reference),
                        idempotency_key=key,
                    )
                    for _ in range(20)
                )
            )

    answers = asyncio.run(create_twenty())
    assert len({s.id for s in answers}) == 1
    assert all(r.status == 409 for r in retries), "only in-flight 409s were retried"
    listed = client(env).call(list_checkout_sessions.sync_detailed, customer_reference=reference)
    assert len(listed.data) == 1


def test_every_create_gets_its_own_key_unless_one_is_given(env: dict[str, Any]) -> None:
    sp = client(env)
    reference = f"sdk-py-{uuid.uuid4()}"
    a = sp.call(create_checkout_session.sync_detailed, body=body(env, reference))
    b = sp.call(create_checkout_session.sync_detailed, body=body(env, reference))
    assert a.id != b.id
    key = f"sdk-py-{uuid.uuid4()}"
    first = sp.call(create_checkout_session.sync_detailed, body=body(env, reference), idempotency_key=key)
    again = sp.call(create_checkout_session.sync_detailed, body=body(env, reference), idempotency_key=key)
    assert again.id == first.id
    with pytest.raises(StablepayError) as raised:
        sp.call(create_checkout_session.sync_detailed, body=body(env, reference, "2"), idempotency_key=key)
    assert (raised.value.status, raised.value.code) == (409, "idempotency_error")


def test_errors_carry_the_envelope(env: dict[str, Any]) -> None:
    sp = client(env)
    with pytest.raises(StablepayError) as raised:
        sp.call(create_checkout_session.sync_detailed, body=body(env, "x", "1.1234567"))
    e = raised.value
    assert (e.status, e.code, e.type, e.param) == (400, "invalid_request_error", "invalid_request_error", "amount")
    assert any(d["field"] == "amount" for d in e.details)
    assert e.request_id
    with pytest.raises(StablepayError) as raised:
        sp.call(retrieve_payment.sync_detailed, id="pay_doesnotexist")
    assert (raised.value.status, raised.value.code) == (404, "not_found_error")
    stranger = Stablepay(api_key="svc_sk_test_notakey", base_url=env["api_base"])
    with pytest.raises(StablepayError) as raised:
        stranger.call(list_wallets.sync_detailed)
    assert (raised.value.status, raised.value.code) == (401, "authentication_error")


def test_the_ledger_export_comes_back_as_csv(env: dict[str, Any]) -> None:
    csv = client(env).call(export_balance_transactions.sync_detailed)
    assert str(csv).startswith("id,")
