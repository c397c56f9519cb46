"""Loaded by Schemathesis (`hooks` in schemathesis.toml): generators for the document's
custom string formats, so generated data can be valid where a pattern alone cannot say
what is (Hypothesis would otherwise draw from the pattern only), and a `before_call`
hook that keeps repeated draws from replaying one another's idempotent answers."""

import re
import uuid

import schemathesis
from hypothesis import strategies as st

# `evm-address`: mixed case must be the EIP-55 checksum, which needs keccak-256 to write;
# all-lowercase and all-uppercase hex carry no checksum and are always valid.
schemathesis.openapi.format(
    "evm-address", st.from_regex(r"\A0x(?:[0-9a-f]{40}|[0-9A-F]{40})\Z")
)


# A valid `Idempotency-Key` is made unique per call. Hypothesis repeats drawn values
# across cases, and a repeated key with a repeated body is rightly answered as a replay
# of the first response; when that first response created a webhook endpoint a later
# scenario deleted, the replayed id 404s and the resource-availability check reads it as
# lost. Idempotency itself is tested in crates/api/tests. Negative cases are left as
# drawn: they create nothing, and an edited header would be revalidated as positive,
# which puts back a header the case means to leave out.
_IDEMPOTENCY_KEY = re.compile(r"\A[\x20-\x7E]{1,200}\Z")


@schemathesis.hook
def before_call(context, case, kwargs):
    meta = case.meta
    if meta is not None and meta.generation.mode.is_negative:
        return
    headers = case.headers or {}
    for name, value in list(headers.items()):
        if name.lower() != "idempotency-key":
            continue
        if isinstance(value, str) and _IDEMPOTENCY_KEY.match(value):
            fresh = uuid.uuid4().hex
            headers[name] = value[: 200 - len(fresh)] + fresh
