"""Is the tick's schedule installed, does it tick this desk and database, and how did its last
run end? For ``deskd timer status`` and ``deskd cron-line --check`` (like ``systemctl
list-timers``, for one desk).

A timer is read from its unit files and from ``systemctl show`` (when it last started, its
exit status, when it fires next); a crontab line from ``crontab -l`` and from the desk's
``logs/tick.log``, where every tick leaves a summary line and the cron driver a line with
deskd's exit code when it was not 0. Only reads: nothing here starts, enables or edits.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

from deskd.schedule import service as scheduling
from deskd.schedule.service import SERVICE, TIMER, driver_lines, run_quietly

Runner = Callable[[Sequence[str]], str | None]
"""Runs an argv, returns its stdout (None when it could not run or failed)."""

LOG_TAIL_BYTES = 256 * 1024
_SUMMARY = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z) desk=\S+ db=\S+ (\S+) (.*)$")
_EXITED = re.compile(
    r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ) wake_orchestrator: deskd tick exited (\d+)$"
)


class Schedule(NamedTuple):
    """One installed schedule: a systemd timer (one per scope) or a crontab line."""

    kind: str  # "timer" or "cron"
    where: str  # the timer's unit file, or the crontab line
    home: str | None
    db: str | None  # DESKD_DB the schedule sets; None: the desk's own
    execute: bool
    this_desk: bool
    this_database: bool
    last_run: str | None = None
    exit_code: int | None = None
    state: str | None = None  # the timer's state and next run; None for cron
    active: bool = True  # a timer systemd runs: written but never enabled, or systemd not
    # reachable, and it ticks nothing

    @property
    def healthy(self) -> bool:
        ran = self.exit_code in (None, 0)
        return self.this_desk and self.this_database and self.active and ran

    def to_json(self) -> dict[str, object]:
        return {**self._asdict(), "healthy": self.healthy}


def timers(home: Path, environ: Mapping[str, str], *, run: Runner = run_quietly) -> list[Schedule]:
    """The installed deskd-tick timers (user scope, then system), whichever desk they tick."""
    found = []
    for user in (True, False):
        folder = scheduling.unit_dir(environ, user=user)
        try:
            text = (folder / SERVICE).read_text("utf-8")
        except OSError:
            continue
        if not (folder / TIMER).is_file():
            continue
        env = _unit_environment(text)
        scope = ["--user"] if user else []
        service = _show(run, ["systemctl", *scope, "show", SERVICE, "--property=" + _SERVICE_PROPS])
        timer = _show(run, ["systemctl", *scope, "show", TIMER, "--property=" + _TIMER_PROPS])
        exec_line = next((x for x in text.splitlines() if x.startswith("ExecStart=")), "")
        started = _systemd_time(service.get("ExecMainStartTimestamp"))
        found.append(
            Schedule(
                kind="timer",
                where=str(folder / TIMER),
                home=env.get("DESKD_HOME"),
                db=env.get("DESKD_DB"),
                execute="--execute" in exec_line.split() or env.get("DESKD_WAKE_EXECUTE") == "1",
                this_desk=env.get("DESKD_HOME") == str(home),
                this_database=_same_db(env.get("DESKD_DB"), environ.get("DESKD_DB")),
                last_run=started,
                exit_code=_int(service.get("ExecMainStatus")) if started else None,
                state=_timer_state(timer),
                active=timer.get("ActiveState") == "active",
            )
        )
    return found


def cron_lines(
    home: Path, environ: Mapping[str, str], *, crontab: str | bool | None = True
) -> list[Schedule]:
    """The crontab lines that run the cron driver, whichever desk they tick, each with its
    desk's last run read from that desk's tick.log."""
    text = scheduling.read_crontab() if crontab is True else (crontab or None)
    found = []
    for stripped, words in driver_lines(text):
        env = dict(w.split("=", 1) for w in words if "=" in w and not w.startswith("/"))
        desk = env.get("DESKD_HOME")
        logs = Path(env["DESKD_LOG_DIR"]) if env.get("DESKD_LOG_DIR") else None
        last, code = last_logged_run((logs or Path(desk or ".") / "logs") / "tick.log")
        found.append(
            Schedule(
                kind="cron",
                where=stripped,
                home=desk,
                db=env.get("DESKD_DB"),
                execute=env.get("DESKD_WAKE_EXECUTE") == "1",
                this_desk=desk == str(home),
                this_database=_same_db(env.get("DESKD_DB"), environ.get("DESKD_DB")),
                last_run=last,
                exit_code=code,
            )
        )
    return found


def last_logged_run(log: Path) -> tuple[str | None, int | None]:
    """(when, exit code) of the last tick ``log`` records: a summary line is exit 0 unless the
    driver's ``exited N`` line follows it; (None, None) when there is none."""
    try:
        with log.open("rb") as fh:
            fh.seek(0, 2)
            size = fh.tell()
            fh.seek(max(0, size - LOG_TAIL_BYTES))
            tail = fh.read().decode("utf-8", errors="replace")
    except OSError:
        return None, None
    last: tuple[str | None, int | None] = (None, None)
    for line in tail.splitlines():
        summary = _SUMMARY.match(line)
        if summary:
            last = (summary.group(1), 0)
            continue
        exited = _EXITED.match(line)
        if exited:
            last = (exited.group(1), int(exited.group(2)))
    return last


