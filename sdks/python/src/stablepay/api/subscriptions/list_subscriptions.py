from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error import Error
from ...models.list_subscription_resource import ListSubscriptionResource
from ...models.subscription_status import SubscriptionStatus
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    limit: int | Unset = UNSET,
    starting_after: str | Unset = UNSET,
    status: SubscriptionStatus | Unset = UNSET,
    wallet_address: str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["limit"] = limit

    params["starting_after"] = starting_after

    json_status: str | Unset = UNSET
    if not isinstance(status, Unset):
        json_status = status.value

    params["status"] = json_status

    params["wallet_address"] = wallet_address

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/subscriptions",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Error | ListSubscriptionResource | None:
    if response.status_code == 200:
        response_200 = ListSubscriptionResource.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = Error.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = Error.from_dict(response.json())

        return response_401

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
) -> Response[Error | ListSubscriptionResource]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    limit: int | Unset = UNSET,
    starting_after: str | Unset = UNSET,
    status: SubscriptionStatus | Unset = UNSET,
    wallet_address: str | Unset = UNSET,
) -> Response[Error | ListSubscriptionResource]:
    """Refused with 400 although the document allows it: a `wallet_address` in mixed case that fails its
    EIP-55 checksum (all-lowercase or all-uppercase hex is accepted as it is).

    Args:
        limit (int | Unset):
        starting_after (str | Unset): A subscription id (`sub_…`).
        status (SubscriptionStatus | Unset): SubscriptionStatus
        wallet_address (str | Unset): An EVM address: 0x and 40 hex digits. Accepted in lowercase,
            in uppercase, or in mixed case when that is its EIP-55 checksum (format `evm-address`);
            always written with the checksum.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | ListSubscriptionResource]
    """

    kwargs = _get_kwargs(
        limit=limit,
        starting_after=starting_after,
        status=status,
        wallet_address=wallet_address,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    limit: int | Unset = UNSET,
    starting_after: str | Unset = UNSET,
    status: SubscriptionStatus | Unset = UNSET,
    wallet_address: str | Unset = UNSET,
) -> Error | ListSubscriptionResource | None:
    """Refused with 400 although the document allows it: a `wallet_address` in mixed case that fails its
    EIP-55 checksum (all-lowercase or all-uppercase hex is accepted as it is).

    Args:
        limit (int | Unset):
        starting_after (str | Unset): A subscription id (`sub_…`).
        status (SubscriptionStatus | Unset): SubscriptionStatus
        wallet_address (str | Unset): An EVM address: 0x and 40 hex digits. Accepted in lowercase,
            in uppercase, or in mixed case when that is its EIP-55 checksum (format `evm-address`);
            always written with the checksum.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | ListSubscriptionResource
    """

    return sync_detailed(
        client=client,
        limit=limit,
        starting_after=starting_after,
        status=status,
        wallet_address=wallet_address,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    limit: int | Unset = UNSET,
    starting_after: str | Unset = UNSET,
    status: SubscriptionStatus | Unset = UNSET,
    wallet_address: str | Unset = UNSET,
) -> Response[Error | ListSubscriptionResource]:
    """Refused with 400 although the document allows it: a `wallet_address` in mixed case that fails its
    EIP-55 checksum (all-lowercase or all-uppercase hex is accepted as it is).

    Args:
        limit (int | Unset):
        starting_after (str | Unset): A subscription id (`sub_…`).
        status (SubscriptionStatus | Unset): SubscriptionStatus
        wallet_address (str | Unset): An EVM address: 0x and 40 hex digits. Accepted in lowercase,
            in uppercase, or in mixed case when that is its EIP-55 checksum (format `evm-address`);
            always written with the checksum.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | ListSubscriptionResource]
    """

    kwargs = _get_kwargs(
        limit=limit,
        starting_after=starting_after,
        status=status,
        wallet_address=wallet_address,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    limit: int | Unset = UNSET,
    starting_after: str | Unset = UNSET,
    status: SubscriptionStatus | Unset = UNSET,
    wallet_address: str | Unset = UNSET,
) -> Error | ListSubscriptionResource | None:
    """Refused with 400 although the document allows it: a `wallet_address` in mixed case that fails its
    EIP-55 checksum (all-lowercase or all-uppercase hex is accepted as it is).

    Args:
        limit (int | Unset):
        starting_after (str | Unset): A subscription id (`sub_…`).
        status (SubscriptionStatus | Unset): SubscriptionStatus
        wallet_address (str | Unset): An EVM address: 0x and 40 hex digits. Accepted in lowercase,
            in uppercase, or in mixed case when that is its EIP-55 checksum (format `evm-address`);
            always written with the checksum.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | ListSubscriptionResource
    """

    return (
        await asyncio_detailed(
            client=client,
            limit=limit,
            starting_after=starting_after,
            status=status,
            wallet_address=wallet_address,
        )
    ).parsed
