"""The executing tick starts this host's session-hook relay on a PostgreSQL desk when none
answers (``deskd relay``, ``relay/server.py``); a relay idle for minutes exits by itself.
The agents of the executors it starts next send it their hooks' calls; a hook that comes
before it answers works alone (slower, never waiting on another role's write), so the tick
does not wait for it."""

from __future__ import annotations

import os
import subprocess
import sys

from deskd.adapters.private import open_private, private_dir
from deskd.paths import run_dir
from deskd.service.desk.context import DeskContext
from deskd.service.engine.launch_command import agent_env


def relay_env(ctx: DeskContext) -> dict[str, str]:
    """What an agent's hook would see, without a role: the relay serves every role's hook,
    and holds no supervisor or channel secret (``agent_env`` scrubs them as for an agent)."""
    from deskd.service.paging.channels import secret_names

    env = agent_env(
        dict(os.environ),
        role="-",
        token="-",
        home=ctx.settings.home,
        db=ctx.settings.database,
        session_id=None,
        withheld=secret_names(ctx.settings, ctx.desk),
    )
    del env["DESKD_ROLE"], env["DESKD_WAKE_TOKEN"]
    return env


def ensure_relay(ctx: DeskContext) -> int | None:
    """Start the relay when this desk is on PostgreSQL and none answers; its pid, or None.
    The tick calls it when launches are live (agents will call their hooks).

    Two ticks starting one each is harmless: the second relay finds the first's lock held
    and exits. A relay that fails to start costs nothing but speed: hooks work without it."""
    if not ctx.settings.shared_database or ctx.settings.hook_relay == "off":
        return None  # SQLite needs none; with "off" the operator runs it (or goes without)
    from deskd.relay.server import answering

    run = run_dir(ctx.settings.home)
    if answering(str(run)):
        return None
    private_dir(ctx.settings.log_path)
    with open_private(ctx.settings.log_path / "relay.log", "ab") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "deskd", "relay"],
            cwd=str(ctx.settings.home),
            env=relay_env(ctx),
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # outlives the tick, like an executor
        )
    return proc.pid
