"""``deskd tick``: one tick of the wake engine (dry-run unless told to execute)."""

from __future__ import annotations

import time

import click

from deskd.cli.common import Command, desk_context
from deskd.cli.output import echo, emit
from deskd.core.timeparse import local_text, parse_duration
from deskd.errors import InvalidValue

MIN_LOOP_S = 10
"""``deskd tick --loop`` ticks at most this often (docs/cli.md): ``--loop 0`` ran ~35 ticks
a second, a busy loop on the database and the agents' machine."""


@click.command(cls=Command)
@click.option("--execute", is_flag=True, help="Record the plan and launch.")
@click.option("--dry-run", is_flag=True, help="Plan and print; write nothing (default).")
@click.option("--wait", is_flag=True, help="Wait for the launches this tick started.")
@click.option("--loop", help="Tick every DUR forever (containers without cron).")
def tick(execute: bool, dry_run: bool, wait: bool, loop: str | None, as_json: bool) -> None:
    """One tick: fire due wake hooks, plan wakes, and (with --execute) record and launch.

    Dry-run is the default until --execute or DESKD_WAKE_EXECUTE=1: it prints the same
    plan and writes nothing. Overlapping ticks: the second exits 0 at once.

    Examples:
      deskd tick                 # what would happen now
      deskd tick --execute --json
      DESKD_WAKE_EXECUTE=1 deskd tick
      deskd tick --execute --loop 60s
    """
    if execute and dry_run:
        # One flag must not silently win over the other: which one was meant is unknowable.
        raise click.UsageError("--execute and --dry-run contradict each other: give one of them")
    mode = "execute" if execute else ("dry" if dry_run else None)
    every = parse_duration(loop, what="--loop") if loop is not None else None
    if every is not None and every < MIN_LOOP_S:
        raise InvalidValue(
            "--loop",
            loop,
            f"at least {MIN_LOOP_S}s: each tick reads the whole desk, and "
            "the planner's times are whole minutes (60s or 1m is the usual interval)",
        )
    while True:
        _tick_once(mode, as_json, wait)
        if every is None:
            return
        time.sleep(every)


def _tick_once(mode: str | None, as_json: bool, wait: bool) -> None:
    from deskd.service.engine.tick import run_tick

    with desk_context() as ctx:
        execute = mode == "execute" or (mode is None and ctx.settings.execute)
        result = run_tick(ctx, execute=execute)
        data = result.to_json()
    procs = [(f"{d.role} (attempt {d.attempt_id})", d.proc) for d in result.dispatched if d.proc]
    if wait and procs:
        # On stderr, so a long wait is not mistaken for a hang and stdout's JSON stays clean.
        names = ", ".join(name for name, _ in procs)
        echo(f"deskd: waiting for the launches this tick started to end: {names}", err=True)
        for _, proc in procs:
            proc.wait()

    def human() -> None:
        label = "dry-run" if result.dry_run else "execute"
        echo(f"tick {local_text(result.now, ctx.tz)} ({label})")
        if result.skipped:
            echo(f"  skipped: {result.skipped}")
            return
        for h in data["hooks_fired"]:
            if h["error"]:
                echo(f"  hook {h['hook_id']} ({h['owner']}): error: {h['error']}")
            elif h["would"]:
                echo(f"  hook {h['hook_id']} ({h['owner']}): would {h['would']}: {h['title']}")
            elif h["fire_at"]:
                missed = f" (+{h['missed']} missed, coalesced)" if h["missed"] else ""
                echo(f"  hook {h['hook_id']} ({h['owner']}) fired: {h['title']}{missed}")
        for c in data["resolved"]:
            echo(f"  close attempt {c['attempt_id']}: {c['outcome']} ({c['reason']})")
        for a in data["attempts"]:
            skip = f"  [skipped: {a['skipped']}]" if a["skipped"] else ""
            echo(f"  {a['role']}: {a['key']} → {a['rung']} — {a['detail']}{skip}")
        for x in data["actions"]:
            verb = "would launch" if result.dry_run else "launch planned"
            echo(f"  {verb}: {x['rung']} {x['role']} ({', '.join(x['reasons'])})")
        for d in data["launched"]:
            echo(f"  started executor for attempt {d['attempt_id']} ({d['role']}, pid {d['pid']})")
        for died in data["died"]:
            echo(f"  attempt {died}: its executor died; recorded as failed (transient)")
        for pg in data["pages"]:
            verb = "would page" if result.dry_run else "page queued"
            echo(f"  {verb}: {pg['title']}")
        for sent in data.get("pages_sent", []):  # the pager's sends (URLs already masked)
            where = ", ".join(f"{c['name']} {c['url']} {c['status']}" for c in sent["channels"])
            echo(f"  page {sent['page_id']} ({sent['kind']}, {sent['role']}): {where}")
        # One line per role and reason: a paused role has a note for each of its demands.
        for line in dict.fromkeys(f"  {n['role']}: {n['text']}" for n in data.get("notes", [])):
            echo(line)
        shown = ("resolved", "attempts", "actions", "pages", "hooks_fired", "pages_sent")
        if not any(data.get(key) for key in shown):
            echo("  nothing due")

    emit(data, as_json, human)
