"""The `openai` Python SDK against the server, through the plugin's fixtures: a two-turn tool
loop, with `responses.create` and with `responses.stream`."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request

import pytest
from openai import AsyncOpenAI, OpenAI

from openresponses_mock import AsyncMockServer, MockServer, MockServerError, MockSession

TOOLS = [
    {
        "type": "function",
        "name": "get_weather",
        "description": "The weather in a city.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    }
]

TURNS = (
    {"steps": [{"type": "function_call", "name": "get_weather", "arguments": {"city": "Paris"}, "call_id": "call_1"}]},
    {"steps": [{"type": "message", "text": "It is sunny in Paris."}]},
)


def client_for(mock_session: MockSession) -> OpenAI:
    return OpenAI(base_url=mock_session.base_url, api_key="test", default_headers=mock_session.headers, max_retries=0)


def test_a_tool_loop_with_create(mock_session: MockSession) -> None:
    mock_session.enqueue(*TURNS)
    client = client_for(mock_session)
    first = client.responses.create(model="m", input="Weather in Paris?", tools=TOOLS)
    calls = [item for item in first.output if item.type == "function_call"]
    assert [(c.name, json.loads(c.arguments), c.call_id) for c in calls] == [
        ("get_weather", {"city": "Paris"}, "call_1")
    ]
    output = {"type": "function_call_output", "call_id": "call_1", "output": "sunny"}
    second = client.responses.create(model="m", previous_response_id=first.id, input=[output], tools=TOOLS)
    assert second.output_text == "It is sunny in Paris."
    bodies = [entry["body"] for entry in mock_session.requests()]
    assert bodies == [
        {"model": "m", "input": "Weather in Paris?", "tools": TOOLS},
        {"model": "m", "previous_response_id": first.id, "input": [output], "tools": TOOLS},
    ]


def test_a_tool_loop_with_stream(mock_session: MockSession) -> None:
    mock_session.enqueue(*TURNS)
    client = client_for(mock_session)
    with client.responses.stream(model="m", input="Weather in Paris?", tools=TOOLS) as stream:
        kinds = [event.type for event in stream]
        first = stream.get_final_response()
    assert kinds[0] == "response.created" and kinds[-1] == "response.completed"
    assert "response.function_call_arguments.delta" in kinds
    call = next(item for item in first.output if item.type == "function_call")
    assert (call.name, json.loads(call.arguments)) == ("get_weather", {"city": "Paris"})
    output = {"type": "function_call_output", "call_id": call.call_id, "output": "sunny"}
    deltas = []
    with client.responses.stream(model="m", previous_response_id=first.id, input=[output], tools=TOOLS) as stream:
        for event in stream:
            if event.type == "response.output_text.delta":
                deltas.append(event.delta)
        second = stream.get_final_response()
    assert "".join(deltas) == second.output_text == "It is sunny in Paris."
    entries = mock_session.requests()
    assert [(e["method"], e["path"], e["status"], e["streamed"], e["reason"], e["outcome"]) for e in entries] == [
        ("POST", "/v1/responses", 200, True, "queue", "completed"),
        ("POST", "/v1/responses", 200, True, "queue", "completed"),
    ]


@pytest.mark.openresponses_mock(scenario="tool-call", dialect="openai", seed=5)
def test_the_marker_sets_the_scenario_dialect_and_seed(mock_session: MockSession) -> None:
    assert mock_session.headers["x-mock-scenario"] == "tool-call"
    client = client_for(mock_session)
    res = client.responses.create(model="m", input="hi", tools=TOOLS)
    assert any(item.type == "function_call" for item in res.output)
    [entry] = mock_session.requests()
    assert (entry["scenario"], entry["reason"]) == ("tool-call", "header")
    assert entry["headers"]["x-mock-dialect"] == "openai" and entry["headers"]["x-mock-seed"] == "5"
    # The same seed gives the same answer; another seed (most likely) another.
    again = client.responses.create(model="m", input="hi", tools=TOOLS)
    assert [o.model_dump(exclude={"id", "call_id"}) for o in again.output] == [
        o.model_dump(exclude={"id", "call_id"}) for o in res.output
    ]


@pytest.mark.openresponses_mock(
    scenario={"name": "scripted-here", "turns": [{"steps": [{"type": "message", "text": "From the marker."}]}]}
)
def test_the_marker_takes_a_scenario_dict(mock_session: MockSession) -> None:
    res = client_for(mock_session).responses.create(model="m", input="hi")
    assert res.output_text == "From the marker."
    assert mock_session.requests()[0]["scenario"] == "scripted-here"


@pytest.mark.openresponses_mock(options={"seed": 99, "library": False})
def test_marker_options_give_a_server_of_their_own(mock_session: MockSession, openresponses_mock: MockServer) -> None:
    assert mock_session.base_url != openresponses_mock.base_url
    client = client_for(mock_session)
    with pytest.raises(Exception) as failed:
        client.responses.create(model="m", input="hi", extra_headers={"x-mock-scenario": "tool-call"})
    # No library: the shipped scenario is unknown to this server.
    assert "unknown_scenario" in str(failed.value)


def test_async_mock_server_with_async_openai() -> None:
    async def main() -> None:
        async with AsyncMockServer(seed=1) as mock:
            session = mock.session()
            await session.enqueue(*TURNS)
            client = AsyncOpenAI(base_url=mock.base_url, api_key="test", default_headers=session.headers, max_retries=0)
            first = await client.responses.create(model="m", input="Weather?", tools=TOOLS)
            call = next(item for item in first.output if item.type == "function_call")
            output = {"type": "function_call_output", "call_id": call.call_id, "output": "sunny"}
            second = await client.responses.create(model="m", previous_response_id=first.id, input=[output])
            assert second.output_text == "It is sunny in Paris."
            assert len(await session.requests()) == 2
            assert len(await mock.requests()) == 2
            await session.reset()
            assert await session.requests() == []
            await client.close()
            url = mock.url
        # Closed: the port answers no more.
        with pytest.raises(urllib.error.URLError):
            urllib.request.urlopen(f"{url}/health", timeout=5)
        with pytest.raises(MockServerError, match="not running"):
            _ = mock.base_url

    asyncio.run(main())
