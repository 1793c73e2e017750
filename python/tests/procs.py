"""Finding the server processes a test started, by a tag in their environment (servers inherit
the environment of the pytest that started them). Other servers on the machine are not ours."""

from __future__ import annotations

import os
import time
import uuid
from pathlib import Path
from typing import Dict, List

TAG_VAR = "OPENRESPONSES_MOCK_TEST_TAG"


def new_tag() -> str:
    return uuid.uuid4().hex


def tagged_env(tag: str) -> Dict[str, str]:
    return {**os.environ, TAG_VAR: tag}


def _state(pid: str) -> str:
    stat = Path(f"/proc/{pid}/stat").read_text("latin-1")
    return stat[stat.rindex(")") + 2]


def servers_with(tag: str) -> List[int]:
    """The running (not zombie) node processes whose environment holds the tag."""
    needle = f"{TAG_VAR}={tag}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if needle not in (entry / "environ").read_bytes().split(b"\0"):
                continue
            cmdline = (entry / "cmdline").read_bytes()
            if b"main.js" not in cmdline or _state(entry.name) == "Z":
                continue
        except OSError:
            continue
        found.append(int(entry.name))
    return found


def wait_none_with(tag: str, timeout: float = 10.0) -> List[int]:
    """Waits (up to ``timeout`` s) until no server carries the tag; returns those still there."""
    deadline = time.monotonic() + timeout
    while True:
        left = servers_with(tag)
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.1)
