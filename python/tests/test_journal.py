"""The journal and the controls over the admin routes: paging, sessions apart, reset, verify and limits."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any, Dict, Mapping

import pytest

from openresponses_mock import AdminError, MockServer, MockSession, VerifyError
from openresponses_mock import _mock


def post(base_url: str, body: Dict[str, Any], headers: Mapping[str, str] = {}) -> Dict[str, Any]:
    request = urllib.request.Request(
        f"{base_url}/responses",
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json", **headers},
    )
    with urllib.request.urlopen(request, timeout=30) as res:
        return json.load(res)


def test_requests_reads_every_page(openresponses_mock: MockServer, monkeypatch: pytest.MonkeyPatch) -> None:
    session = openresponses_mock.session()
    for i in range(5):
        post(session.base_url, {"model": "m", "input": f"message {i}"}, session.headers)
    monkeypatch.setattr(_mock, "_PAGE", 2)
    entries = session.requests()
    assert [e["body"]["input"] for e in entries] == [f"message {i}" for i in range(5)]
    assert [e["seq"] for e in entries] == sorted(e["seq"] for e in entries)
    assert all(e["session"] == session.id and e["outcome"] == "completed" for e in entries)


def test_sessions_keep_apart(openresponses_mock: MockServer) -> None:
    a, b = openresponses_mock.session(), openresponses_mock.session("mine")
    assert b.id == "mine" and b.headers == {"x-mock-session": "mine"} and a.id != b.id
    a.enqueue({"steps": [{"type": "message", "text": "for a"}]})
    b.use({"name": "always-b", "turns": [{"steps": [{"type": "message", "text": "for b"}]}]}, times=2)
    assert post(b.base_url, {"model": "m", "input": "x"}, b.headers)["output"][0]["content"][0]["text"] == "for b"
    assert post(a.base_url, {"model": "m", "input": "x"}, a.headers)["output"][0]["content"][0]["text"] == "for a"
    assert [e["scenario"] for e in a.requests()] == ["queued-1"] or [e["reason"] for e in a.requests()] == ["queue"]
    assert [(e["scenario"], e["reason"]) for e in b.requests()] == [("always-b", "use")]
    everyone = {e["session"] for e in openresponses_mock.requests()}
    assert {a.id, b.id} <= everyone
    a.reset()
    assert a.requests() == [] and len(b.requests()) == 1
    b.reset()


def test_a_bad_turn_is_an_admin_error_with_the_servers_words(mock_session: MockSession) -> None:
    with pytest.raises(AdminError) as failed:
        mock_session.enqueue({"steps": [{"type": "nonsense"}]})
    assert failed.value.status == 400
    assert str(failed.value).startswith("POST /__mock/queue: turns: $[0].steps[0]")
    assert str(failed.value).endswith("(400)")
    with pytest.raises(AdminError, match="no loaded scenario is named 'tool-cal'. Did you mean 'tool-call'"):
        mock_session.use("tool-cal")


def test_use_takes_a_loaded_scenarios_name(mock_session: MockSession) -> None:
    assert mock_session.use("refusal", times=1) == "refusal"
    body = post(mock_session.base_url, {"model": "m", "input": "hi"}, mock_session.headers)
    assert [part["type"] for part in body["output"][0]["content"]] == ["refusal"]
    [entry] = mock_session.requests()
    assert (entry["scenario"], entry["reason"]) == ("refusal", "use")


def test_verify_and_expectations(mock_session: MockSession) -> None:
    mock_session.enqueue(
        {
            "expect": {"tool_outputs": True},
            "steps": [{"type": "function_call", "name": "f", "arguments": {}, "call_id": "call_1"}],
        },
        {"steps": [{"type": "message", "text": "ok"}]},
    )
    first = post(mock_session.base_url, {"model": "m", "input": "hi"}, mock_session.headers)
    [pending] = mock_session.expectations()
    assert pending["status"] == "pending"
    # The next request continues the conversation without the tool's output.
    post(
        mock_session.base_url,
        {"model": "m", "previous_response_id": first["id"], "input": "and?"},
        mock_session.headers,
    )
    [unmet] = mock_session.expectations()
    assert unmet["status"] == "unmet"
    with pytest.raises(VerifyError, match="1 unmet expectation") as failed:
        mock_session.verify()
    assert failed.value.expectations[0]["status"] == "unmet"
    mock_session.reset()
    assert mock_session.verify() == []


def test_limits(mock_session: MockSession) -> None:
    assert mock_session.limits()["limits"] == {"rpm": None, "tpm": None, "budgetUsd": None}
    assert mock_session.limits(rpm=1)["limits"]["rpm"] == 1
    post(mock_session.base_url, {"model": "m", "input": "hi"}, mock_session.headers)
    with pytest.raises(urllib.error.HTTPError) as refused:
        post(mock_session.base_url, {"model": "m", "input": "hi"}, mock_session.headers)
    assert refused.value.code == 429
    assert mock_session.limits(rpm=None)["limits"]["rpm"] is None
    assert mock_session.usage()["session"] == mock_session.id
