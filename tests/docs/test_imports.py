"""Commands that do not page, serve or schedule must not pay for apprise, FastAPI or croniter."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import DESK_TOML, Desk, urgent
from console_entry import console_with

HEAVY = ("apprise", "fastapi", "uvicorn", "croniter")

PROBE = """
import sys
from deskd.cli.main import main
code = 0
try:
    main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code or 0
print("exit:%s" % code)
print("\\n".join(sorted(sys.modules)))
"""


def modules_after(
    args: list[str], home: Path, *, exit_code: int | None = 0, probe: str = PROBE
) -> set[str]:
    """The modules a fresh interpreter imported to run `deskd ARGS`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("DESKD_")}
    env["DESKD_HOME"] = str(home)
    proc = subprocess.run(
        [sys.executable, "-c", probe, *args],
        env=env,
        cwd=home,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    status, *modules = proc.stdout.split("exit:", 1)[1].split()
    assert exit_code is None or int(status) == exit_code, proc.stdout + proc.stderr
    return set(modules)


def prepare(args: list[str], home: Path) -> None:
    """`deskd ARGS` to set a desk up, through the console entry in-process: a step whose
    imports no test reads needs no fresh interpreter."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("DESKD_")}
    env["DESKD_HOME"] = str(home)
    done = console_with(env, *args, cwd=home)
    assert done.exit_code == 0, done.stderr


def heavy_in(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if m.split(".")[0] in HEAVY)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    (tmp_path / "deskd.toml").write_text(DESK_TOML)
    return tmp_path


def test_version_imports_nothing_heavy_not_even_pydantic(home: Path) -> None:
    modules = modules_after(["--version"], home)
    assert heavy_in(modules) == []
    assert "pydantic" not in modules


def test_inbox_enqueue_imports_no_apprise_fastapi_uvicorn_or_croniter(home: Path) -> None:
    args = ["inbox", "enqueue", "--for", "alpha", "--source", "alert", "--title", "disk 91%"]
    modules = modules_after(args, home)
    assert "deskd.service.desk.inbox" in modules  # the command really ran
    assert heavy_in(modules) == []


@pytest.mark.parametrize(
    ("args", "exit_code"),
    [
        (["inbox", "list", "--for", "alpha"], 0),
        (["ledger"], 0),
        (["doctor"], None),
        (["status"], 0),
        (["roles"], 0),
        (["wake", "list"], 0),
    ],
    ids=["inbox list", "ledger", "doctor", "status", "roles", "wake list"],
)
def test_reading_commands_import_nothing_heavy(
    home: Path, args: list[str], exit_code: int | None
) -> None:
    assert heavy_in(modules_after(args, home, exit_code=exit_code)) == []


# -- the hot commands (docs/performance.md "Agent-facing commands") -----------------------

# What a hot command never loads once its desk file has been validated: the validators
# (pydantic, pydantic-settings and what they pull in: asyncio, dotenv, typing_extensions),
# the TOML parser, the lock library (only the tick takes a lock), HTTP and TLS, retries, and
# ``dataclasses`` (records are NamedTuples, docs/performance.md; click loads ``inspect``).
NEVER_HOT = (
    "pydantic", "pydantic_core", "pydantic_settings", "annotated_types", "typing_extensions",
    "typing_inspection", "dotenv", "asyncio", "tomllib", "filelock", "logging", "apprise",
    "fastapi", "uvicorn", "croniter", "tenacity", "http", "email", "ssl", "subprocess",
    "secrets", "concurrent", "dataclasses",
)  # fmt: skip
HOT = {
    "inbox enqueue": ["inbox", "enqueue", "--for", "alpha", "--source", "alert", "--title", "x"],
    "inbox list": ["inbox", "list", "--for", "alpha"],
    "inbox ack": ["inbox", "ack", "--for", "alpha", "--seen"],
    "status set": ["status", "set", "--role", "alpha", "--state", "working"],
    "heartbeat": [
        "heartbeat",
        "--role",
        "alpha",
        "--session-id",
        "b399b87c-8c3a-56c0-94e2-7fb71eb1a500",
    ],
    "send": ["send", "--from", "alpha", "--to", "beta", "--subject", "s", "--body", "b"],
    "task update": ["task", "update", "1", "--note", "n", "--by", "alpha"],
    "meeting send": ["meeting", "send", "1", "--role", "alpha", "--body", "b"],
    "meeting updates": ["meeting", "updates", "1", "--role", "beta"],
    "hook add": ["hook", "add", "--for", "alpha", "--title", "t", "--every", "1h"],
    "status": ["status", "--json"],
    "tick --dry-run": ["tick", "--dry-run"],
}
# The store's record modules (deskd.store.records.<module>, grouped by table) each hot
# command may load on the desk below (a task, a meeting, what the other hot commands add).
INBOX = {"inbox", "work"}  # the inbox's writers mark routes, which read open tasks
RECORDS = {
    "inbox enqueue": INBOX,
    "inbox list": INBOX,
    "inbox ack": INBOX,
    "status set": {"roles"},
    "heartbeat": {"roles"},
    "send": INBOX,
    "task update": INBOX,
    "meeting send": INBOX | {"meetings"},
    "meeting updates": INBOX | {"meetings"},
    "hook add": INBOX,
    "status": INBOX | {"roles", "wakes"},
    "tick --dry-run": INBOX | {"meetings", "roles", "wakes"},
}
# Modules a dry tick never loads on this desk: the executing tick's dispatch (processes, the
# lock helpers), and the schedule's rules (only a due hook needs them).
NOT_DRY = (
    "deskd.service.engine.dispatch", "deskd.service.desk.locks", "deskd.schedule.rules",
)  # fmt: skip


def loaded(modules: set[str], roots: tuple[str, ...]) -> list[str]:
    return sorted(m for m in modules if m.split(".")[0] in roots or m == "urllib.request")


@pytest.fixture(scope="module")
def hot_desk(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("hot")
    (home / "deskd.toml").write_text(DESK_TOML)
    first = modules_after(["task", "add", "t", "--for", "alpha", "--by", "beta"], home)
    assert "pydantic" in first  # the first command validates the desk file and caches it
    prepare(["meeting", "call", "--by", "alpha", "--agenda", "a", "--attendees", "beta"], home)
    return home


@pytest.mark.parametrize("name", HOT)
def test_hot_commands_load_no_validator_lock_or_network_module(hot_desk: Path, name: str) -> None:
    modules = modules_after(HOT[name], hot_desk)
    assert "deskd.service.desk.context" in modules  # the command really ran
    never = NEVER_HOT
    assert loaded(modules, never) == []  # a dry tick takes no lock: no filelock either
    records = {m.rsplit(".", 1)[1] for m in modules if m.startswith("deskd.store.records.")}
    assert records <= RECORDS[name], records
    if name == "tick --dry-run":
        assert sorted(set(NOT_DRY) & modules) == []
    else:  # nor the planner's records (deskd.core.records), which they never read
        assert "deskd.core.records" not in modules


def test_an_edited_desk_file_is_validated_again(hot_desk: Path, tmp_path: Path) -> None:
    (tmp_path / "deskd.toml").write_text(DESK_TOML)
    prepare(["roles"], tmp_path)
    assert "pydantic" not in modules_after(["roles"], tmp_path)
    (tmp_path / "deskd.toml").write_text(DESK_TOML.replace('"Beta"', '"B"'))
    assert "pydantic" in modules_after(["roles"], tmp_path)


# -- the executing tick (docs/performance.md "Executing tick") ------------------------------

# What an executing tick with nothing to launch, page or sweep never loads, beyond what no
# hot command loads: the pager and its channels, the desk-file validators they pulled in
# (deskd.config.settings_model, deskd.config.desk_file), the meeting use cases, dispatch and the agents' process
# helpers (no launch is planned or running), and the lock library (the tick lock is one
# stdlib flock, adapters/locks.py).
NOT_QUIET = (
    "deskd.service.paging.pager", "deskd.service.paging.channels", "deskd.config.settings_model",
    "deskd.config.desk_file", "deskd.service.meetings.lifecycle", "deskd.adapters.process",
    "deskd.adapters.channels.apprise", "deskd.service.engine.dispatch",
)  # fmt: skip


@pytest.fixture(scope="module")
def quiet_desk(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A desk with history and nothing due: a read item, a closed task, a hook for later."""
    home = tmp_path_factory.mktemp("quiet")
    (home / "deskd.toml").write_text(DESK_TOML)
    prepare(["inbox", "enqueue", "--for", "alpha", "--source", "alert", "--title", "x"], home)
    prepare(["inbox", "ack", "--for", "alpha", "--seen"], home)
    prepare(["task", "add", "t", "--for", "beta", "--by", "alpha"], home)
    prepare(["task", "update", "1", "--status", "done", "--by", "beta"], home)
    prepare(["hook", "add", "--for", "gamma", "--title", "t", "--every", "1h"], home)
    prepare(["tick", "--execute"], home)  # records what the history left to record
    return home


def test_an_executing_tick_with_nothing_to_do_loads_no_pager_validator_or_lock_library(
    quiet_desk: Path,
) -> None:
    modules = modules_after(["tick", "--execute"], quiet_desk)
    assert "deskd.service.desk.locks" in modules  # it executed: it took the tick lock
    log = (quiet_desk / "logs" / "tick.log").read_text().splitlines()
    assert " execute demands=0 " in log[-1] and "launches=0 pages=0" in log[-1]
    never = (*NEVER_HOT, "socket")
    assert loaded(modules, never) == []
    assert sorted(set(NOT_QUIET) & modules) == []


def test_an_executing_tick_with_pages_due_still_sends_and_settles_them(tmp_path: Path) -> None:
    import sys as _sys

    _sys.path.insert(0, str(Path(__file__).parent.parent / "pager"))
    from pager_helpers import desk_with, http_receiver

    with http_receiver() as rx:
        (tmp_path / "deskd.toml").write_text(desk_with({"ops": [rx.url()]}, default=["ops"]))
        args = ["inbox", "enqueue", "--for", "alpha", "--source", "alert", "--title", "disk"]
        prepare([*args, "--priority", "urgent"], tmp_path)
        modules = modules_after(["tick", "--execute"], tmp_path)
        assert "deskd.service.paging.pager" in modules
        assert [t.startswith("deskd: alpha has not answered") for t in rx.titles] == [True]
        prepare(["inbox", "ack", "--for", "alpha", "--id", "1"], tmp_path)
        modules_after(["tick", "--execute"], tmp_path)  # resolves the page
        modules_after(["tick", "--execute"], tmp_path)  # nothing left to send
        assert len(rx.titles) == 2
        assert rx.titles[1].startswith("deskd: settled — no action needed (alpha")


# -- the executor (`deskd agent run`, one fresh process per launch) ------------------------


def test_the_executor_loads_no_desk_file_validator(desk: Desk) -> None:
    """A launch reads the channels' secret names to keep them from the agent; that needs the
    validated desk (the cache), never its validators: ~0.15 CPU-s on every launch."""
    from deskd.service.engine.dispatch import Dispatched

    def record(ctx: object, attempt_id: int, role: str) -> Dispatched:
        return Dispatched(attempt_id=attempt_id, role=role, pid=0)

    desk.monkeypatch.setattr("deskd.service.engine.tick.start_executor", record)
    desk.write_desk(DESK_TOML + '\n[agent]\nkind = "command"\ncommand = "/bin/true"\n')
    urgent(desk)
    (launched,) = desk.json("tick", "--execute")["launched"]
    args = ["agent", "run", "--attempt", str(launched["attempt_id"])]
    modules = modules_after(args, desk.home)
    assert "deskd.service.paging.channels" in modules  # it read the secrets' names
    assert "deskd.config.desk_file" not in modules and "pydantic" not in modules
    with desk.db() as conn:
        row = conn.execute("SELECT launch_status FROM attempts").fetchone()
    assert row["launch_status"] == "finished"  # the launch really ran
