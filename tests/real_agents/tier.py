"""The real-agent tier's fixtures: the installed CLIs, a stand-in model API, a desk aimed at both.

Marked ``real_agents`` (``pytest -m real_agents`` runs the tier alone). Without node and npm,
or when the CLIs cannot be installed, the tier is skipped with a one-line reason, except under
``CI=true``, where it is mandatory and fails instead. ``DESKD_REAL_AGENTS=0`` skips it on
purpose (a machine without the 1.3 GB of CLIs that does not want them).
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from aim import QUIET, aim
from install import NotInstallable, ensure_installed
from standins import StandIn

from conftest import Desk

KINDS = ("claude", "codex", "gemini", "opencode")
GATE = Path(__file__).resolve().parent / "gate"
"""On the tier's ``PYTHONPATH``: the timeout gate (gate/sitecustomize.py), inert unless a test
names a gate file in ``REAL_AGENTS_TIMEOUT_GATE``."""
OUTER_TIMEOUT_S = 600
"""deskd's timeout for every launch in the tier: an outer bound only a real hang reaches. A
run that should finish ends on its own; the tests that wait for deskd's timeout end on an
event, the stand-in serving the call the test is about (the gate opens, deskd's timeout fires
at its next poll), and fail saying so if the CLI never gets there. No figure here depends on
how long a CLI takes to start: OpenCode needs 4-5 s alone, and took 50 s a run at a load
average of 25 on two cores, past the measured timeouts this replaced (and past 120 s would
not be far off)."""


@pytest.fixture(scope="session", name="real_bin")
def installed_bin() -> Path:
    if os.environ.get("DESKD_REAL_AGENTS") == "0":
        pytest.skip("real agent tier: DESKD_REAL_AGENTS=0")
    try:
        return ensure_installed()
    except NotInstallable as exc:
        if os.environ.get("CI") == "true":
            pytest.fail(f"real agent tier is mandatory under CI=true: {exc}")
        pytest.skip(f"real agent CLIs unavailable: {exc}")


@dataclass
class Real:
    """One desk whose only role ``alpha`` runs a real agent CLI against ``api``."""

    kind: str
    desk: Desk
    api: StandIn
    bin: Path
    work: Path
    monkeypatch: pytest.MonkeyPatch

    def configure(self, *, workdir: Path | None = None) -> None:
        model = 'model = "gemini-2.5-flash"\n' if self.kind == "gemini" else ""
        self.desk.write_desk(
            f"""\
[desk]
name = "real-{self.kind}"
timezone = "UTC"
inbox_sources = ["alert"]

[agent]
kind = "{self.kind}"
command = "{self.bin / self.kind}"
timeout = "{OUTER_TIMEOUT_S}s"
retry_wait = "0s"
{model}
[[roles]]
name = "alpha"
workdir = "{workdir or self.work}"
"""
        )

    def tick(self) -> Any:
        return self.desk.json("tick", "--execute", "--wait")

    def attempt(self, attempt_id: int) -> dict[str, Any]:
        with self.desk.db() as conn:
            row = conn.execute("SELECT * FROM attempts WHERE id = ?", (attempt_id,)).fetchone()
        return dict(row)

    def launched(self, out: Any) -> dict[str, Any]:
        (launch,) = out["launched"]
        return self.attempt(int(launch["attempt_id"]))

    def live(self) -> list[dict[str, Any]]:
        with self.desk.db() as conn:
            rows = conn.execute("SELECT * FROM attempts WHERE outcome = 'pending' ORDER BY id")
            return [dict(r) for r in rows]

    def modes(self, attempt_id: int) -> list[str]:
        """The mode of every run of the CLI for this attempt, from its launch log."""
        log = self.desk.home / "logs" / "agents" / "alpha" / f"{attempt_id}.log"
        lines = log.read_text(encoding="utf-8").splitlines()
        return [ln.rsplit(" ", 1)[1] for ln in lines if ln.startswith("# deskd launch attempt")]

    def role(self) -> dict[str, Any]:
        return next(r for r in self.desk.json("roles") if r["role"] == "alpha")


@pytest.fixture(name="real")
def real_desk(
    request: pytest.FixtureRequest,
    real_bin: Path,
    desk: Desk,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[Real]:
    kind = str(request.param)
    home = tmp_path / "agent-home"
    home.mkdir()
    work = tmp_path / "work"
    work.mkdir()
    subprocess.run(["git", "init", "-q", str(work)], check=True)  # codex wants a git work tree
    with StandIn() as api:
        monkeypatch.setenv("HOME", str(home))
        for key in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
            monkeypatch.delenv(key, raising=False)
        for key, value in {**QUIET, **aim(kind, home, api.url)}.items():
            monkeypatch.setenv(key, value)
        monkeypatch.setenv("GEMINI_CLI_TRUST_WORKSPACE", "true")
        path = os.environ.get("PYTHONPATH")
        monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(GATE), *([path] if path else [])]))
        r = Real(kind=kind, desk=desk, api=api, bin=real_bin, work=work, monkeypatch=monkeypatch)
        r.configure()
        yield r


def times_out_on_the_failed_call(real: Real) -> None:
    """deskd's timeout will end the run, the moment the stand-in has served the call the test
    scripted (hung or refused it): the gate file opens the executor's clock (gate/)."""
    gate = real.work.parent / "timeout-gate"
    real.api.gate = gate
    real.monkeypatch.setenv("REAL_AGENTS_TIMEOUT_GATE", str(gate))


def waits_it_out(real: Real) -> bool:
    """OpenCode retries a usage limit or an overload by itself, without end and printing
    nothing, so only deskd's timeout ends its run: aim that timeout at the waits (True)."""
    if real.kind != "opencode":
        return False
    times_out_on_the_failed_call(real)
    return True


def assert_timed_out_after_a_model_call(real: Real, failed: dict[str, Any]) -> None:
    """deskd's timeout ended the run — a transient failure — while the CLI was at its model
    call, not while it was still starting (a kill then would prove nothing)."""
    assert (failed["launch_status"], failed["failure_class"]) == ("timed_out", "transient")
    assert real.api.failed_call.is_set() and real.api.model_calls(), (
        f"{real.kind} never reached the stand-in before deskd's {OUTER_TIMEOUT_S}s timeout "
        f"killed it: {dump_requests(real.api)}"
    )


def dump_requests(api: StandIn) -> str:
    """For a failing assertion's message: what the stand-in was asked."""
    return json.dumps([(s.method, s.path) for s in api.requests])
