"""Loaded by Schemathesis (`hooks` in schemathesis.toml): generators for the document's
custom string formats, so generated data can be valid where a pattern alone cannot say
what is (Hypothesis would otherwise draw from the pattern only)."""

import schemathesis
from hypothesis import strategies as st

# `evm-address`: mixed case must be the EIP-55 checksum, which needs keccak-256 to write;
# all-lowercase and all-uppercase hex carry no checksum and are always valid.
schemathesis.openapi.format(
    "evm-address", st.from_regex(r"\A0x(?:[0-9a-f]{40}|[0-9A-F]{40})\Z")
)
