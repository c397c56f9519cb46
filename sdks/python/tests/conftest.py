"""The stack the tests run against: ``cargo xtask test`` starts one and names its env.json
in STABLEPAY_ENV; with ``cargo xtask dev`` running, the repository's target/dev/env.json."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[3]
ENV_PATH = Path(os.environ.get("STABLEPAY_ENV", REPO / "target/dev/env.json"))


@pytest.fixture(scope="session")
def env() -> dict[str, Any]:
    try:
        loaded: dict[str, Any] = json.loads(ENV_PATH.read_text())
    except OSError as e:
        raise RuntimeError(
            f"no stack described at {ENV_PATH} (run cargo xtask dev, or set STABLEPAY_ENV): {e}"
        ) from e
    return loaded
