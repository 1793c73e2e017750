"""A well-behaved command-line client of the Responses API, on the official `openai` SDK.

    python examples/exam/good_client.py "What is the weather in Paris?"

The Python twin of good-client.mjs (see client.mjs): the same behaviours.
It sends the prompt (argv[1], or OPENRESPONSES_MOCK_PROMPT), runs the tool loop until the
model answers, prints the answer on stdout and exits 0; on an error it cannot recover
from, it prints one line on stderr and exits 1. `OpenAI()` reads OPENAI_BASE_URL and
OPENAI_API_KEY, so `openresponses-mock exam -- python examples/exam/good_client.py` can
point it at the mock.

- streams, and ignores event types and output items it does not know;
- offers one function tool and answers every call with its `call_id`, all the outputs of
  one response in one request;
- sends `store: false` and replays the conversation itself, reasoning items included
  (with their `encrypted_content`);
- retries: the SDK retries 429, 5xx and connection errors before a stream starts
  (honouring `retry-after`); a stream that ends without its terminal event is sent
  again, twice at most;
- `response.failed` or an `error` event, an API error: the message on stderr, exit 1;
- a refusal: its text on stdout (and a note on stderr), exit 0;
- `response.incomplete`: the text it has on stdout, a note on stderr, exit 0;
- no bytes for 10 s (heartbeats count: the timeout is httpx's read timeout): exit 1.
"""

import json
import os
import sys
import time

import openai
from openai import OpenAI

IDLE_TIMEOUT_S = 10.0
STREAM_RETRIES = 2
MAX_TURNS = 10
MODEL = os.environ.get("OPENAI_MODEL", "gpt-5-mini")

TOOLS = [
    {
        "type": "function",
        "name": "get_weather",
        "description": "Get the current weather in a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string", "description": "The city, e.g. Paris"}},
            "required": ["city"],
            "additionalProperties": False,
        },
        "strict": True,
    }
]


class Fatal(Exception):
    """An error whose message is all the user needs (no traceback)."""


def run_tool(call):
    """Runs a function call locally; the result goes back to the model as text."""
    if call["name"] != "get_weather":
        return json.dumps({"error": f"unknown tool {call['name']}"})
    try:
        args = json.loads(call["arguments"])
    except ValueError:
        return json.dumps({"error": "arguments are not valid JSON"})
    return json.dumps({"city": args.get("city"), "temperature_c": 18, "conditions": "sunny"})


def as_dict(model):
    """An SDK object as the JSON the server sent. (An item of a type the SDK does not know,
    such as a vendor's `acme:x`, would make pydantic warn: it is kept as it came.)"""
    return model.to_dict(warnings=False)


def stream_once(client, request):
    """Streams one request to its end. Returns (response, None) with the terminal event's
    response (a dict), or (None, why) when the stream ended without one (it was cut)."""
    # The SDK retries errors before the stream starts; an APIError raised here is final.
    stream = client.responses.create(**request)
    response = None
    try:
        # Read to the end of the stream (`[DONE]` in some dialects), not just the terminal event.
        for event in stream:
            kind = event.type
            if kind in ("response.completed", "response.incomplete", "response.failed"):
                response = as_dict(event.response)
            elif kind == "error":  # the SDK raises most error events itself (below)
                raise Fatal(f"the stream failed: {getattr(event, 'message', None) or as_dict(event)}")
            # Anything else (text deltas, vendor `acme:x` events, future events): ignored here;
            # the text is read from the terminal event's response.
    except openai.APITimeoutError:
        raise Fatal(f"no data for {IDLE_TIMEOUT_S:g} s: giving up")
    except openai.APIConnectionError as err:
        if response is None:
            return None, f"connection lost: {err.__cause__ or err}"
    except openai.APIStatusError:
        raise
    except openai.APIError as err:  # an `error` event: the stream failed
        raise Fatal(f"the stream failed: {err.message}")
    finally:
        stream.close()
    return (response, None) if response is not None else (None, "the stream ended")


def stream_with_retries(client, request):
    """Streams a request; sends it again (at most STREAM_RETRIES times) when it is cut."""
    for attempt in range(STREAM_RETRIES + 1):
        response, why = stream_once(client, request)
        if response is not None:
            return response
        if attempt == STREAM_RETRIES:
            raise Fatal(f"the stream ended before its last event ({why}), {attempt + 1} tries: giving up")
        print(f"warning: the stream ended before its last event ({why}); retrying", file=sys.stderr)
        time.sleep(0.5 * 2**attempt)


def print_answer(response):
    """Prints the text of a finished response (and notes a refusal or an incomplete answer)."""
    text, refusal = "", ""
    for item in response["output"]:
        if item.get("type") != "message":  # reasoning, vendor items, …
            continue
        for part in item.get("content", []):
            if part.get("type") == "output_text":
                text += part["text"]
            elif part.get("type") == "refusal":
                refusal += part["refusal"]
    if refusal:
        print("note: the model refused", file=sys.stderr)
    if response["status"] == "incomplete":
        # Our choice: the partial answer is still an answer (exit 0), with a note on stderr.
        reason = (response.get("incomplete_details") or {}).get("reason", "unknown reason")
        print(f"note: the answer was cut short ({reason})", file=sys.stderr)
    print(text or refusal)
    return 0


def main():
    prompt = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("OPENRESPONSES_MOCK_PROMPT")
    if not prompt:
        print("usage: good_client.py PROMPT (or set OPENRESPONSES_MOCK_PROMPT)", file=sys.stderr)
        return 2
    # max_retries: the SDK's own retries (429 after retry-after, 408, 409, 5xx, connection
    # errors). timeout: httpx's, per read: a stream silent that long raises a timeout.
    client = OpenAI(max_retries=2, timeout=IDLE_TIMEOUT_S)
    try:
        # store: False, so the conversation lives here: each request sends all of it.
        history = [{"role": "user", "content": prompt}]
        for _ in range(MAX_TURNS):
            response = stream_with_retries(
                client,
                {
                    "model": MODEL,
                    "input": history,
                    "tools": TOOLS,
                    "store": False,
                    "include": ["reasoning.encrypted_content"],  # so reasoning can be sent back
                    "stream": True,
                },
            )
            if response["status"] == "failed":
                raise Fatal(f"the response failed: {(response.get('error') or {}).get('message', 'no message')}")
            calls = [item for item in response["output"] if item.get("type") == "function_call"]
            if not calls or response["status"] == "incomplete":
                return print_answer(response)
            # Replay: what we sent, every output item (reasoning included), one output per call.
            outputs = [
                {"type": "function_call_output", "call_id": call["call_id"], "output": run_tool(call)}
                for call in calls
            ]
            history = history + response["output"] + outputs
        raise Fatal(f"no answer after {MAX_TURNS} turns")
    except openai.APIStatusError as err:
        # An HTTP error, after the SDK's retries: its status and the server's own message.
        message = err.body.get("message") if isinstance(err.body, dict) else None
        print(f"error: {err.status_code} {message or err.message}", file=sys.stderr)
        return 1
    except (Fatal, openai.APIError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
