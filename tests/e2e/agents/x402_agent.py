"""An agent paying a stablepay checkout session with the official x402 SDK (PyPI `x402`).

    python x402_agent.py pay  URL KEY   # pays through the SDK's httpx client; prints
                                        # {"status", "payment_response", "body"} as JSON
    python x402_agent.py sign URL KEY [DELTA]
                                        # prints the PAYMENT-SIGNATURE header the SDK
                                        # builds (for an amount of gross + DELTA)
    python x402_agent.py facilitator BASE API_KEY ACTION HEADER [PAY_TO]
                                        # the SDK's facilitator client against BASE
                                        # (…/api/v1/x402): ACTION is supported, verify,
                                        # verify-tampered or settle, for the payment in
                                        # HEADER against what it accepted (payTo moved to
                                        # PAY_TO if given); prints the answer as JSON

KEY is the payer's private key (0x hex). The dev token is not one of the SDK's default
assets, so the agent allows it explicitly (spend controls, SDK 2.25): an allowed asset
without a cap of its own is paid at any amount.
"""

import asyncio
import json
import sys

import httpx
from eth_account import Account
from x402 import x402Client
from x402.http import (
    HTTPFacilitatorClient,
    decode_payment_required_header,
    decode_payment_response_header,
    decode_payment_signature_header,
    encode_payment_signature_header,
)
from x402.http.clients import x402HttpxClient
from x402.mechanisms.evm.exact import register_exact_evm_client


def client_for(key: str, required) -> x402Client:
    client = x402Client()
    register_exact_evm_client(client, Account.from_key(key))
    client.set_spend_controls(
        {"allowed_assets": [{"network": a.network, "asset": a.asset} for a in required.accepts]}
    )
    return client


async def asked(url: str):
    async with httpx.AsyncClient() as http:
        first = await http.get(url)
    assert first.status_code == 402, first.status_code
    return decode_payment_required_header(first.headers["PAYMENT-REQUIRED"])


async def pay(url: str, key: str) -> dict:
    client = client_for(key, await asked(url))
    async with x402HttpxClient(client, timeout=60) as http:
        res = await http.get(url)
    header = res.headers.get("PAYMENT-RESPONSE")
    response = decode_payment_response_header(header).model_dump(by_alias=True) if header else None
    return {"status": res.status_code, "payment_response": response, "body": res.json()}


async def sign(url: str, key: str, delta: int) -> str:
    required = await asked(url)
    if delta:
        for a in required.accepts:
            a.amount = str(int(a.amount) + delta)
    payload = await client_for(key, required).create_payment_payload(required)
    return encode_payment_signature_header(payload)


async def facilitate(base: str, api_key: str, action: str, header: str, pay_to: str | None):
    auth = {"Authorization": f"Bearer {api_key}"}
    facilitator = HTTPFacilitatorClient(
        {"url": base, "create_headers": lambda: {"verify": auth, "settle": auth, "supported": auth}}
    )
    if action == "supported":
        return facilitator.get_supported().model_dump(by_alias=True)
    payload = decode_payment_signature_header(header)
    requirements = payload.accepted.model_copy()
    if pay_to:
        requirements.pay_to = pay_to
    if action == "verify-tampered":
        payload.payload["authorization"]["value"] = str(int(requirements.amount) + 1)
        action = "verify"
    async with facilitator:
        if action == "verify":
            answer = await facilitator.verify(payload, requirements)
        else:
            answer = await facilitator.settle(payload, requirements)
    return answer.model_dump(by_alias=True)


if __name__ == "__main__":
    command, url, key = sys.argv[1:4]
    if command == "facilitator":
        action, header = sys.argv[4], sys.argv[5] if len(sys.argv) > 5 else ""
        pay_to = sys.argv[6] if len(sys.argv) > 6 else None
        print(json.dumps(asyncio.run(facilitate(url, key, action, header, pay_to))))
    elif command == "pay":
        print(json.dumps(asyncio.run(pay(url, key))))
    else:
        delta = int(sys.argv[4]) if len(sys.argv) > 4 else 0
        print(asyncio.run(sign(url, key, delta)))
