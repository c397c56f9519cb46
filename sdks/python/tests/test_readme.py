"""README.md's walk-through, as written: its ``python`` blocks run as one script against the
stack (mypy --strict checks it too), and what each step prints is looked for in order."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from mypy import api as mypy

from .conftest import ENV_PATH, REPO

PACKAGE = Path(__file__).resolve().parents[1]
EXPECTED = [
    "mode: test",
    "session: cs_",
    "payment: pay_",
    "refund: re_",
    "webhook: checkout.session.completed evt_",
    "confirmed payments listed:",
    "error: 400 invalid_request_error amount",
    "retrying after 429",
    "rate limited: 429 rate_limit_error",
    "async session: cs_",
    "async payments listed:",
]


def readme_script() -> str:
    blocks = re.findall(r"^```python\n(.*?)^```$", (PACKAGE / "README.md").read_text(), re.S | re.M)
    assert len(blocks) >= 5
    return "\n".join(blocks)


def test_the_readme_walkthrough_runs_as_written() -> None:
    work = REPO / "target/sdks/readme-py"
    work.mkdir(parents=True, exist_ok=True)
    script = work / "readme.py"
    script.write_text(readme_script())
    os.environ.setdefault("MYPYPATH", str(PACKAGE / "src"))
    typed = mypy.run(["--strict", "--no-incremental", str(script)])
    assert typed[2] == 0, f"the walk-through does not type-check:\n{typed[0]}{typed[1]}"
    run = subprocess.run(
        [sys.executable, str(script)],
        cwd=PACKAGE,
        env={**os.environ, "STABLEPAY_ENV": str(ENV_PATH), "PYTHONPATH": str(PACKAGE / "src")},
        capture_output=True,
        text=True,
        timeout=200,
    )
    printed = run.stdout
    (work / "output.log").write_text(printed + run.stderr)
    assert run.returncode == 0, f"the walk-through failed:\n{printed}\n{run.stderr}"
    rest = printed
    for want in EXPECTED:
        at = rest.find(want)
        assert at >= 0, f'README step printing "{want}" is missing; it printed:\n{printed}'
        rest = rest[at + len(want) :]
