"""The hand-written part: a client per API key that adds an ``Idempotency-Key`` to every
POST, retries what is safe to retry, raises every error answer as ``StablepayError`` and
walks lists page by page. Requests themselves are the generated functions of
``stablepay.api`` (openapi-python-client), called with this client's ``client``."""

from __future__ import annotations

import asyncio
import inspect
import random
import re
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, TypeVar

import httpx

from .client import AuthenticatedClient
from .exceptions import StablepayError, retry_after_seconds
from .models.error import Error
from .types import UNSET

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)

Mode = Literal["test", "live"]

# Failures of the connection itself; a proxy, TLS or URL misconfiguration is not retried.
_RETRYABLE_ERRORS = (httpx.TimeoutException, httpx.NetworkError, httpx.RemoteProtocolError)


@dataclass(frozen=True)
class RetryInfo:
    """What is retried: ``attempt`` is 1 for the first retry; ``status`` is ``None`` for a
    network error."""

    attempt: int
    method: str
    url: str
    status: int | None
    delay_secs: float


@dataclass(frozen=True)
class _RetryPolicy:
    max_retries: int
    max_delay_secs: float
    on_retry: Callable[[RetryInfo], None] | None

    def delay(self, request: httpx.Request, response: httpx.Response | None, attempt: int) -> float | None:
        """Seconds to wait before trying again, or ``None`` when the answer is final.

        A 429 (the rate limit) is always retried: the request did not run. A 409 carrying
        ``Retry-After`` (the same Idempotency-Key still in flight), a 5xx and a network
        error are retried for GET and POST (every POST carries its key), never for DELETE,
        whose first try may have worked. ``Retry-After`` is honoured, else exponential
        backoff with jitter, both capped at ``max_delay_secs``."""
        if attempt >= self.max_retries:
            return None
        backoff = min(self.max_delay_secs, 0.5 * 2.0**attempt * (0.75 + random.random() / 2))
        status = None if response is None else response.status_code
        if status == 429:
            retry_after = retry_after_seconds(response.headers) if response is not None else None
            return backoff if retry_after is None else min(self.max_delay_secs, float(retry_after))
        if request.method == "DELETE":
            return None
        if response is None:
            return backoff
        retry_after = retry_after_seconds(response.headers)
        if status is not None and (status >= 500 or (status == 409 and retry_after is not None)):
            return backoff if retry_after is None else min(self.max_delay_secs, float(retry_after))
        return None

    def next_try(self, request: httpx.Request, response: httpx.Response | None, attempt: int) -> float | None:
        """``delay``, reported to ``on_retry`` when there is one more try."""
        delay = self.delay(request, response, attempt)
        if delay is not None and self.on_retry is not None:
            status = None if response is None else response.status_code
            self.on_retry(RetryInfo(attempt + 1, request.method, str(request.url), status, delay))
        return delay


def _with_key(request: httpx.Request) -> None:
    # One key per call, kept across its retries: a retried create never creates twice.
    if request.method == "POST" and "idempotency-key" not in request.headers:
        request.headers["Idempotency-Key"] = str(uuid.uuid4())


def _final(response: httpx.Response) -> httpx.Response:
    """The answer as is when 2xx; any other status raises its envelope (also one that is
    not JSON, such as a proxy's HTML 502)."""
    if not 200 <= response.status_code < 300:
        raise StablepayError(response.status_code, response.content, response.headers)
    return response


class _RetryingClient(httpx.Client):
    """httpx's client (environment proxies and all) whose ``send`` retries by the policy."""

    def __init__(self, policy: _RetryPolicy, **options: Any) -> None:
        super().__init__(**options)
        self._policy = policy

    def send(self, request: httpx.Request, **options: Any) -> httpx.Response:
        _with_key(request)
        attempt = 0
        while True:
            try:
                response = super().send(request, **options)
            except _RETRYABLE_ERRORS:
                delay = self._policy.next_try(request, None, attempt)
                if delay is None:
                    raise
            else:
                delay = self._policy.next_try(request, response, attempt)
                if delay is None:
                    response.read()
                    return _final(response)
                response.close()
            time.sleep(delay)
            attempt += 1


class _AsyncRetryingClient(httpx.AsyncClient):
    def __init__(self, policy: _RetryPolicy, **options: Any) -> None:
        super().__init__(**options)
        self._policy = policy

    async def send(self, request: httpx.Request, **options: Any) -> httpx.Response:
        _with_key(request)
        attempt = 0
        while True:
            try:
                response = await super().send(request, **options)
            except _RETRYABLE_ERRORS:
                delay = self._policy.next_try(request, None, attempt)
                if delay is None:
                    raise
            else:
                delay = self._policy.next_try(request, response, attempt)
                if delay is None:
                    await response.aread()
                    return _final(response)
                await response.aclose()
            await asyncio.sleep(delay)
            attempt += 1


class _Answer(Protocol[T_co]):
    """What a generated ``*_detailed`` function returns (``types.Response``), read-only so
    that ``call`` can name the success type apart from ``Error``."""

    @property
    def status_code(self) -> int: ...

    @property
    def content(self) -> bytes: ...

    @property
    def headers(self) -> Mapping[str, str]: ...

    @property
    def parsed(self) -> T_co | None: ...


