"""The errors of the package."""

from __future__ import annotations

from typing import Any, Dict, List, Optional


class MockServerError(Exception):
    """The server could not start, or an admin call failed."""


class AdminError(MockServerError):
    """An admin route answered with an error: ``status`` and the error ``body`` (a dict, if JSON)."""

    def __init__(self, message: str, status: int, body: Optional[Any] = None) -> None:
        super().__init__(message)
        self.status = status
        self.body = body


class VerifyError(AssertionError):
    """``verify()`` found an unmet expectation: ``expectations`` holds every one, with its status."""

    def __init__(self, message: str, expectations: List[Dict[str, Any]]) -> None:
        super().__init__(message)
        self.expectations = expectations
