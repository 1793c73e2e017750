"""``MockServer``: starts ``openresponses-mock serve`` in a process of its own and drives it
over its admin routes (``/__mock/``)."""

from __future__ import annotations

import collections
import json
import os
import queue
import re
import signal
import subprocess
import threading
import urllib.error
import urllib.parse
import urllib.request
import uuid
from typing import Any, Deque, Dict, Iterable, List, Mapping, Optional, Sequence, Union

from ._errors import AdminError, MockServerError, VerifyError
from ._find import find_server

Turn = Dict[str, Any]
Scenario = Union[str, Dict[str, Any]]

#: ``limits()``: a field not given stays as it is (``None`` clears it).
_KEEP: Any = object()

_PAGE = 1000


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def serve_args(options: Mapping[str, Any]) -> List[str]:
    """``serve`` flags for keyword options: ``latency_ms=5`` is ``--latency-ms 5``, ``True`` a bare
    flag, ``False`` its ``--no-`` form, a list one value after another, ``None`` nothing."""
    args: List[str] = []
    for name, value in options.items():
        if value is None:
            continue
        if value is True:
            args.append(_flag(name))
        elif value is False:
            args.append("--no-" + name.replace("_", "-"))
        elif isinstance(value, (list, tuple)):
            for item in value:
                args += [_flag(name), os.fspath(item) if isinstance(item, os.PathLike) else str(item)]
        else:
            args += [_flag(name), os.fspath(value) if isinstance(value, os.PathLike) else str(value)]
    return args


class _Admin:
    """The admin routes, for the whole server (``session`` None) or one session."""

    def __init__(self, url: str, api_key: Optional[str], session: Optional[str], timeout: float) -> None:
        self._url = url
        self._api_key = api_key
        self._session = session
        self._timeout = timeout

    def call(self, method: str, path: str, body: Any = None, query: Optional[Dict[str, Any]] = None) -> Any:
        params = dict(query or {})
        if self._session is not None:
            params["session"] = self._session
        url = f"{self._url}/__mock{path}"
        if params:
            url += "?" + urllib.parse.urlencode(params)
        data = None if body is None else json.dumps(body).encode("utf-8")
        headers = {"accept": "application/json"}
        if data is not None:
            headers["content-type"] = "application/json"
        if self._api_key:
            headers["authorization"] = f"Bearer {self._api_key}"
        request = urllib.request.Request(url, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=self._timeout) as response:
                text = response.read().decode("utf-8")
        except urllib.error.HTTPError as err:
            raw = err.read().decode("utf-8", "replace")
            try:
                parsed: Any = json.loads(raw)
            except ValueError:
                parsed = raw
            message = raw
            if isinstance(parsed, dict) and isinstance(parsed.get("error"), dict):
                message = str(parsed["error"].get("message", raw))
            where = f"{method} /__mock{path}"
            # The server's message often names the route itself.
            text = f"{message} ({err.code})" if message.startswith(where) else f"{where}: {message} ({err.code})"
            raise AdminError(text, err.code, parsed) from None
        except urllib.error.URLError as err:
            raise MockServerError(
                f"{method} /__mock{path}: cannot reach the server at {self._url} ({err.reason})"
            ) from None
        return json.loads(text) if text else None