_SERVICE_PROPS = "ExecMainStartTimestamp,ExecMainExitTimestamp,ExecMainStatus,Result"
_TIMER_PROPS = "ActiveState,UnitFileState,LastTriggerUSec,NextElapseUSecRealtime"


def _show(run: Runner, argv: list[str]) -> dict[str, str]:
    out = run(argv)
    if not out:
        return {}
    return dict(line.split("=", 1) for line in out.splitlines() if "=" in line)


def _unit_environment(text: str) -> dict[str, str]:
    env: dict[str, str] = {}
    for line in text.splitlines():
        if not line.startswith("Environment="):
            continue
        for word in shlex.split(line.removeprefix("Environment=")):
            if "=" in word:
                key, value = word.split("=", 1)
                env[key] = value.replace("%%", "%")
    return env


def _timer_state(timer: Mapping[str, str]) -> str:
    if not timer:
        return "systemd not reachable (systemctl show failed)"
    state = f"{timer.get('ActiveState', '?')} ({timer.get('UnitFileState', '?')})"
    following = _systemd_time(timer.get("NextElapseUSecRealtime"))
    return state + (f", next {following}" if following else "")


def _systemd_time(value: str | None) -> str | None:
    """systemd's own rendering of a time (``Tue 2026-12-01 14:00:00 UTC``); None when unset."""
    return None if not value or value in ("n/a", "0") else value


def _int(value: str | None) -> int | None:
    return int(value) if value and value.lstrip("-").isdigit() else None


def _same_db(scheduled: str | None, here: str | None) -> bool:
    """Both read the desk's ``.env`` (the schedule runs in the desk folder), so they reach
    the same database unless one of them overrides DESKD_DB differently."""

    def norm(value: str | None) -> str | None:
        if not value:
            return None
        return value if "://" in value else str(Path(value).expanduser().absolute())

    return norm(scheduled) == norm(here)


def scheduled_ticks(home: Path, environ: Mapping[str, str], *, crontab: str | None) -> list[str]:
    """Where a tick for the desk in ``home`` is scheduled: installed deskd-tick units (user
    and system) naming this desk, and crontab lines running the driver for it."""
    found = [*timers(home, environ, run=lambda _argv: None)]
    found += cron_lines(home, environ, crontab=crontab or False)
    return [
        f"systemd timer {s.where}" if s.kind == "timer" else f"crontab: {s.where}"
        for s in found
        if s.this_desk
    ]


def schedule_check(home: Path, environ: Mapping[str, str]) -> tuple[str, str]:
    """``(level, detail)`` for the doctor: ``ok`` with where the tick is scheduled, or
    ``warn`` (never ``fail``: a desk may be ticked by hand or by ``deskd tick --loop``)."""
    found = scheduled_ticks(home, environ, crontab=scheduling.read_crontab())
    if found:
        return "ok", "; ".join(found)
    return (
        "warn",
        "no crontab line or deskd-tick timer ticks this desk "
        "(`deskd cron-line` or `deskd timer install --user`; docs/operations.md)",
    )
