"""The package's tests run the server built from this repository: OPENRESPONSES_MOCK_BIN is set
to the repository's dist/cli/main.js (built by `npm run build`, which `npm test` runs before
pytest) unless it is set already. Inner pytest runs (pytester, subprocesses) inherit it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CLI = REPO / "dist" / "cli" / "main.js"

if not os.environ.get("OPENRESPONSES_MOCK_BIN"):
    os.environ["OPENRESPONSES_MOCK_BIN"] = str(CLI)


def pytest_sessionstart(session: pytest.Session) -> None:
    if not Path(os.environ["OPENRESPONSES_MOCK_BIN"]).exists():
        raise pytest.UsageError(
            f"{os.environ['OPENRESPONSES_MOCK_BIN']} does not exist: run `npm run build` at the repository root first"
        )
