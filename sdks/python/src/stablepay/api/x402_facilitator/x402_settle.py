from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error import Error
from ...models.x402_facilitator_request import X402FacilitatorRequest
from ...models.x402_settle_response import X402SettleResponse
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: X402FacilitatorRequest,
    idempotency_key: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/x402/settle",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Error | X402SettleResponse | None:
    if response.status_code == 200:
        response_200 = X402SettleResponse.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = Error.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = Error.from_dict(response.json())

        return response_401

    if response.status_code == 409:
        response_409 = Error.from_dict(response.json())

        return response_409

    if response.status_code == 429:
        response_429 = Error.from_dict(response.json())

        return response_429

    if response.status_code == 500:
        response_500 = Error.from_dict(response.json())

        return response_500

    if response.status_code == 503:
        response_503 = Error.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[Error | X402SettleResponse]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: X402FacilitatorRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[Error | X402SettleResponse]:
    """Settles a payment to one of your open sessions' deposit addresses, at its gross: the
    relayer sends it, the answer waits for it to be mined, and the session completes as any
    deposit does. Failures are answered 200 with `success: false` and a reason.

    Args:
        idempotency_key (str | Unset):
        body (X402FacilitatorRequest): A facilitator's `/verify` or `/settle` request.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | X402SettleResponse]
    """

    kwargs = _get_kwargs(
        body=body,
        idempotency_key=idempotency_key,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    body: X402FacilitatorRequest,
    idempotency_key: str | Unset = UNSET,
) -> Error | X402SettleResponse | None:
    """Settles a payment to one of your open sessions' deposit addresses, at its gross: the
    relayer sends it, the answer waits for it to be mined, and the session completes as any
    deposit does. Failures are answered 200 with `success: false` and a reason.

    Args:
        idempotency_key (str | Unset):
        body (X402FacilitatorRequest): A facilitator's `/verify` or `/settle` request.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | X402SettleResponse
    """

    return sync_detailed(
        client=client,
        body=body,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: X402FacilitatorRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[Error | X402SettleResponse]:
    """Settles a payment to one of your open sessions' deposit addresses, at its gross: the
    relayer sends it, the answer waits for it to be mined, and the session completes as any
    deposit does. Failures are answered 200 with `success: false` and a reason.

    Args:
        idempotency_key (str | Unset):
        body (X402FacilitatorRequest): A facilitator's `/verify` or `/settle` request.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | X402SettleResponse]
    """

    kwargs = _get_kwargs(
        body=body,
        idempotency_key=idempotency_key,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    body: X402FacilitatorRequest,
    idempotency_key: str | Unset = UNSET,
) -> Error | X402SettleResponse | None:
    """Settles a payment to one of your open sessions' deposit addresses, at its gross: the
    relayer sends it, the answer waits for it to be mined, and the session completes as any
    deposit does. Failures are answered 200 with `success: false` and a reason.

    Args:
        idempotency_key (str | Unset):
        body (X402FacilitatorRequest): A facilitator's `/verify` or `/settle` request.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | X402SettleResponse
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            idempotency_key=idempotency_key,
        )
    ).parsed
