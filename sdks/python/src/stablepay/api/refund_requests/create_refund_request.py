from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.create_refund_request_request import CreateRefundRequestRequest
from ...models.error import Error
from ...models.refund_request_resource import RefundRequestResource
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: CreateRefundRequestRequest,
    idempotency_key: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/refund_requests",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Error | RefundRequestResource | None:
    if response.status_code == 201:
        response_201 = RefundRequestResource.from_dict(response.json())

        return response_201

    if response.status_code == 400:
        response_400 = Error.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = Error.from_dict(response.json())

        return response_401

    if response.status_code == 404:
        response_404 = Error.from_dict(response.json())

        return response_404

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
) -> Response[Error | RefundRequestResource]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: CreateRefundRequestRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[Error | RefundRequestResource]:
    """Asks the payer for the address their refund should reach: send them the request's
    `url`. Use it when the payment may have come from an exchange's shared wallet (every
    deposit payment), where a refund to the sender is lost to the customer.

    Args:
        idempotency_key (str | Unset):
        body (CreateRefundRequestRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | RefundRequestResource]
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
    body: CreateRefundRequestRequest,
    idempotency_key: str | Unset = UNSET,
) -> Error | RefundRequestResource | None:
    """Asks the payer for the address their refund should reach: send them the request's
    `url`. Use it when the payment may have come from an exchange's shared wallet (every
    deposit payment), where a refund to the sender is lost to the customer.

    Args:
        idempotency_key (str | Unset):
        body (CreateRefundRequestRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | RefundRequestResource
    """

    return sync_detailed(
        client=client,
        body=body,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: CreateRefundRequestRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[Error | RefundRequestResource]:
    """Asks the payer for the address their refund should reach: send them the request's
    `url`. Use it when the payment may have come from an exchange's shared wallet (every
    deposit payment), where a refund to the sender is lost to the customer.

    Args:
        idempotency_key (str | Unset):
        body (CreateRefundRequestRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | RefundRequestResource]
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
    body: CreateRefundRequestRequest,
    idempotency_key: str | Unset = UNSET,
) -> Error | RefundRequestResource | None:
    """Asks the payer for the address their refund should reach: send them the request's
    `url`. Use it when the payment may have come from an exchange's shared wallet (every
    deposit payment), where a refund to the sender is lost to the customer.

    Args:
        idempotency_key (str | Unset):
        body (CreateRefundRequestRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | RefundRequestResource
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            idempotency_key=idempotency_key,
        )
    ).parsed
