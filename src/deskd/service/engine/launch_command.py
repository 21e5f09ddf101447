"""What a launch runs: the adapter, argv, environment, folder and timeout of one role's agent.

``prepare`` builds it for the executor (service/engine/executor.py) and ``describe_launch``
shows it for ``deskd agent command`` without running anything. A missing executable or
workdir is one actionable refusal naming what was searched.

The environment is scrubbed of what must not leak, with deskd's own variables set: what each
agent CLI sets for its own children is dropped (its line in ``KINDS``: lesson 30); the
supervisor's secrets never reach an agent, nor do the channel secrets (``DESKD_NOTIFY_URLS``,
``DESKD_TICK_PING_URL`` and every variable a channel URL references: an agent that could read
a webhook could page people as deskd).
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from deskd.adapters.agents import KINDS, adapter_for
from deskd.adapters.agents.base import AgentAdapter, LaunchSpec
from deskd.core.ladder import LAUNCH_RUNGS
from deskd.errors import AgentMissing, BadWorkdir, InvalidValue
from deskd.service.desk.context import DeskContext

if TYPE_CHECKING:
    from deskd.config.desk import Desk
    from deskd.service.engine.worktrees import Worktree


DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin"
_BY_KINDS = {name for kind in KINDS.values() for name in kind.dropped}
DROPPED_PREFIXES = ("DESKD_SUPERVISOR_", *sorted(n for n in _BY_KINDS if n.endswith("_")))
DROPPED = frozenset(
    {n for n in _BY_KINDS if not n.endswith("_")}
    | {
        "DESKD_WAKE_EXECUTE",
        "DESKD_ROLE",
        "DESKD_WAKE_TOKEN",
        "DESKD_SESSION_ID",
        "DESKD_NOTIFY_URLS",
        "DESKD_TICK_PING_URL",
        "DESKD_METRICS_TOKEN",
        "DESKD_REPLY_IMAP_URL",
    }
)


def agent_env(
    base: Mapping[str, str],
    *,
    role: str,
    token: str,
    home: Path,
    db: str | Path,
    session_id: str | None,
    withheld: Collection[str] = (),
) -> dict[str, str]:
    """``base`` without the scrubbed variables, plus DESKD_ROLE, DESKD_WAKE_TOKEN, DESKD_DB,
    DESKD_HOME (absolute) and a PATH that finds this environment's ``deskd`` first.
    ``withheld`` names more variables to drop (the channel secrets of this desk).
    ``DESKD_NOW`` passes through, so a rehearsal keeps one pinned clock."""
    env = scrubbed(base, withheld)
    env["DESKD_ROLE"] = role
    env["DESKD_WAKE_TOKEN"] = token
    env["DESKD_HOME"] = str(home.absolute())
    env["DESKD_DB"] = str(db) if "://" in str(db) else str(Path(db).absolute())
    if session_id:
        env["DESKD_SESSION_ID"] = session_id
    bin_dir = str(Path(sys.executable).parent)
    path = [p for p in (base.get("PATH") or DEFAULT_PATH).split(os.pathsep) if p]
    env["PATH"] = os.pathsep.join([bin_dir, *[p for p in path if p != bin_dir]])
    env.setdefault("HOME", str(Path.home()))
    return env


def scrubbed(base: Mapping[str, str], withheld: Collection[str] = ()) -> dict[str, str]:
    """``base`` without what must not leak to a child deskd did not write: a launched agent,
    a task's check command (which runs as nobody's role: no ``DESKD_ROLE`` either)."""
    return {
        k: v
        for k, v in base.items()
        if k not in DROPPED and k not in withheld and not k.startswith(DROPPED_PREFIXES)
    }


class Prepared(NamedTuple):
    adapter: AgentAdapter
    spec: LaunchSpec
    argv: list[str]
    env: dict[str, str]
    workdir: Path
    timeout_s: float


def prepare(
    ctx: DeskContext,
    *,
    role: str,
    mode: str,
    prompt: str,
    token: str,
    session_id: str | None,
    settings_file: Path | None,
) -> Prepared:
    """Build what a launch runs (also `deskd agent command`, which prints it without running)."""
    agent = ctx.desk.agent_for(role, ctx.settings)
    adapter = adapter_for(agent.kind)
    if mode == "spawn" and session_id is None:
        session_id = adapter.new_session_id()
    from deskd.service.paging.channels import secret_names

    env = agent_env(
        dict(os.environ),
        role=role,
        token=token,
        home=ctx.settings.home,
        db=ctx.settings.database,
        session_id=session_id,
        withheld=secret_names(ctx.settings, ctx.desk),
    )
    executable = _resolve(agent.command or agent.kind, env["PATH"])
    settings_path = adapter.install_hooks(settings_file, env)
    spec = LaunchSpec(
        kind=agent.kind,
        command=executable,
        args=agent.args,
        mode=mode,
        prompt=prompt,
        session_id=session_id,
        model=agent.model,
        allowed_tools=agent.allowed_tools,
        settings_path=settings_path,
        role=role,
    )
    workdir = role_workdir(ctx, role)
    # The child starts in the workdir, so $PWD must name it too: inherited, it names deskd's
    # own folder, and CLIs that trust $PWD over getcwd() (OpenCode's Bun binary) take that as
    # the project: its tools, and its git snapshot of the whole tree on every run, land there.
    env["PWD"] = str(workdir)
    return Prepared(
        adapter=adapter,
        spec=spec,
        argv=adapter.argv(spec),
        env=env,
        workdir=workdir,
        timeout_s=float(agent.timeout),
    )


def _resolve(command: str, path: str) -> str:
    found = (
        shutil.which(command, path=path)
        if "/" not in command
        else (command if Path(command).is_file() else None)
    )
    if not found:
        raise AgentMissing(command, path)
    return found


def role_workdir(ctx: DeskContext, role: str) -> Path:
    """Where ``role``'s agent (and its task checks) run: its workdir, or with ``worktree``
    set its worktree, made on first use."""
    folder = _folder(ctx.desk, ctx.settings.home, role)
    tree = role_worktree(ctx.desk, ctx.settings.home, role, folder=folder, make=True)
    return folder if tree is None else tree.workdir


def role_worktree(
    desk: Desk, home: Path, role: str, *, folder: Path | None = None, make: bool = False
) -> Worktree | None:
    """``role``'s worktree (None: the role works in its workdir as given); made when missing
    with ``make``, else refused when missing."""
    from deskd.service.engine.worktrees import branch_of, ensure_worktree, existing

    branch = branch_of(desk.role(role))
    if branch is None:
        return None
    found = ensure_worktree if make else existing
    return found(home, role, folder or _folder(desk, home, role), branch)


def _folder(desk: Desk, home: Path, role: str) -> Path:
    folder, problem = resolve_workdir(desk.role(role).workdir or "", home)
    if problem is not None:
        raise BadWorkdir(folder, role)
    return folder


def resolve_workdir(configured: str, home: Path) -> tuple[Path, str | None]:
    """A role's workdir as a launch uses it (``~`` expanded, relative to the desk folder, the
    desk folder when unset), and why a launch could not (None: it is a folder). ``deskd
    doctor`` and ``deskd init`` check a workdir with this too."""
    folder = Path(configured).expanduser()
    folder = folder if folder.is_absolute() else home / folder
    if folder.is_dir():
        return folder, None
    return folder, "is not a folder" if folder.exists() else "does not exist"


def describe_launch(
    ctx: DeskContext, *, role: str, mode: str, session_id: str | None
) -> dict[str, Any]:
    """What `deskd agent command` prints: the argv, the variables deskd sets (redacted) and
    scrubs, and the workdir."""
    from deskd.paths import DB_VARIABLES
    from deskd.service.paging.channels import secret_names
    from deskd.store.db import redact

    ctx.desk.role(role)
    if mode not in LAUNCH_RUNGS:
        raise InvalidValue("--mode", mode, "spawn or resume")
    if mode == "resume" and not session_id:
        raise InvalidValue("--session-id", "", "resume needs the native session id")
    prepared = prepare(
        ctx,
        role=role,
        mode=mode,
        prompt="<the wake prompt>",
        token="<wake token>",
        session_id=session_id,
        settings_file=None,
    )
    shown = {  # a PostgreSQL URL's password is the agent's, not the screen's
        k: redact(v) if k in DB_VARIABLES else v
        for k, v in prepared.env.items()
        if k.startswith("DESKD_") or k in ("PATH", "HOME")
    }
    kept = scrubbed(os.environ, secret_names(ctx.settings, ctx.desk))
    dropped = sorted(os.environ.keys() - kept.keys())
    return {
        "argv": prepared.argv,
        "env": shown,
        "dropped": dropped,
        "workdir": str(prepared.workdir),
    }


def mode_of_try(
    *, rung: str, planned_session: str | None, reported: str | None, assigned: str | None
) -> tuple[str, str | None]:
    """How one try of a launch starts: (mode, session id).

    The planned session first (a resume, or a relaunch after its executor died); a retry of
    a spawn resumes the session the failed try reported, or reuses its pre-assigned id (a
    new id would be a new session, and Claude Code refuses an id already in use)."""
    if planned_session and rung in LAUNCH_RUNGS:
        return "resume", planned_session
    if reported:
        return "resume", reported
    return "spawn", assigned


def runs_left(ctx: DeskContext, role: str, *, now: int) -> bool:
    """Whether the role may run its agent CLI once more today (``max_launches_per_day``
    counts every run, in-rung retries too)."""
    cap = ctx.desk.data.desk.max_launches_per_day
    if not cap:
        return True
    from deskd.core.timeparse import local_day_start
    from deskd.store import attempts as attempt_rows

    since = local_day_start(now, ctx.desk.timezone)
    runs, _cost = attempt_rows.launch_totals_since(ctx.conn, since).get(role, (0, 0.0))
    return runs < cap
