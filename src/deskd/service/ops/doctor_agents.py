"""``deskd doctor``'s checks of each role: its agent executable, workdir and worktree.

A missing agent CLI fails only once the desk's roles are due to launch (ticks execute); a
fresh desk from ``deskd init`` is not red for a CLI nothing has asked for yet.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from deskd.adapters.agents import KINDS
from deskd.config.desk import Desk
from deskd.config.settings import Settings
from deskd.service.engine.launch_command import resolve_workdir
from deskd.service.ops.doctor_db import Check, Level, read_db


def role_checks(
    desk: Desk, settings: Settings | None, home: Path, search_path: str, *, db: Path | str | None
) -> list[Check]:
    """Each enabled role's agent executable, workdir and worktree (``db``: the database, None
    when it does not open)."""
    from deskd.service.ops.worktrees import worktree_checks

    due = launching(settings, db)
    return [
        *agent_checks(desk, settings, search_path, launching=due),
        *workdir_checks(desk, home),
        *worktree_checks(desk, home),
    ]


def agent_checks(
    desk: Desk, settings: Settings | None, search_path: str, *, launching: bool = True
) -> list[Check]:
    """Each enabled role's agent executable, found on PATH the way a launch would find it;
    a missing one is a warning with the install hint until ``launching`` (ticks execute)."""
    checks = []
    missing_level: Level = "fail" if launching else "warn"
    for role in desk.enabled_roles:
        agent = desk.agent_for(role, settings)
        command = agent.command
        name = f"agent {role}"
        if not command:
            needs = (
                f'kind = "{agent.kind}" needs a command: set command in [agent] '
                "(or the role's agent table, or DESKD_AGENT_CMD)"
            )
            checks.append(Check(name, "fail", needs))
            continue
        found = shutil.which(command, path=search_path)
        if found:
            checks.append(Check(name, "ok", f"{agent.kind}: {command} → {found}"))
            continue
        hint = KINDS[agent.kind].install
        install = f"install the {agent.kind} CLI ({hint})" if hint else "install it"
        when = "" if launching else " (needed before its first launch: ticks run dry now)"
        if os.sep in command:
            detail = (
                f"{command} is missing or not executable{when}; {install}, or fix command "
                "in deskd.toml or DESKD_AGENT_CMD"
            )
        else:
            detail = (
                f"{command!r} not found on PATH ({search_path}){when}; {install}, or set "
                "command in [agent] (or DESKD_AGENT_CMD) to its absolute path"
            )
        checks.append(Check(name, missing_level, detail))
    return checks


def launching(settings: Settings | None, db: Path | str | None) -> bool:
    """Whether this desk's roles are due to launch: ticks execute (DESKD_WAKE_EXECUTE=1), or
    an executing tick has run against its database (None: one that does not open)."""
    if settings is not None and settings.execute:
        return True
    if db is None:
        return False
    from deskd.store.db import is_url
    from deskd.store.events import get_meta

    if not is_url(db) and (not Path(db).exists() or Path(db).stat().st_size == 0):
        return False
    return read_db(db, lambda conn: get_meta(conn, "last_tick_at") is not None, False)


def workdir_checks(desk: Desk, home: Path) -> list[Check]:
    """Each enabled role's workdir exists (resolved as a launch resolves it): a missing one
    fails every launch of that role."""
    checks = []
    for role in desk.enabled_roles:
        configured = desk.roles[role].workdir
        if configured is None:
            continue
        folder, problem = resolve_workdir(configured, home)
        fix = (
            f"{folder} {problem}: every launch of {role} would fail; create it or fix "
            f'workdir under [[roles]] name = "{role}" in deskd.toml'
        )
        checks.append(Check.unless(f"workdir {role}", problem and fix, str(folder)))
    return checks
