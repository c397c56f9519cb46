"""The hand-written part: a client per API key that adds an ``Idempotency-Key`` to every
POST, retries what is safe to retry, raises the error envelope as ``StablepayError`` and
walks lists page by page. Requests themselves are the generated functions of
``stablepay.api`` (openapi-python-client), called with this client's ``client``."""

from __future__ import annotations

import asyncio
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

    def delay(self, response: httpx.Response | None, attempt: int) -> float | None:
        """Seconds to wait before trying again, or ``None`` when the answer is final: a 429
        (the rate limit), a 409 carrying ``Retry-After`` (the same Idempotency-Key still in
        flight) and a 5xx are retried as ``Retry-After`` says or with exponential backoff."""
        if attempt >= self.max_retries:
            return None
        backoff: float = min(self.max_delay_secs, 0.5 * 2.0**attempt) * (0.75 + random.random() / 2)
        if response is None:
            return backoff
        retry_after = retry_after_seconds(response.headers)
        status = response.status_code
        if not (status == 429 or status >= 500 or (status == 409 and retry_after is not None)):
            return None
        return backoff if retry_after is None else min(self.max_delay_secs, float(retry_after))

    def report(self, request: httpx.Request, attempt: int, status: int | None, delay: float) -> None:
        if self.on_retry is not None:
            self.on_retry(RetryInfo(attempt + 1, request.method, str(request.url), status, delay))


def _with_key(request: httpx.Request) -> None:
    # One key per call, kept across its retries: a retried create never creates twice.
    if request.method == "POST" and "idempotency-key" not in request.headers:
        request.headers["Idempotency-Key"] = str(uuid.uuid4())


class _RetryingTransport(httpx.BaseTransport):
    def __init__(self, policy: _RetryPolicy) -> None:
        self._inner = httpx.HTTPTransport()
        self._policy = policy

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        _with_key(request)
        attempt = 0
        while True:
            response: httpx.Response | None = None
            try:
                response = self._inner.handle_request(request)
            except httpx.TransportError:
                if self._policy.delay(None, attempt) is None:
                    raise
            delay = self._policy.delay(response, attempt)
            if delay is None and response is not None:
                return response
            delay = delay or 0.0
            if response is not None:
                response.close()
            self._policy.report(request, attempt, _status(response), delay)
            time.sleep(delay)
            attempt += 1

    def close(self) -> None:
        self._inner.close()


class _AsyncRetryingTransport(httpx.AsyncBaseTransport):
    def __init__(self, policy: _RetryPolicy) -> None:
        self._inner = httpx.AsyncHTTPTransport()
        self._policy = policy

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        _with_key(request)
        attempt = 0
        while True:
            response: httpx.Response | None = None
            try:
                response = await self._inner.handle_async_request(request)
            except httpx.TransportError:
                if self._policy.delay(None, attempt) is None:
                    raise
            delay = self._policy.delay(response, attempt)
            if delay is None and response is not None:
                return response
            delay = delay or 0.0
            if response is not None:
                await response.aclose()
            self._policy.report(request, attempt, _status(response), delay)
            await asyncio.sleep(delay)
            attempt += 1

    async def aclose(self) -> None:
        await self._inner.aclose()


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


def _status(response: httpx.Response | None) -> int | None:
    return None if response is None else response.status_code


def _item_id(item: object) -> str:
    return str(getattr(item, "id"))


class _Base:
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
        asynchronous: bool,
    ) -> None:
        self.mode = _mode(api_key)
        policy = _RetryPolicy(max_retries, max_retry_delay_secs, on_retry)
        transport: dict[str, Any] = (
            {"transport": _AsyncRetryingTransport(policy)}
            if asynchronous
            else {"transport": _RetryingTransport(policy)}
        )
        self.client = AuthenticatedClient(
            base_url=base_url.rstrip("/"),
            token=api_key,
            timeout=httpx.Timeout(timeout_secs),
            raise_on_unexpected_status=False,
            httpx_args=transport,
        )


class Stablepay(_Base):
    """A client for one API key (``mode`` is ``"test"`` or ``"live"``, from the key).

    ``call(endpoint.sync_detailed, **arguments)`` runs a generated request with this
    client and returns its parsed 2xx body, or raises ``StablepayError``;
    ``paginate(list_endpoint.sync_detailed, **filters)`` yields every item of a list."""

    def __init__(self, *, api_key: str, base_url: str, **options: Any) -> None:
        super().__init__(api_key=api_key, base_url=base_url, asynchronous=False, **options)

    def call(self, endpoint: Callable[..., _Answer[T | Error]], **arguments: Any) -> T:
        return _unwrap(endpoint(client=self.client, **arguments))

    def paginate(
        self, endpoint: Callable[..., _Answer[_Page[T] | Error]], **filters: Any
    ) -> Iterator[T]:
        """Every item, newest first, in pages of ``limit`` (default 100)."""
        filters.setdefault("limit", 100)
        starting_after: Any = UNSET
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


class AsyncStablepay(_Base):
    """``Stablepay`` for asyncio: ``await sp.call(endpoint.asyncio_detailed, ...)`` and
    ``async for item in sp.paginate(list_endpoint.asyncio_detailed, ...)``."""

    def __init__(self, *, api_key: str, base_url: str, **options: Any) -> None:
        super().__init__(api_key=api_key, base_url=base_url, asynchronous=True, **options)

    async def call(
        self, endpoint: Callable[..., Awaitable[_Answer[T | Error]]], **arguments: Any
    ) -> T:
        return _unwrap(await endpoint(client=self.client, **arguments))

    async def paginate(
        self, endpoint: Callable[..., Awaitable[_Answer[_Page[T] | Error]]], **filters: Any
    ) -> AsyncIterator[T]:
        filters.setdefault("limit", 100)
        starting_after: Any = UNSET
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
