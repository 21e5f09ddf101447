"""Postconditions: what ``--done-when`` accepts, and what a check's run means for its task.

A check is ``probe:MODULE:FUNC`` (an allowlisted probe: it passes when it returns a truthy
value) or a command line, split as a shell would split it and run without a shell in the
role's workdir (it passes when it exits 0). A run that cannot finish (a timeout, a crash, a
command that will not start) is neither pass nor fail: it is retried and shown, and never
closes the task (docs/contract.md, "Postconditions").
"""

from __future__ import annotations

import shlex
from typing import Any, NamedTuple

from deskd.errors import InvalidValue

PROBE = "probe:"
DEFAULT_TIMEOUT_S = 300
OUTPUT_CAP = 2000
"""A failed check's output as the prompt and the task's history show it: its last characters,
where a build or a test run says what broke."""
RETRY_S = (60, 120, 300, 600)
"""Waits before running again a check that could not run (the last one repeats)."""


class CheckRun(NamedTuple):
    """One run's verdict: ``passed`` True or False, or None when it could not run."""

    passed: bool | None
    output: str


def parse_check(spec: str, allowlist: list[str]) -> tuple[str, list[str]]:
    """(``probe``, [MODULE:FUNC]) or (``command``, argv); refused with what is wrong."""
    text = spec.strip()
    if text.startswith(PROBE):
        from deskd.core.wakehooks import check_probe_target  # its cron rules: only for a probe

        return "probe", [check_probe_target(text[len(PROBE) :], allowlist, what="--done-when")]
    try:
        argv = shlex.split(text)
    except ValueError as exc:
        raise InvalidValue(
            "--done-when", spec, f"a command line a shell could split: {exc}"
        ) from None
    if not argv:
        raise InvalidValue("--done-when", spec, "probe:MODULE:FUNC or a command, like 'make test'")
    return "command", argv


def probe_verdict(value: Any, error: str | None) -> CheckRun:
    """A probe check: its value truthy passes, falsy fails; an error means it did not run."""
    if error is not None:
        return CheckRun(None, error)
    return CheckRun(bool(value), f"the probe returned {value!r}")


def command_verdict(exit_code: int | None, output: str, error: str | None) -> CheckRun:
    if error is not None or exit_code is None:
        return CheckRun(None, error or "it did not finish")
    return CheckRun(exit_code == 0, f"exit {exit_code}\n{output}".rstrip())


def trimmed(output: str) -> str:
    """The end of ``output``, at most ``OUTPUT_CAP`` characters, marked when cut."""
    text = output.strip()
    return text if len(text) <= OUTPUT_CAP else "…" + text[-OUTPUT_CAP:]


def retry_after_s(errors: int) -> int:
    """How long to wait before the ``errors``-th run that could not run is tried again."""
    return RETRY_S[min(errors, len(RETRY_S)) - 1]
