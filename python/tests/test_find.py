"""Finding the server (OPENRESPONSES_MOCK_BIN, node_modules/.bin above the current directory,
the bundled copy) and Node.js (missing or too old: a plain error naming what is needed)."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import urllib.request
from pathlib import Path

import pytest

from conftest import CLI, REPO
from openresponses_mock import MockServer, NodeNotFoundError, ServerNotFoundError, find_server
from openresponses_mock import _find

NODE = shutil.which("node")


def env_without_bin(**extra: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "OPENRESPONSES_MOCK_BIN"}
    env.update(extra)
    return env


def fake_node(folder: Path, version: str) -> Path:
    """A `node` that says it is `version`."""
    folder.mkdir(parents=True, exist_ok=True)
    node = folder / "node"
    node.write_text(f"#!/bin/sh\necho {version}\n")
    node.chmod(node.stat().st_mode | stat.S_IXUSR)
    return folder


def linked_bin(root: Path) -> Path:
    """root/node_modules/.bin/openresponses-mock, a link to the repository's CLI (as npm makes it)."""
    bin_dir = root / "node_modules" / ".bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "openresponses-mock").symlink_to(CLI)
    return bin_dir / "openresponses-mock"


def test_openresponses_mock_bin_comes_first(tmp_path: Path) -> None:
    linked_bin(tmp_path)
    env = env_without_bin(OPENRESPONSES_MOCK_BIN=str(CLI))
    assert find_server(cwd=tmp_path, env=env) == [NODE, str(CLI)]
    wrapper = tmp_path / "wrapper.sh"
    wrapper.write_text('#!/bin/sh\nexec node "$@"\n')
    assert find_server(cwd=tmp_path, env=env_without_bin(OPENRESPONSES_MOCK_BIN=str(wrapper))) == [str(wrapper)]
    with pytest.raises(ServerNotFoundError, match="OPENRESPONSES_MOCK_BIN=/nowhere: no such file"):
        find_server(env=env_without_bin(OPENRESPONSES_MOCK_BIN="/nowhere"))


def test_then_node_modules_bin_here_or_above(tmp_path: Path) -> None:
    linked_bin(tmp_path)
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    assert find_server(cwd=deep, env=env_without_bin(), bundled=tmp_path / "none") == [NODE, str(CLI)]


def test_then_the_bundled_copy_else_a_plain_error(tmp_path: Path) -> None:
    bundled = tmp_path / "_node"
    with pytest.raises(ServerNotFoundError, match="npm install --save-dev openresponses-mock"):
        find_server(cwd=tmp_path, env=env_without_bin(), bundled=bundled)
    (bundled / "dist" / "cli").mkdir(parents=True)
    (bundled / "dist" / "cli" / "main.js").write_text("")
    assert find_server(cwd=tmp_path, env=env_without_bin(), bundled=bundled) == [
        NODE,
        str(bundled / "dist" / "cli" / "main.js"),
    ]


def test_without_node_on_path_the_error_says_what_to_install(tmp_path: Path) -> None:
    env = env_without_bin(OPENRESPONSES_MOCK_BIN=str(CLI), PATH=str(tmp_path))
    with pytest.raises(NodeNotFoundError) as failed:
        MockServer(env=env).start()
    message = str(failed.value)
    assert "no `node` on PATH" in message and "Node.js 20.19 or later" in message


@pytest.mark.parametrize(
    "version, ok",
    [
        ("v18.20.4", False),
        ("v20.18.3", False),
        ("v22.11.0", False),
        ("v20.19.0", True),
        ("v22.12.0", True),
        ("v24.1.0", True),
    ],
)
def test_node_too_old_names_the_version_found_and_needed(tmp_path: Path, version: str, ok: bool) -> None:
    env = env_without_bin(PATH=str(fake_node(tmp_path / "bin", version)))
    if ok:
        assert _find.find_node(env) == str(tmp_path / "bin" / "node")
        return
    with pytest.raises(NodeNotFoundError) as failed:
        _find.find_node(env)
    assert f"found Node.js {version[1:]}" in str(failed.value)
    assert "needs Node.js 20.19 or later (^20.19.0, ^22.12.0 or >=23)" in str(failed.value)


def test_a_server_that_fails_to_start_says_why(tmp_path: Path) -> None:
    with pytest.raises(Exception) as failed:
        MockServer(dialect="klingon").start()
    assert "exited with code 1 before it listened" in str(failed.value)
    assert "--dialect" in str(failed.value)


def test_the_bundle_of_npm_run_build_python_runs_on_its_own(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """build-python.mjs (what `npm run build:python` runs after the build) into a temporary folder:
    the server runs from it with no node_modules above it."""
    bundled = tmp_path / "_node"
    subprocess.run(
        ["node", str(REPO / "scripts" / "build-python.mjs"), "--out", str(bundled)], check=True, cwd=REPO, timeout=300
    )
    assert json.loads((bundled / "package.json").read_text())["name"] == "openresponses-mock"
    assert (bundled / "scenarios").is_dir() and (bundled / "node_modules" / "koa").is_dir()
    assert not (bundled / "node_modules" / "vitest").exists()
    monkeypatch.setattr(_find, "BUNDLED", bundled)
    monkeypatch.delenv("OPENRESPONSES_MOCK_BIN")
    work = tmp_path / "work"
    work.mkdir()
    with MockServer(cwd=work) as mock:
        assert mock.command()[1] == str(bundled / "dist" / "cli" / "main.js")
        request = urllib.request.Request(
            mock.base_url + "/responses",
            data=json.dumps({"model": "m", "input": "hi"}).encode(),
            headers={"content-type": "application/json", "x-mock-scenario": "tool-call"},
        )
        with urllib.request.urlopen(request, timeout=30) as res:
            assert json.load(res)["status"] == "completed"
