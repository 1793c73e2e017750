"""Finding the server to run, and a Node.js to run it with.

In order:

1. ``OPENRESPONSES_MOCK_BIN``: the ``openresponses-mock`` command (its ``dist/cli/main.js``,
   or any executable that takes its arguments);
2. ``node_modules/.bin/openresponses-mock`` in the current directory or a directory above;
3. the copy bundled inside this package by ``npm run build:python`` (``_node/``).

A JavaScript file is run with the ``node`` found on PATH, which must be Node.js 20.19 or
later (``^20.19.0 || ^22.12.0 || >=23``, the npm package's ``engines``).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Mapping, Optional, Sequence, Tuple, Union

from ._errors import MockServerError

#: What the Node package's ``engines`` says, in words.
NODE_NEEDED = "Node.js 20.19 or later (^20.19.0, ^22.12.0 or >=23)"

#: The server bundled inside this package (``npm run build:python``), absent until built.
BUNDLED = Path(__file__).resolve().parent / "_node"

ENV_BIN = "OPENRESPONSES_MOCK_BIN"


class NodeNotFoundError(MockServerError):
    """No ``node`` on PATH, or one too old to run the server."""


class ServerNotFoundError(MockServerError):
    """None of the places the server is looked for holds it."""


def node_version_ok(version: Tuple[int, int, int]) -> bool:
    major, minor, _ = version
    return (major == 20 and minor >= 19) or (major == 22 and minor >= 12) or major >= 23


def find_node(env: Optional[Mapping[str, str]] = None) -> str:
    """The ``node`` on PATH (of ``env``, else this process's), checked to be recent enough."""
    path = (env if env is not None else os.environ).get("PATH", os.defpath)
    node = shutil.which("node", path=path)
    if node is None:
        raise NodeNotFoundError(
            f"openresponses-mock runs on Node.js, and there is no `node` on PATH. Install {NODE_NEEDED} "
            "(https://nodejs.org/ or your system's package manager) and make sure `node` is on PATH."
        )
    try:
        out = subprocess.run(
            [node, "--version"], capture_output=True, text=True, timeout=30, check=False
        ).stdout.strip()
    except (OSError, subprocess.TimeoutExpired) as err:
        raise NodeNotFoundError(
            f"cannot run {node} --version ({err}); openresponses-mock needs {NODE_NEEDED}."
        ) from err
    match = re.match(r"^v?(\d+)\.(\d+)\.(\d+)", out)
    if match is None:
        raise NodeNotFoundError(
            f"{node} --version printed {out[:80]!r}, not a Node.js version; openresponses-mock needs {NODE_NEEDED}."
        )
    found = (int(match.group(1)), int(match.group(2)), int(match.group(3)))
    if not node_version_ok(found):
        raise NodeNotFoundError(
            f"found Node.js {'.'.join(map(str, found))} ({node}), and openresponses-mock needs {NODE_NEEDED}. "
            "Install a newer Node.js and put it first on PATH."
        )
    return node


def _runs_on_node(file: Path) -> bool:
    """Whether ``file`` is a JavaScript file (by its extension or a ``node`` shebang)."""
    if file.suffix in (".js", ".mjs", ".cjs"):
        return True
    try:
        with open(file, "rb") as f:
            first = f.readline(200)
    except OSError:
        return False
    return first.startswith(b"#!") and b"node" in first


def _command(file: Path, env: Optional[Mapping[str, str]]) -> Sequence[str]:
    real = file.resolve()
    if _runs_on_node(real):
        return [find_node(env), str(real)]
    return [str(file)]


def find_server(
    cwd: Union[str, "os.PathLike[str]", None] = None,
    env: Optional[Mapping[str, str]] = None,
    bundled: Optional[Path] = None,
) -> Sequence[str]:
    """The command that runs ``openresponses-mock`` (before its arguments)."""
    environ = env if env is not None else os.environ
    given = environ.get(ENV_BIN)
    if given:
        file = Path(given)
        if not file.exists():
            raise ServerNotFoundError(f"{ENV_BIN}={given}: no such file.")
        return _command(file, env)
    here = Path(cwd if cwd is not None else os.getcwd()).resolve()
    for folder in (here, *here.parents):
        candidate = folder / "node_modules" / ".bin" / "openresponses-mock"
        if candidate.exists():
            return _command(candidate, env)
    main = (bundled if bundled is not None else BUNDLED) / "dist" / "cli" / "main.js"
    if main.exists():
        return [find_node(env), str(main)]
    raise ServerNotFoundError(
        "cannot find the openresponses-mock server: no OPENRESPONSES_MOCK_BIN, no "
        f"node_modules/.bin/openresponses-mock in {here} or above, and this installation of the Python "
        "package bundles no server. Install one with `npm install --save-dev openresponses-mock`, "
        f"or set {ENV_BIN} to its dist/cli/main.js, or install a build of the Python package that "
        "bundles it (built with `npm run build:python`)."
    )