class _Controls:
    """What a server and a session both do: the journal, ``enqueue``, ``use``, ``reset``, ``verify``, ``limits``."""

    _admin: _Admin

    def requests(self) -> List[Dict[str, Any]]:
        """The journal, oldest first (every session's on the server; a session's own on a session),
        read page by page from ``GET /__mock/requests``."""
        entries: List[Dict[str, Any]] = []
        after: Optional[int] = None
        while True:
            query: Dict[str, Any] = {"limit": _PAGE}
            if after is not None:
                query["after"] = after
            page = self._admin.call("GET", "/requests", query=query)
            entries += page["data"]
            if not page.get("has_more") or page.get("last_seq") is None:
                return entries
            after = page["last_seq"]

    def enqueue(self, *turns: Turn) -> int:
        """One-shot answers, in order, in the scenario file's turn format (``{"steps": [...]}``).
        Returns how many are now queued."""
        return int(self._admin.call("POST", "/queue", {"turns": list(turns)})["pending"])

    def use(self, scenario: Scenario, times: Optional[int] = None) -> str:
        """Answer every following request (or the next ``times``) with ``scenario``: a dict validated
        like a scenario file, or the name of a loaded scenario. Returns its name."""
        body: Dict[str, Any] = {"scenario": scenario}
        if times is not None:
            body["times"] = times
        return str(self._admin.call("POST", "/scenarios", body)["name"])

    def reset(self) -> None:
        """Forget the journal, the controls, the expectations and the limiter's state."""
        self._admin.call("POST", "/reset")

    def expectations(self) -> List[Dict[str, Any]]:
        """Every expectation and its status (``met``, ``unmet``, ``pending``)."""
        return list(self._admin.call("GET", "/verify")["expectations"])

    def verify(self) -> List[Dict[str, Any]]:
        """Raise ``VerifyError`` (an ``AssertionError``) listing each unmet expectation; else return them all."""
        report = self._admin.call("GET", "/verify")
        expectations = list(report["expectations"])
        if not report["ok"]:
            unmet = [e for e in expectations if e.get("status") == "unmet"]
            lines = [f"- {e.get('scenario')} turn {e.get('turn')}: {e.get('message')}" for e in unmet]
            raise VerifyError(f"{len(unmet)} unmet expectation(s):\n" + "\n".join(lines), expectations)
        return expectations

    def limits(self, rpm: Any = _KEEP, tpm: Any = _KEEP, budget_usd: Any = _KEEP) -> Dict[str, Any]:
        """Set rate limits and a budget (``None`` clears one, a field not given stays); with no argument,
        read them. Returns ``GET /__mock/limits``'s answer (``limits`` and the server's ``defaults``)."""
        body = {k: v for k, v in (("rpm", rpm), ("tpm", tpm), ("budgetUsd", budget_usd)) if v is not _KEEP}
        if not body:
            return dict(self._admin.call("GET", "/limits"))
        return dict(self._admin.call("POST", "/limits", body))

    def usage(self) -> Dict[str, Any]:
        """Usage totals: requests, tokens, cost and refusals."""
        return dict(self._admin.call("GET", "/usage"))


class MockSession(_Controls):
    """A session on a running server: requests that send its ``headers`` get their own queue, ``use``,
    journal and stored responses, apart from every other session's."""

    def __init__(self, server: "MockServer", id: str, headers: Optional[Mapping[str, str]] = None) -> None:
        self._server = server
        self.id = id
        #: The headers a client sends (``x-mock-session``, and any given): a client's default headers.
        self.headers: Dict[str, str] = {"x-mock-session": id, **(headers or {})}
        self._admin = _Admin(server.url, server.api_key, id, server.timeout)

    @property
    def base_url(self) -> str:
        return self._server.base_url

    @property
    def url(self) -> str:
        return self._server.url

    def __repr__(self) -> str:
        return f"MockSession(id={self.id!r}, base_url={self.base_url!r})"


