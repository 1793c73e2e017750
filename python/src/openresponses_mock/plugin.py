"""The pytest plugin (entry point ``pytest11``): the fixtures ``openresponses_mock`` and
``mock_session``, and the marker ``openresponses_mock``.

- ``openresponses_mock`` (session scope): a ``MockServer`` on a free port, started at its first
  use and stopped at the end of the run. Its options come from the fixture
  ``openresponses_mock_options`` (a dict of ``MockServer`` keyword options; override it in a
  conftest.py).
- ``mock_session`` (function scope): a ``MockSession`` of its own on that server, reset after the
  test; give its ``headers`` to a client as default headers.
- ``@pytest.mark.openresponses_mock(scenario=..., dialect=..., seed=..., headers=..., options=...)``
  sets up the test's ``mock_session``: ``scenario`` a name (sent as ``x-mock-scenario``) or a
  scenario dict (``use``d), ``dialect`` and ``seed`` as ``x-mock-dialect`` and ``x-mock-seed``,
  ``headers`` more headers; ``options`` (``MockServer`` options such as ``latency_ms``) give the
  test a server with those options, started once per set of options and shared by the tests
  that ask for the same.
- With pytest-xdist each worker is its own pytest process, and starts its own server(s).
- A failed test that used ``mock_session`` gets a report section with that session's journal:
  each request's method, path, status, scenario and outcome.
"""

from __future__ import annotations

import json
from typing import Any, Dict, Generator, Iterator, List, Optional

import pytest

from ._errors import MockServerError
from ._mock import MockServer, MockSession

_SESSION_KEY = pytest.StashKey[MockSession]()

_MARKER = "openresponses_mock"
_MARKER_KEYS = {"scenario", "dialect", "seed", "headers", "options"}


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{_MARKER}(scenario=None, dialect=None, seed=None, headers=None, options=None): set up the test's "
        "mock_session (a scenario name or dict, the dialect, the seed, more headers) or give it a server "
        "with other options (openresponses-mock)",
    )


class _Servers:
    """The servers of this pytest process, one per set of options, stopped at the end."""

    def __init__(self) -> None:
        self._servers: Dict[str, MockServer] = {}

    def get(self, options: Dict[str, Any]) -> MockServer:
        key = json.dumps(options, sort_keys=True, default=str)
        server = self._servers.get(key)
        if server is None:
            server = MockServer(**options).start()
            self._servers[key] = server
        return server

    def close(self) -> None:
        for server in self._servers.values():
            server.close()
        self._servers.clear()


@pytest.fixture(scope="session")
def openresponses_mock_options() -> Dict[str, Any]:
    """The options of the ``openresponses_mock`` server (``MockServer`` keyword options). Override
    it in a conftest.py: ``return {"scenarios": ["tests/scenarios"], "seed": 7}``."""
    return {}


@pytest.fixture(scope="session")
def _openresponses_mock_servers() -> Iterator[_Servers]:
    servers = _Servers()
    try:
        yield servers
    finally:
        servers.close()


@pytest.fixture(scope="session")
def openresponses_mock(_openresponses_mock_servers: _Servers, openresponses_mock_options: Dict[str, Any]) -> MockServer:
    """A mock server for the whole run (one per pytest-xdist worker)."""
    return _openresponses_mock_servers.get(dict(openresponses_mock_options))


@pytest.fixture
def mock_session(
    request: pytest.FixtureRequest,
    _openresponses_mock_servers: _Servers,
    openresponses_mock_options: Dict[str, Any],
) -> Iterator[MockSession]:
    """A session of its own on the server for this test, reset after it."""
    marker = request.node.get_closest_marker(_MARKER)
    settings: Dict[str, Any] = {}
    if marker is not None:
        if marker.args:
            raise pytest.UsageError(
                f"@pytest.mark.{_MARKER} takes keyword arguments only ({', '.join(sorted(_MARKER_KEYS))})"
            )
        unknown = set(marker.kwargs) - _MARKER_KEYS
        if unknown:
            raise pytest.UsageError(
                f"@pytest.mark.{_MARKER}: unknown argument(s) {', '.join(sorted(unknown))}; it takes {', '.join(sorted(_MARKER_KEYS))}"
            )
        settings = dict(marker.kwargs)
    options = dict(openresponses_mock_options)
    options.update(settings.get("options") or {})
    server = _openresponses_mock_servers.get(options)
    headers: Dict[str, str] = {}
    scenario = settings.get("scenario")
    if isinstance(scenario, str):
        headers["x-mock-scenario"] = scenario
    if settings.get("dialect") is not None:
        headers["x-mock-dialect"] = str(settings["dialect"])
    if settings.get("seed") is not None:
        headers["x-mock-seed"] = str(settings["seed"])
    headers.update(settings.get("headers") or {})
    session = server.session(headers=headers)
    if isinstance(scenario, dict):
        session.use(scenario)
    request.node.stash[_SESSION_KEY] = session
    try:
        yield session
    finally:
        try:
            session.reset()
        except MockServerError:
            pass  # the server is gone: nothing to reset


def journal_summary(entries: List[Dict[str, Any]]) -> str:
    """The journal as a table: each request's seq, method, path, status, scenario and outcome."""
    if not entries:
        return "no requests"
    rows = [("seq", "method", "path", "status", "scenario", "outcome")]
    for e in entries:
        scenario = e.get("scenario") or "-"
        if e.get("reason"):
            scenario += f" ({e['reason']})"
        outcome = e.get("outcome") or "in progress"
        if e.get("errorCode"):
            outcome += f" {e['errorCode']}"
        status = e.get("status")
        rows.append(
            (
                str(e.get("seq")),
                str(e.get("method")),
                str(e.get("path")),
                "-" if status is None else str(status),
                scenario,
                outcome,
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    return "\n".join(
        "  ".join([*(cell.ljust(w) for cell, w in zip(row[:-1], widths)), row[-1]]).rstrip() for row in rows
    )


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: "pytest.CallInfo[None]") -> Generator[None, Any, None]:
    outcome = yield
    report: pytest.TestReport = outcome.get_result()
    # Setup and call: by teardown the session has been reset.
    if not report.failed or report.when == "teardown":
        return
    session: Optional[MockSession] = item.stash.get(_SESSION_KEY, None)
    if session is None:
        return
    try:
        text = journal_summary(session.requests())
    except MockServerError as err:
        text = f"cannot read the journal: {err}"
    report.sections.append((f"openresponses-mock journal (session {session.id})", text))
