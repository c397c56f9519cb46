from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.checkout_session_resource import CheckoutSessionResource
from ...models.error import Error
from ...models.payment_session_request import PaymentSessionRequest
from ...models.subscription_session_request import SubscriptionSessionRequest
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: PaymentSessionRequest | SubscriptionSessionRequest,
    idempotency_key: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/checkout/sessions",
    }

    if isinstance(body, PaymentSessionRequest):
        _kwargs["json"] = body.to_dict()
    else:
        _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> CheckoutSessionResource | Error | None:
    if response.status_code == 201:
        response_201 = CheckoutSessionResource.from_dict(response.json())

        return response_201

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
) -> Response[CheckoutSessionResource | Error]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: PaymentSessionRequest | SubscriptionSessionRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[CheckoutSessionResource | Error]:
    """Refused with 400 although the document allows it: a `recipient` that is not one of your verified
    wallets (or none given while you have several); a `chain` other than your key's (base for live keys,
    base-sepolia for test keys); subscription mode with a test key; a `chain_plan_id` that is no plan on
    the key's chain, or whose token, `amount` or `interval_seconds` differ from the plan's.

    Args:
        idempotency_key (str | Unset):
        body (PaymentSessionRequest | SubscriptionSessionRequest): The POST body as sent; loosely
            typed where the spec allows several JSON types. The
            `schema` attributes say what `parse` accepts.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CheckoutSessionResource | Error]
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
    body: PaymentSessionRequest | SubscriptionSessionRequest,
    idempotency_key: str | Unset = UNSET,
) -> CheckoutSessionResource | Error | None:
    """Refused with 400 although the document allows it: a `recipient` that is not one of your verified
    wallets (or none given while you have several); a `chain` other than your key's (base for live keys,
    base-sepolia for test keys); subscription mode with a test key; a `chain_plan_id` that is no plan on
    the key's chain, or whose token, `amount` or `interval_seconds` differ from the plan's.

    Args:
        idempotency_key (str | Unset):
        body (PaymentSessionRequest | SubscriptionSessionRequest): The POST body as sent; loosely
            typed where the spec allows several JSON types. The
            `schema` attributes say what `parse` accepts.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CheckoutSessionResource | Error
    """

    return sync_detailed(
        client=client,
        body=body,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: PaymentSessionRequest | SubscriptionSessionRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[CheckoutSessionResource | Error]:
    """Refused with 400 although the document allows it: a `recipient` that is not one of your verified
    wallets (or none given while you have several); a `chain` other than your key's (base for live keys,
    base-sepolia for test keys); subscription mode with a test key; a `chain_plan_id` that is no plan on
    the key's chain, or whose token, `amount` or `interval_seconds` differ from the plan's.

    Args:
        idempotency_key (str | Unset):
        body (PaymentSessionRequest | SubscriptionSessionRequest): The POST body as sent; loosely
            typed where the spec allows several JSON types. The
            `schema` attributes say what `parse` accepts.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CheckoutSessionResource | Error]
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
    body: PaymentSessionRequest | SubscriptionSessionRequest,
    idempotency_key: str | Unset = UNSET,
) -> CheckoutSessionResource | Error | None:
    """Refused with 400 although the document allows it: a `recipient` that is not one of your verified
    wallets (or none given while you have several); a `chain` other than your key's (base for live keys,
    base-sepolia for test keys); subscription mode with a test key; a `chain_plan_id` that is no plan on
    the key's chain, or whose token, `amount` or `interval_seconds` differ from the plan's.

    Args:
        idempotency_key (str | Unset):
        body (PaymentSessionRequest | SubscriptionSessionRequest): The POST body as sent; loosely
            typed where the spec allows several JSON types. The
            `schema` attributes say what `parse` accepts.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CheckoutSessionResource | Error
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            idempotency_key=idempotency_key,
        )
    ).parsed
