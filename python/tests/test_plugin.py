"""The pytest plugin, run in inner pytest processes (pytester): the journal in a failed test's
report, isolation under pytest-xdist (`-n 2`), and no server left behind after the session,
after a crash, and after SIGKILL of pytest."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from procs import TAG_VAR, new_tag, servers_with, tagged_env, wait_none_with

POST = """
import json, urllib.request

def post(session, body):
    request = urllib.request.Request(
        session.base_url + "/responses",
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json", **session.headers},
    )
    with urllib.request.urlopen(request, timeout=30) as res:
        return json.load(res)
"""


def test_a_failed_test_reports_its_sessions_journal(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        POST
        + """
def test_passes(mock_session):
    post(mock_session, {"model": "m", "input": "fine"})

def test_fails(mock_session):
    mock_session.enqueue({"steps": [{"type": "message", "text": "scripted"}]})
    post(mock_session, {"model": "m", "input": "first"})
    post(mock_session, {"model": "tool-call", "input": "second"})
    assert False, "on purpose"
"""
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", timeout=120)
    result.assert_outcomes(passed=1, failed=1)
    out = result.stdout.str()
    assert len(re.findall(r"openresponses-mock journal \(session py-[0-9a-f]+\)", out)) == 1, out
    result.stdout.re_match_lines(
        [
            r".*openresponses-mock journal \(session py-[0-9a-f]+\).*",
            r"seq +method +path +status +scenario +outcome$",
            r"\d+ +POST +/v1/responses +200 +queued-\d+ \(queue\) +completed$",
            r"\d+ +POST +/v1/responses +200 +tool-call \(model\) +completed$",
        ]
    )
    # The passing test's request is not in it.
    assert "fine" not in out


def test_isolation_under_xdist(pytester: pytest.Pytester, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    record = tmp_path / "record.jsonl"
    monkeypatch.setenv("RECORD", str(record))
    tag = new_tag()
    monkeypatch.setenv(TAG_VAR, tag)
    tests = "\n".join(
        f"""
def test_{i}(mock_session, openresponses_mock):
    # Two turns queued, one taken: the next test's session must not see the other.
    mock_session.enqueue({{"steps": [{{"type": "message", "text": "mine {i}"}}]}}, {{"steps": [{{"type": "message", "text": "left over {i}"}}]}})
    answer = post(mock_session, {{"model": "m", "input": "test {i}"}})
    assert answer["output"][0]["content"][0]["text"] == "mine {i}"
    assert [e["body"]["input"] for e in mock_session.requests()] == ["test {i}"]
    with open(os.environ["RECORD"], "a") as f:
        f.write(json.dumps({{"worker": os.environ.get("PYTEST_XDIST_WORKER"), "url": openresponses_mock.url, "session": mock_session.id}}) + "\\n")
"""
        for i in range(8)
    )
    pytester.makepyfile("import os\n" + POST + tests)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-n", "2", timeout=180)
    result.assert_outcomes(passed=8)
    rows = [json.loads(line) for line in record.read_text().splitlines()]
    assert len(rows) == 8
    workers = {row["worker"] for row in rows}
    assert workers == {"gw0", "gw1"}
    # One server per worker.
    urls = {w: {row["url"] for row in rows if row["worker"] == w} for w in workers}
    assert all(len(u) == 1 for u in urls.values()) and urls["gw0"] != urls["gw1"]
    assert len({row["session"] for row in rows}) == 8
    assert wait_none_with(tag) == []


def test_no_server_is_left_after_the_session(
    pytester: pytest.Pytester, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server stops when the session's fixtures are torn down (pytest still running)."""
    seen = tmp_path / "seen.json"
    monkeypatch.setenv("SEEN", str(seen))
    tag = new_tag()
    monkeypatch.setenv(TAG_VAR, tag)
    pytester.makeconftest(
        f'''
import json, os, sys
sys.path.insert(0, {str(Path(__file__).parent)!r})
from procs import servers_with

def pytest_unconfigure(config):
    with open(os.environ["SEEN"], "w") as f:
        json.dump({{"after": servers_with(os.environ["{TAG_VAR}"])}}, f)
'''
    )
    pytester.makepyfile(
        """
import os
from procs import servers_with

def test_it(openresponses_mock):
    assert openresponses_mock.pid in servers_with(os.environ["OPENRESPONSES_MOCK_TEST_TAG"])
"""
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", timeout=120)
    result.assert_outcomes(passed=1)
    assert json.loads(seen.read_text()) == {"after": []}
    assert servers_with(tag) == []


def test_no_server_is_left_after_a_crash(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    """pytest ends with os._exit: no fixture teardown runs; the server sees its parent go."""
    tag = new_tag()
    monkeypatch.setenv(TAG_VAR, tag)
    pytester.makepyfile(
        """
import os

def test_crashes(openresponses_mock, mock_session):
    assert openresponses_mock.pid
    os._exit(3)
"""
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", timeout=120)
    assert result.ret == 3
    assert wait_none_with(tag) == []


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["one process", "xdist -n 2"])
def test_no_server_is_left_after_sigkill_of_pytest(pytester: pytest.Pytester, tmp_path: Path, workers: list) -> None:
    started = tmp_path / "started"
    pytester.makepyfile(
        f"""
import time
from pathlib import Path

def test_waits(openresponses_mock):
    Path({str(started)!r}).joinpath(str(openresponses_mock.pid)).write_text("")
    time.sleep(300)  # killed long before
"""
        + ("\ndef test_waits_too(openresponses_mock):\n    test_waits(openresponses_mock)\n" if workers else "")
    )
    started.mkdir()
    tag = new_tag()
    inner = subprocess.Popen(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *workers],
        cwd=pytester.path,
        env=tagged_env(tag),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        want = 2 if workers else 1
        deadline = time.monotonic() + 120
        while len(list(started.iterdir())) < want:
            assert inner.poll() is None, "the inner pytest ended before its servers started"
            assert time.monotonic() < deadline, "the inner pytest's servers did not start in 120 s"
            time.sleep(0.1)
        pids = {int(p.name) for p in started.iterdir()}
        assert pids <= set(servers_with(tag))
        os.kill(inner.pid, signal.SIGKILL)
        inner.wait(timeout=30)
    finally:
        if inner.poll() is None:
            inner.kill()
            inner.wait()
    assert wait_none_with(tag, timeout=15) == []
