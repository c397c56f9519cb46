from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error import Error
from ...models.send_test_event_request import SendTestEventRequest
from ...models.webhook_event_resource import WebhookEventResource
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: str,
    *,
    body: SendTestEventRequest | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/webhook_endpoints/{id}/test".format(
            id=quote(str(id), safe=""),
        ),
    }

    if not isinstance(body, Unset):
        _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Error | WebhookEventResource | None:
    if response.status_code == 201:
        response_201 = WebhookEventResource.from_dict(response.json())

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
) -> Response[Error | WebhookEventResource]:
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
    body: SendTestEventRequest | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> Response[Error | WebhookEventResource]:
    """Sends a synthetic event (test ids, `livemode` false) through the real delivery path.

     Refused with 400 although the document allows it: a `type` the endpoint does not subscribe to (its
    `enabled_events`, when it names any).

    Args:
        id (str): A webhook endpoint id (`we_…`).
        idempotency_key (str | Unset):
        body (SendTestEventRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | WebhookEventResource]
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
    body: SendTestEventRequest | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> Error | WebhookEventResource | None:
    """Sends a synthetic event (test ids, `livemode` false) through the real delivery path.

     Refused with 400 although the document allows it: a `type` the endpoint does not subscribe to (its
    `enabled_events`, when it names any).

    Args:
        id (str): A webhook endpoint id (`we_…`).
        idempotency_key (str | Unset):
        body (SendTestEventRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | WebhookEventResource
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
    body: SendTestEventRequest | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> Response[Error | WebhookEventResource]:
    """Sends a synthetic event (test ids, `livemode` false) through the real delivery path.

     Refused with 400 although the document allows it: a `type` the endpoint does not subscribe to (its
    `enabled_events`, when it names any).

    Args:
        id (str): A webhook endpoint id (`we_…`).
        idempotency_key (str | Unset):
        body (SendTestEventRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | WebhookEventResource]
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
    body: SendTestEventRequest | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> Error | WebhookEventResource | None:
    """Sends a synthetic event (test ids, `livemode` false) through the real delivery path.

     Refused with 400 although the document allows it: a `type` the endpoint does not subscribe to (its
    `enabled_events`, when it names any).

    Args:
        id (str): A webhook endpoint id (`we_…`).
        idempotency_key (str | Unset):
        body (SendTestEventRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | WebhookEventResource
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            body=body,
            idempotency_key=idempotency_key,
        )
    ).parsed
