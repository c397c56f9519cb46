from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error import Error
from ...models.list_payment_resource import ListPaymentResource
from ...models.payment_status import PaymentStatus
from ...models.review_status import ReviewStatus
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    limit: int | Unset = UNSET,
    starting_after: str | Unset = UNSET,
    subscription: str | Unset = UNSET,
    checkout_session: str | Unset = UNSET,
    status: PaymentStatus | Unset = UNSET,
    review: ReviewStatus | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["limit"] = limit

    params["starting_after"] = starting_after

    params["subscription"] = subscription

    params["checkout_session"] = checkout_session

    json_status: str | Unset = UNSET
    if not isinstance(status, Unset):
        json_status = status.value

    params["status"] = json_status

    json_review: str | Unset = UNSET
    if not isinstance(review, Unset):
        json_review = review.value

    params["review"] = json_review

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/payments",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Error | ListPaymentResource | None:
    if response.status_code == 200:
        response_200 = ListPaymentResource.from_dict(response.json())

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
) -> Response[Error | ListPaymentResource]:
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
    subscription: str | Unset = UNSET,
    checkout_session: str | Unset = UNSET,
    status: PaymentStatus | Unset = UNSET,
    review: ReviewStatus | Unset = UNSET,
) -> Response[Error | ListPaymentResource]:
    """
    Args:
        limit (int | Unset):
        starting_after (str | Unset): A payment id (`pay_…`).
        subscription (str | Unset): A subscription id (`sub_…`).
        checkout_session (str | Unset): A checkout session id (`cs_…`).
        status (PaymentStatus | Unset): PaymentStatus
        review (ReviewStatus | Unset): ReviewStatus

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | ListPaymentResource]
    """

    kwargs = _get_kwargs(
        limit=limit,
        starting_after=starting_after,
        subscription=subscription,
        checkout_session=checkout_session,
        status=status,
        review=review,
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
    subscription: str | Unset = UNSET,
    checkout_session: str | Unset = UNSET,
    status: PaymentStatus | Unset = UNSET,
    review: ReviewStatus | Unset = UNSET,
) -> Error | ListPaymentResource | None:
    """
    Args:
        limit (int | Unset):
        starting_after (str | Unset): A payment id (`pay_…`).
        subscription (str | Unset): A subscription id (`sub_…`).
        checkout_session (str | Unset): A checkout session id (`cs_…`).
        status (PaymentStatus | Unset): PaymentStatus
        review (ReviewStatus | Unset): ReviewStatus

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | ListPaymentResource
    """

    return sync_detailed(
        client=client,
        limit=limit,
        starting_after=starting_after,
        subscription=subscription,
        checkout_session=checkout_session,
        status=status,
        review=review,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    limit: int | Unset = UNSET,
    starting_after: str | Unset = UNSET,
    subscription: str | Unset = UNSET,
    checkout_session: str | Unset = UNSET,
    status: PaymentStatus | Unset = UNSET,
    review: ReviewStatus | Unset = UNSET,
) -> Response[Error | ListPaymentResource]:
    """
    Args:
        limit (int | Unset):
        starting_after (str | Unset): A payment id (`pay_…`).
        subscription (str | Unset): A subscription id (`sub_…`).
        checkout_session (str | Unset): A checkout session id (`cs_…`).
        status (PaymentStatus | Unset): PaymentStatus
        review (ReviewStatus | Unset): ReviewStatus

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | ListPaymentResource]
    """

    kwargs = _get_kwargs(
        limit=limit,
        starting_after=starting_after,
        subscription=subscription,
        checkout_session=checkout_session,
        status=status,
        review=review,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    limit: int | Unset = UNSET,
    starting_after: str | Unset = UNSET,
    subscription: str | Unset = UNSET,
    checkout_session: str | Unset = UNSET,
    status: PaymentStatus | Unset = UNSET,
    review: ReviewStatus | Unset = UNSET,
) -> Error | ListPaymentResource | None:
    """
    Args:
        limit (int | Unset):
        starting_after (str | Unset): A payment id (`pay_…`).
        subscription (str | Unset): A subscription id (`sub_…`).
        checkout_session (str | Unset): A checkout session id (`cs_…`).
        status (PaymentStatus | Unset): PaymentStatus
        review (ReviewStatus | Unset): ReviewStatus

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | ListPaymentResource
    """

    return (
        await asyncio_detailed(
            client=client,
            limit=limit,
            starting_after=starting_after,
            subscription=subscription,
            checkout_session=checkout_session,
            status=status,
            review=review,
        )
    ).parsed
