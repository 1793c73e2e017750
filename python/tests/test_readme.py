"""The README's pytest example (the ```python block of "### pytest") runs, as a test file of
its own in an inner pytest, and passes, alone and under `pytest -n 2`."""

from __future__ import annotations

import re

import pytest

from conftest import REPO


def readme_python_blocks() -> list:
    text = (REPO / "README.md").read_text("utf-8")
    section = text[text.index("\n### pytest\n") :]
    section = section[: section.index("\n## ")]
    return re.findall(r"```python\n(.*?)```", section, re.S)


@pytest.mark.parametrize("args", [[], ["-n", "2"]], ids=["one process", "xdist -n 2"])
def test_the_readme_pytest_example_passes(pytester: pytest.Pytester, args: list) -> None:
    blocks = readme_python_blocks()
    assert len(blocks) == 1
    pytester.makepyfile(test_weather=blocks[0])
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", *args, timeout=180)
    result.assert_outcomes(passed=1)
