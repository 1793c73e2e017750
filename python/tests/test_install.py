"""The package installed the way the README says, in a fresh virtual environment: the server
bundled by build:python, `pip install` of python/, and the README's pytest example run there,
alone and with `-n 2`, from a folder with no node_modules above and no OPENRESPONSES_MOCK_BIN."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import REPO
from procs import TAG_VAR, new_tag, wait_none_with
from test_readme import readme_python_blocks


def test_a_fresh_virtual_environment_runs_the_readme_example(tmp_path: Path) -> None:
    # A copy of python/ (the clone's own stays as it is), with the server bundled into it.
    package = tmp_path / "python"
    shutil.copytree(
        REPO / "python",
        package,
        ignore=shutil.ignore_patterns("_node", "*.egg-info", "__pycache__", "build", ".pytest_cache", "tests"),
    )
    subprocess.run(
        ["node", str(REPO / "scripts" / "build-python.mjs"), "--out", str(package / "src" / "openresponses_mock" / "_node")],
        check=True,
        cwd=REPO,
        timeout=300,
    )
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python = str(venv / "bin" / "python")
    # What the README says, plus what the example needs (the versions of the test extra).
    subprocess.run(
        [python, "-m", "pip", "install", "-q", str(package), "openai==3.22.1", "pytest==9.1.1", "pytest-xdist==3.8.0"],
        check=True,
        timeout=600,
        # One retry, not five with backoff: an index in pip's configuration that cannot be reached
        # (a machine with only a local index) would cost minutes.
        env={**os.environ, "PIP_RETRIES": os.environ.get("PIP_RETRIES", "1")},
    )
    project = tmp_path / "project"
    project.mkdir()
    (project / "test_weather.py").write_text(readme_python_blocks()[0])
    tag = new_tag()
    env = {k: v for k, v in os.environ.items() if k != "OPENRESPONSES_MOCK_BIN"}
    env[TAG_VAR] = tag
    for args in ([], ["-n", "2"]):
        run = subprocess.run(
            [python, "-m", "pytest", "-p", "no:cacheprovider", *args],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert run.returncode == 0, run.stdout + run.stderr
        assert "1 passed" in run.stdout
    assert wait_none_with(tag) == []
    # It ran the bundled copy, inside the fresh environment.
    found = subprocess.run(
        [python, "-c", "from openresponses_mock import find_server; print(find_server()[-1])"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert found.startswith(str(venv)) and found.endswith(os.path.join("_node", "dist", "cli", "main.js"))
