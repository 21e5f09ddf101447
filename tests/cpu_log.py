"""``DESKD_TEST_CPU=FILE``: each test's CPU seconds, appended to FILE (a hook tests/conftest.py
imports): where the suite's CPU goes, a figure the machine's load moves far less than wall
time (docs/performance.md, "Where the CPU goes").

    DESKD_TEST_CPU=/tmp/cpu.tsv CI=true .venv/bin/pytest -n 2
    sort -rn /tmp/cpu.tsv | head      # CPU s, wall s, test id
"""

from __future__ import annotations

import os
import resource
import time
from collections.abc import Iterator

import pytest


def _cpu_s() -> float:
    """User + system CPU of this process and every child it reaped (theirs include their own
    reaped children); detached processes nobody waits for are not counted."""
    own, kids = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Iterator[None]:
    """With ``DESKD_TEST_CPU=FILE``, append each test's CPU seconds (setup, call and teardown,
    as ``_cpu_s`` counts them) and wall seconds to FILE: where the suite's CPU goes, a figure
    the machine's load moves far less than wall time (docs/performance.md)."""
    log = os.environ.get("DESKD_TEST_CPU")
    if not log:
        yield
        return
    cpu, wall = _cpu_s(), time.monotonic()
    yield
    line = f"{_cpu_s() - cpu:.3f}\t{time.monotonic() - wall:.3f}\t{item.nodeid}\n"
    with open(log, "a", encoding="utf-8") as out:  # one short append per test: atomic
        out.write(line)