class _Page(Protocol[T_co]):
    """A list answer: ``data`` and ``has_more``."""

    @property
    def data(self) -> Sequence[T_co]: ...

    @property
    def has_more(self) -> bool: ...


def _mode(api_key: str) -> Mode:
    found = re.match(r"svc_sk_(test|live)_", api_key)
    if found is None:
        raise ValueError("api_key must be a secret key: svc_sk_test_... or svc_sk_live_...")
    return "test" if found.group(1) == "test" else "live"


def _unwrap(response: _Answer[T | Error]) -> T:
    parsed = response.parsed
    if 200 <= response.status_code < 300 and parsed is not None and not isinstance(parsed, Error):
        return parsed
    raise StablepayError(int(response.status_code), response.content, response.headers)


def _page_filters(endpoint: Callable[..., object], filters: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """The first cursor (``starting_after`` if given) and the filters, with ``limit`` 100
    unless given or the list takes none."""
    starting_after = filters.pop("starting_after", UNSET)
    if "limit" in inspect.signature(endpoint).parameters:
        filters.setdefault("limit", 100)
    return starting_after, filters


def _item_id(item: object) -> str:
    return str(getattr(item, "id"))


def _authenticated(api_key: str, base_url: str) -> AuthenticatedClient:
    return AuthenticatedClient(base_url=base_url.rstrip("/"), token=api_key, raise_on_unexpected_status=False)


def _httpx_options(api_key: str, base_url: str, timeout_secs: float) -> dict[str, Any]:
    """What the sync and async httpx clients are built with (the generated client's own
    defaults would be overridden by ours, so the key is set here)."""
    return {
        "base_url": base_url.rstrip("/"),
        "headers": {"Authorization": f"Bearer {api_key}"},
        "timeout": httpx.Timeout(timeout_secs),
    }


class _Configured:
    """What both clients are built from: the key's mode, the generated client, and the
    retrying httpx client each installs (``_install``)."""

    mode: Mode
    client: AuthenticatedClient

    def __init__(
        self,
        *,
        api_key: str,
        base_url: str,
        max_retries: int = 3,
        max_retry_delay_secs: float = 60.0,
        timeout_secs: float = 30.0,
        on_retry: Callable[[RetryInfo], None] | None = None,
    ) -> None:
        self.mode = _mode(api_key)
        self.client = _authenticated(api_key, base_url)
        policy = _RetryPolicy(max_retries, max_retry_delay_secs, on_retry)
        self._install(policy, _httpx_options(api_key, base_url, timeout_secs))

    def _install(self, policy: _RetryPolicy, options: dict[str, Any]) -> None:
        raise NotImplementedError


class Stablepay(_Configured):
    """A client for one API key (``mode`` is ``"test"`` or ``"live"``, from the key).

    ``call(endpoint.sync_detailed, **arguments)`` runs a generated request with this
    client and returns its parsed 2xx body; any other answer raises ``StablepayError``.
    ``paginate(list_endpoint.sync_detailed, **filters)`` yields every item of a list. Close
    it (``with Stablepay(...) as sp:`` or ``sp.close()``) to release its connections."""

    def _install(self, policy: _RetryPolicy, options: dict[str, Any]) -> None:
        self.client.set_httpx_client(_RetryingClient(policy, **options))

    def call(self, endpoint: Callable[..., _Answer[T | Error]], **arguments: Any) -> T:
        return _unwrap(endpoint(client=self.client, **arguments))

    def paginate(self, endpoint: Callable[..., _Answer[_Page[T] | Error]], **filters: Any) -> Iterator[T]:
        """Every item, newest first, in pages of ``limit`` (default 100)."""
        starting_after, filters = _page_filters(endpoint, filters)
        while True:
            page = self.call(endpoint, starting_after=starting_after, **filters)
            yield from page.data
            if not page.has_more or not page.data:
                return
            starting_after = _item_id(page.data[-1])

    def close(self) -> None:
        self.client.get_httpx_client().close()

    def __enter__(self) -> Stablepay:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


class AsyncStablepay(_Configured):
    """``Stablepay`` for asyncio: ``await sp.call(endpoint.asyncio_detailed, ...)`` and
    ``async for item in sp.paginate(list_endpoint.asyncio_detailed, ...)``; close it with
    ``async with`` or ``await sp.aclose()``."""

    def _install(self, policy: _RetryPolicy, options: dict[str, Any]) -> None:
        self.client.set_async_httpx_client(_AsyncRetryingClient(policy, **options))

    async def call(self, endpoint: Callable[..., Awaitable[_Answer[T | Error]]], **arguments: Any) -> T:
        return _unwrap(await endpoint(client=self.client, **arguments))

    async def paginate(
        self, endpoint: Callable[..., Awaitable[_Answer[_Page[T] | Error]]], **filters: Any
    ) -> AsyncIterator[T]:
        starting_after, filters = _page_filters(endpoint, filters)
        while True:
            page = await self.call(endpoint, starting_after=starting_after, **filters)
            for item in page.data:
                yield item
            if not page.has_more or not page.data:
                return
            starting_after = _item_id(page.data[-1])

    async def aclose(self) -> None:
        await self.client.get_async_httpx_client().aclose()

    async def __aenter__(self) -> AsyncStablepay:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.aclose()
