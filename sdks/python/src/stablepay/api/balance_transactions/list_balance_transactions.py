import datetime
from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.balance_type import BalanceType
from ...models.error import Error
from ...models.list_balance_transaction_resource import ListBalanceTransactionResource
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    limit: int | Unset = UNSET,
    starting_after: str | Unset = UNSET,
    type_: BalanceType | Unset = UNSET,
    source: str | Unset = UNSET,
    payment: str | Unset = UNSET,
    createdgte: datetime.datetime | Unset = UNSET,
    createdlt: datetime.datetime | Unset = UNSET,
    block_timegte: datetime.datetime | Unset = UNSET,
    block_timelt: datetime.datetime | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["limit"] = limit

    params["starting_after"] = starting_after

    json_type_: str | Unset = UNSET
    if not isinstance(type_, Unset):
        json_type_ = type_.value

    params["type"] = json_type_

    json_source: str | Unset
    if isinstance(source, Unset):
        json_source = UNSET
    else:
        json_source = source
    params["source"] = json_source

    params["payment"] = payment

    json_createdgte: str | Unset = UNSET
    if not isinstance(createdgte, Unset):
        json_createdgte = createdgte.isoformat()
    params["created[gte]"] = json_createdgte

    json_createdlt: str | Unset = UNSET
    if not isinstance(createdlt, Unset):
        json_createdlt = createdlt.isoformat()
    params["created[lt]"] = json_createdlt

    json_block_timegte: str | Unset = UNSET
    if not isinstance(block_timegte, Unset):
        json_block_timegte = block_timegte.isoformat()
    params["block_time[gte]"] = json_block_timegte

    json_block_timelt: str | Unset = UNSET
    if not isinstance(block_timelt, Unset):
        json_block_timelt = block_timelt.isoformat()
    params["block_time[lt]"] = json_block_timelt

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/balance_transactions",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Error | ListBalanceTransactionResource | None:
    if response.status_code == 200:
        response_200 = ListBalanceTransactionResource.from_dict(response.json())

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
) -> Response[Error | ListBalanceTransactionResource]:
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
    type_: BalanceType | Unset = UNSET,
    source: str | Unset = UNSET,
    payment: str | Unset = UNSET,
    createdgte: datetime.datetime | Unset = UNSET,
    createdlt: datetime.datetime | Unset = UNSET,
    block_timegte: datetime.datetime | Unset = UNSET,
    block_timelt: datetime.datetime | Unset = UNSET,
) -> Response[Error | ListBalanceTransactionResource]:
    """
    Args:
        limit (int | Unset):
        starting_after (str | Unset): A balance transaction id (`txn_…`).
        type_ (BalanceType | Unset): BalanceType
        source (str | Unset): A `pay_` or `re_` id.
        payment (str | Unset): A payment id (`pay_…`).
        createdgte (datetime.datetime | Unset): An RFC 3339 time in UTC with milliseconds.
        createdlt (datetime.datetime | Unset): An RFC 3339 time in UTC with milliseconds.
        block_timegte (datetime.datetime | Unset): An RFC 3339 time in UTC with milliseconds.
        block_timelt (datetime.datetime | Unset): An RFC 3339 time in UTC with milliseconds.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | ListBalanceTransactionResource]
    """

    kwargs = _get_kwargs(
        limit=limit,
        starting_after=starting_after,
        type_=type_,
        source=source,
        payment=payment,
        createdgte=createdgte,
        createdlt=createdlt,
        block_timegte=block_timegte,
        block_timelt=block_timelt,
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
    type_: BalanceType | Unset = UNSET,
    source: str | Unset = UNSET,
    payment: str | Unset = UNSET,
    createdgte: datetime.datetime | Unset = UNSET,
    createdlt: datetime.datetime | Unset = UNSET,
    block_timegte: datetime.datetime | Unset = UNSET,
    block_timelt: datetime.datetime | Unset = UNSET,
) -> Error | ListBalanceTransactionResource | None:
    """
    Args:
        limit (int | Unset):
        starting_after (str | Unset): A balance transaction id (`txn_…`).
        type_ (BalanceType | Unset): BalanceType
        source (str | Unset): A `pay_` or `re_` id.
        payment (str | Unset): A payment id (`pay_…`).
        createdgte (datetime.datetime | Unset): An RFC 3339 time in UTC with milliseconds.
        createdlt (datetime.datetime | Unset): An RFC 3339 time in UTC with milliseconds.
        block_timegte (datetime.datetime | Unset): An RFC 3339 time in UTC with milliseconds.
        block_timelt (datetime.datetime | Unset): An RFC 3339 time in UTC with milliseconds.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | ListBalanceTransactionResource
    """

    return sync_detailed(
        client=client,
        limit=limit,
        starting_after=starting_after,
        type_=type_,
        source=source,
        payment=payment,
        createdgte=createdgte,
        createdlt=createdlt,
        block_timegte=block_timegte,
        block_timelt=block_timelt,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    limit: int | Unset = UNSET,
    starting_after: str | Unset = UNSET,
    type_: BalanceType | Unset = UNSET,
    source: str | Unset = UNSET,
    payment: str | Unset = UNSET,
    createdgte: datetime.datetime | Unset = UNSET,
    createdlt: datetime.datetime | Unset = UNSET,
    block_timegte: datetime.datetime | Unset = UNSET,
    block_timelt: datetime.datetime | Unset = UNSET,
) -> Response[Error | ListBalanceTransactionResource]:
    """
    Args:
        limit (int | Unset):
        starting_after (str | Unset): A balance transaction id (`txn_…`).
        type_ (BalanceType | Unset): BalanceType
        source (str | Unset): A `pay_` or `re_` id.
        payment (str | Unset): A payment id (`pay_…`).
        createdgte (datetime.datetime | Unset): An RFC 3339 time in UTC with milliseconds.
        createdlt (datetime.datetime | Unset): An RFC 3339 time in UTC with milliseconds.
        block_timegte (datetime.datetime | Unset): An RFC 3339 time in UTC with milliseconds.
        block_timelt (datetime.datetime | Unset): An RFC 3339 time in UTC with milliseconds.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | ListBalanceTransactionResource]
    """

    kwargs = _get_kwargs(
        limit=limit,
        starting_after=starting_after,
        type_=type_,
        source=source,
        payment=payment,
        createdgte=createdgte,
        createdlt=createdlt,
        block_timegte=block_timegte,
        block_timelt=block_timelt,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    limit: int | Unset = UNSET,
    starting_after: str | Unset = UNSET,
    type_: BalanceType | Unset = UNSET,
    source: str | Unset = UNSET,
    payment: str | Unset = UNSET,
    createdgte: datetime.datetime | Unset = UNSET,
    createdlt: datetime.datetime | Unset = UNSET,
    block_timegte: datetime.datetime | Unset = UNSET,
    block_timelt: datetime.datetime | Unset = UNSET,
) -> Error | ListBalanceTransactionResource | None:
    """
    Args:
        limit (int | Unset):
        starting_after (str | Unset): A balance transaction id (`txn_…`).
        type_ (BalanceType | Unset): BalanceType
        source (str | Unset): A `pay_` or `re_` id.
        payment (str | Unset): A payment id (`pay_…`).
        createdgte (datetime.datetime | Unset): An RFC 3339 time in UTC with milliseconds.
        createdlt (datetime.datetime | Unset): An RFC 3339 time in UTC with milliseconds.
        block_timegte (datetime.datetime | Unset): An RFC 3339 time in UTC with milliseconds.
        block_timelt (datetime.datetime | Unset): An RFC 3339 time in UTC with milliseconds.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | ListBalanceTransactionResource
    """

    return (
        await asyncio_detailed(
            client=client,
            limit=limit,
            starting_after=starting_after,
            type_=type_,
            source=source,
            payment=payment,
            createdgte=createdgte,
            createdlt=createdlt,
            block_timegte=block_timegte,
            block_timelt=block_timelt,
        )
    ).parsed
