"""Fuzz the session hook with hostile stdin: malformed, binary, huge, deeply nested, and
well-formed payloads with hostile fields. It never exits non-zero, never prints anything but
one JSON document, never shows another role's item, and answers in bounded time: CPU time,
which a hostile input would have to burn to be slow, and which does not grow with the other
work on the machine as wall time does (a lock it would wait on: tests/hook/test_hook_failures).

The in-process run (``deskd.hook.run``, the console script's own code) takes many examples in
a few seconds; a smaller run through the real console script is marked ``slow``.
"""

from __future__ import annotations

import io
import json
import resource
import sys
import time
from typing import Any

import pytest
from hook_helpers import HookDesk, run_hook
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import Desk
from deskd import hook

EVENTS = [
    "PostToolUse",
    "PostToolUseFailure",
    "UserPromptSubmit",
    "SessionStart",
    "Stop",
    "StopFailure",
    "Notification",
]
BETA_MARK = "BETA-ONLY-ITEM"
MAX_SECONDS = 3.0
"""CPU seconds one run may take."""

texts = st.one_of(
    st.text(max_size=40),
    st.text(alphabet=st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF), max_size=4),
    st.just("s" * 300_000),
    st.just("beta"),
    st.just(BETA_MARK),
)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | texts,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner),
    max_leaves=10,
)
payloads = st.fixed_dictionaries(
    {"hook_event_name": st.sampled_from(EVENTS) | texts},
    optional={
        "session_id": texts | json_values,
        "tool_name": texts | json_values,
        "source": st.sampled_from(["startup", "resume", "compact", "clear"]) | texts,
        "agent_id": texts,
        "error": texts,
        "error_details": texts,
        "tool_input": json_values,
    },
)


def _encode(doc: Any) -> bytes:
    # json.dumps escapes lone surrogates as \udXXX, exactly what a hostile writer can send.
    return json.dumps(doc).encode()


raw_inputs = st.one_of(
    st.binary(max_size=200),
    payloads.map(_encode),
    st.integers(min_value=1, max_value=200_000).map(lambda n: b"[" * n + b"]" * n),
    st.integers(min_value=1, max_value=50_000).map(
        lambda n: b'{"hook_event_name": "PostToolUse", "x": ' + b"[" * n + b"]" * n + b"}"
    ),
    st.just(b'{"hook_event_name": "PostToolUse", "session_id": "' + b"x" * 2_000_000 + b'"}'),
)


def _run_in_process(raw: bytes, monkeypatch: pytest.MonkeyPatch) -> tuple[int, str, float]:
    out = io.StringIO()
    stdin = io.TextIOWrapper(io.BytesIO(raw))
    monkeypatch.setattr(sys, "stdin", stdin)
    monkeypatch.setattr(sys, "stdout", out)
    started = time.process_time()
    code = hook.run()
    return code, out.getvalue(), time.process_time() - started


def _children_cpu() -> float:
    """CPU seconds of this process's reaped children (the console script, once it exits)."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _check(code: int, stdout: str, seconds: float) -> None:
    assert code == 0
    assert seconds < MAX_SECONDS
    if stdout:
        assert stdout.count("\n") == 1
        doc = json.loads(stdout)
        context = doc["hookSpecificOutput"]["additionalContext"]
        assert BETA_MARK not in context
        assert len(context) <= hook.MAX_CONTEXT


@pytest.fixture
def fuzz_desk(desk: Desk, monkeypatch: pytest.MonkeyPatch) -> HookDesk:
    hd = HookDesk(desk)
    hd.enqueue("alpha", "alpha's own item", priority="urgent")
    hd.enqueue("beta", BETA_MARK, priority="urgent", body=BETA_MARK)
    for key, value in hd.env("alpha").items():
        if key.startswith("DESKD_"):
            monkeypatch.setenv(key, value)
    return hd


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(raw=raw_inputs)
def test_hostile_stdin_never_fails_the_agent(
    fuzz_desk: HookDesk, monkeypatch: pytest.MonkeyPatch, raw: bytes
) -> None:
    with monkeypatch.context() as m:
        _check(*_run_in_process(raw, m))


def test_after_the_fuzz_the_database_is_intact_and_bounded(
    fuzz_desk: HookDesk, monkeypatch: pytest.MonkeyPatch
) -> None:
    for raw in (
        b'{"hook_event_name": "PostToolUse", "session_id": "' + b"y" * 1_000_000 + b'"}',
        b"[" * 100_000,
        _encode({"hook_event_name": "PostToolUse", "session_id": "\udc80", "tool_name": "\ud800"}),
    ):
        with monkeypatch.context() as m:
            _check(*_run_in_process(raw, m))
    conn = fuzz_desk.desk.db()
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        longest = conn.execute("SELECT MAX(LENGTH(native_id)) FROM sessions").fetchone()[0]
        assert longest is None or longest <= hook.MAX_FIELD
    finally:
        conn.close()
    assert fuzz_desk.desk.db_path.stat().st_size < 1_000_000


@pytest.mark.slow
@settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(raw=raw_inputs)
def test_the_console_script_survives_hostile_stdin(fuzz_desk: HookDesk, raw: bytes) -> None:
    started = _children_cpu()
    done = run_hook(raw, env=fuzz_desk.env("alpha"))
    _check(done.code, done.stdout, _children_cpu() - started)
    assert done.stderr == ""
