from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error import Error
from ...models.recover_webhook_endpoint_request import RecoverWebhookEndpointRequest
from ...models.recovery_resource import RecoveryResource
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: str,
    *,
    body: RecoverWebhookEndpointRequest,
    idempotency_key: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/webhook_endpoints/{id}/recover".format(
            id=quote(str(id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Error | RecoveryResource | None:
    if response.status_code == 200:
        response_200 = RecoveryResource.from_dict(response.json())

        return response_200

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
) -> Response[Error | RecoveryResource]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    body: RecoverWebhookEndpointRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[Error | RecoveryResource]:
    """Resends every failed delivery of the endpoint created since `since` (an extra). One
    call resends at most 100 (the newest); the worker resends the rest in batches of 100.

     Refused with 400 although the document allows it: an endpoint that is disabled (enable it first).

    Args:
        id (str): A webhook endpoint id (`we_…`).
        idempotency_key (str | Unset):
        body (RecoverWebhookEndpointRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | RecoveryResource]
    """

    kwargs = _get_kwargs(
        id=id,
        body=body,
        idempotency_key=idempotency_key,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    body: RecoverWebhookEndpointRequest,
    idempotency_key: str | Unset = UNSET,
) -> Error | RecoveryResource | None:
    """Resends every failed delivery of the endpoint created since `since` (an extra). One
    call resends at most 100 (the newest); the worker resends the rest in batches of 100.

     Refused with 400 although the document allows it: an endpoint that is disabled (enable it first).

    Args:
        id (str): A webhook endpoint id (`we_…`).
        idempotency_key (str | Unset):
        body (RecoverWebhookEndpointRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | RecoveryResource
    """

    return sync_detailed(
        id=id,
        client=client,
        body=body,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    body: RecoverWebhookEndpointRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[Error | RecoveryResource]:
    """Resends every failed delivery of the endpoint created since `since` (an extra). One
    call resends at most 100 (the newest); the worker resends the rest in batches of 100.

     Refused with 400 although the document allows it: an endpoint that is disabled (enable it first).

    Args:
        id (str): A webhook endpoint id (`we_…`).
        idempotency_key (str | Unset):
        body (RecoverWebhookEndpointRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | RecoveryResource]
    """

    kwargs = _get_kwargs(
        id=id,
        body=body,
        idempotency_key=idempotency_key,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    body: RecoverWebhookEndpointRequest,
    idempotency_key: str | Unset = UNSET,
) -> Error | RecoveryResource | None:
    """Resends every failed delivery of the endpoint created since `since` (an extra). One
    call resends at most 100 (the newest); the worker resends the rest in batches of 100.

     Refused with 400 although the document allows it: an endpoint that is disabled (enable it first).

    Args:
        id (str): A webhook endpoint id (`we_…`).
        idempotency_key (str | Unset):
        body (RecoverWebhookEndpointRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | RecoveryResource
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            body=body,
            idempotency_key=idempotency_key,
        )
    ).parsed