class MockServer(_Controls):
    """``openresponses-mock serve`` on a free port, in a process of its own.

    ::

        with MockServer(seed=7) as mock:
            client = OpenAI(base_url=mock.base_url, api_key="test")

    Keyword options are serve's flags (``scenarios``, ``scenario``, ``seed``, ``dialect``,
    ``latency_ms``, ``library=False``, …; see the README's Options); ``args`` adds raw flags.
    The server is found as ``find_server`` says, and stops when this process ends, even by
    SIGKILL (``--exit-with-parent``)."""

    def __init__(
        self,
        *,
        scenarios: Union[None, str, "os.PathLike[str]", Sequence[Union[str, "os.PathLike[str]"]]] = None,
        seed: Optional[int] = None,
        dialect: Optional[str] = None,
        api_key: Optional[str] = None,
        args: Iterable[str] = (),
        env: Optional[Mapping[str, str]] = None,
        cwd: Optional[Union[str, "os.PathLike[str]"]] = None,
        start_timeout: float = 60.0,
        timeout: float = 30.0,
        **options: Any,
    ) -> None:
        if isinstance(scenarios, (str, os.PathLike)):
            scenarios = [scenarios]
        self._options: Dict[str, Any] = {
            "scenarios": list(scenarios) if scenarios is not None else None,
            "seed": seed,
            "dialect": dialect,
            "api_key": api_key,
            **options,
        }
        self._extra = list(args)
        self._env = dict(env) if env is not None else None
        self._cwd = cwd
        self._start_timeout = start_timeout
        self.api_key = api_key
        self.timeout = timeout
        self._process: Optional["subprocess.Popen[bytes]"] = None
        self._url: Optional[str] = None
        self._output: Deque[str] = collections.deque(maxlen=200)
        self._errors: Deque[str] = collections.deque(maxlen=200)
        self._lock = threading.Lock()

    # ------------------------------------------------------------ lifecycle

    def command(self) -> List[str]:
        """The command line that starts the server."""
        env = self._env if self._env is not None else os.environ
        options = {"log": "off", **self._options}
        return [
            *find_server(cwd=self._cwd, env=env),
            "serve",
            "--port",
            str(options.pop("port", 0)),
            "--exit-with-parent",
            *serve_args(options),
            *self._extra,
        ]

    def start(self) -> "MockServer":
        """Start the server; returns once it listens (``base_url`` is set)."""
        with self._lock:
            if self._process is not None:
                return self
            command = self.command()
            # Its own process group (close() stops the whole group); stdin a pipe that
            # closes when this process ends, however it ends (--exit-with-parent watches it).
            process = subprocess.Popen(
                command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=self._env,
                cwd=self._cwd,
                start_new_session=True,
            )
            self._process = process
        first: "queue.Queue[Optional[str]]" = queue.Queue()
        threading.Thread(target=self._read_stdout, args=(process, first), daemon=True).start()
        stderr_reader = threading.Thread(target=self._read_stderr, args=(process,), daemon=True)
        stderr_reader.start()
        try:
            line = first.get(timeout=self._start_timeout)
        except queue.Empty:
            self._stop(process)
            raise MockServerError(
                f"openresponses-mock did not print its URL within {self._start_timeout:g} s: {' '.join(command)}"
                + self._stderr_tail()
            ) from None
        if line is None:
            process.wait(timeout=10)
            # The stderr reader ends with the process's stderr: it has all of it then.
            stderr_reader.join(timeout=5)
            self._process = None
            raise MockServerError(
                f"openresponses-mock exited with code {process.returncode} before it listened: "
                f"{' '.join(command)}" + self._stderr_tail()
            )
        base_url = _base_url_of(line)
        if base_url is None:
            self._stop(process)
            raise MockServerError(f"openresponses-mock printed {line[:200]!r}, not its URL")
        self._url = base_url[: -len("/v1")] if base_url.endswith("/v1") else base_url
        self._admin = _Admin(self._url, self.api_key, None, self.timeout)
        return self

    def _read_stdout(self, process: "subprocess.Popen[bytes]", first: "queue.Queue[Optional[str]]") -> None:
        told = False
        assert process.stdout is not None
        for raw in process.stdout:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            if not told:
                told = True
                first.put(line)
            else:
                self._output.append(line)
        if not told:
            first.put(None)

    def _read_stderr(self, process: "subprocess.Popen[bytes]") -> None:
        assert process.stderr is not None
        for raw in process.stderr:
            self._errors.append(raw.decode("utf-8", "replace").rstrip("\n"))

    def _stderr_tail(self) -> str:
        return ("\n" + "\n".join(self._errors)) if self._errors else ""

    @property
    def output(self) -> List[str]:
        """The last lines the server wrote to stdout after its URL (its log, with ``log="json"`` or ``"pretty"``)."""
        return list(self._output)

    @property
    def pid(self) -> Optional[int]:
        return self._process.pid if self._process is not None else None

    def close(self, timeout: float = 10.0) -> None:
        """Stop the server's process group: SIGTERM, then SIGKILL after ``timeout`` seconds. Safe to call twice."""
        with self._lock:
            process, self._process = self._process, None
            self._url = None
        if process is not None:
            self._stop(process, timeout)

    @staticmethod
    def _stop(process: "subprocess.Popen[bytes]", timeout: float = 10.0) -> None:
        try:
            os.killpg(process.pid, signal.SIGTERM)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            process.wait(timeout=timeout)
        for stream in (process.stdin, process.stdout, process.stderr):
            if stream is not None:
                try:
                    stream.close()
                except OSError:
                    pass

    def __enter__(self) -> "MockServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close(timeout=2.0)
        except Exception:
            pass

    # ------------------------------------------------------------ the handle

    def _live_url(self) -> str:
        if self._url is None:
            raise MockServerError("the server is not running: call start() or use `with MockServer() as mock:`")
        return self._url

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT``."""
        return self._live_url()

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT/v1``: give it to any SDK."""
        return self._live_url() + "/v1"

    @property
    def port(self) -> int:
        return int(urllib.parse.urlsplit(self._live_url()).port or 0)

    def session(self, id: Optional[str] = None, headers: Optional[Mapping[str, str]] = None) -> MockSession:
        """A session: its own queue, ``use``, journal and stored responses (a fresh id unless given)."""
        self._live_url()
        return MockSession(self, id if id is not None else f"py-{uuid.uuid4().hex[:16]}", headers)

    def __repr__(self) -> str:
        return f"MockServer(url={self._url!r}, pid={self.pid})"


def _base_url_of(line: str) -> Optional[str]:
    """The base URL in serve's first line: ``openresponses-mock listening on URL``, or ``--log json``'s start object."""
    found = re.search(r"listening on (https?://[^\s\x1b]+)", line)
    if found:
        return found.group(1)
    if line.startswith("{"):
        try:
            start = json.loads(line)
        except ValueError:
            return None
        if isinstance(start, dict) and isinstance(start.get("baseURL"), str):
            return str(start["baseURL"])
    return None
