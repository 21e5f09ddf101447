"""``deskd session rollover|handoff|list``: the session lifecycle across desk days."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

import click

from deskd.cli.common import Group, Number, on_desk
from deskd.cli.options import role_option
from deskd.cli.output import cells, emit, emit_table, table
from deskd.service.work.sessions import handoff as store_handoff
from deskd.service.work.sessions import list_sessions


@click.group(cls=Group)
def session() -> None:
    """A role's native sessions: resumed all day, wound down at the desk-day boundary.

    Intraday a role's session is parked between wakes and resumed. A session started before
    the latest rollover_at (default 04:00, desk timezone) winds down: it writes a hand-off,
    prints SESSION_DONE and is ended; the next wake spawns a fresh session whose prompt
    carries the hand-off.

    Examples:
      deskd session rollover            # what is due (dry run)
      deskd session handoff --role alpha --note "Open: PR 12 review. Next: answer beta."
      deskd session list --role alpha
    """


@session.command("rollover")
@click.option("--execute", is_flag=True, help="Record and run the wind-downs now (else dry).")
def rollover(execute: bool, as_json: bool) -> None:
    """Wind down sessions from before today's rollover_at (the tick does this too).

    Each due session is resumed once with a wind-down prompt (finish or park the work, write
    a hand-off, print SESSION_DONE) and ended when both proofs are there. A failed or
    lock-busy wind-down is retried by later ticks up to 3 times, then a person is paged.

    Examples:
      deskd session rollover
      deskd session rollover --execute --json
    """
    from deskd.service.engine.rollover import rollover as run_rollover

    out = on_desk(run_rollover, execute=execute)

    def human() -> None:
        click.echo(f"desk day began {out['boundary_local']}")
        if not out["due"]:
            click.echo("no session is due to wind down")
            return
        state = functools.partial(_state, dry_run=out["dry_run"])
        table(
            cells(out["due"], "role session started_local tries state", state=state),
            ["role", "session", "started", "tries", "state" if out["dry_run"] else "outcome"],
        )
        if out["dry_run"]:
            click.echo("\n(dry run: add --execute to wind them down now)")

    emit(out, as_json, human)


def _state(due: Mapping[str, Any], *, dry_run: bool) -> str:
    """Dry: what would happen. Executed: what did — ended, or how the wind-down went."""
    if due["ended"]:
        return "ended" + (f" — {due['outcome']}" if due.get("outcome") else "")
    if not dry_run and due.get("outcome"):
        return f"still live — {due['outcome']}"
    plan = ", ".join(due["plan"]) or "; ".join(due["notes"])
    return plan if dry_run else f"not launched ({plan or 'nothing to do'})"


@session.command("handoff")
@role_option
@click.option("--note", required=True, help="Open items and the first next step.")
def handoff(role: str | None, note: str, as_json: bool) -> None:
    """Store the hand-off the role's next session starts from (its wake prompt carries it).

    Examples:
      deskd session handoff --role alpha --note "Open: PR 12 review. Next: reply to beta."
      DESKD_ROLE=alpha deskd session handoff --note "All done; queue empty."
    """
    out = on_desk(store_handoff, role=role, note=note)
    emit(out, as_json, f"hand-off {out['id']} stored for {out['role']}")


@session.command("list")
@click.option("--role", required=True, help="The role whose sessions to show.")
@click.option("--limit", default=50, show_default=True, type=Number(1, 1000))
def list_(role: str, limit: int, as_json: bool) -> None:
    """The role's sessions, newest first: start, end, wakes served, cost.

    Examples:
      deskd session list --role alpha
      deskd session list --role alpha --json
    """
    rows = on_desk(list_sessions, role, limit=limit)
    emit_table(
        rows,
        as_json,
        cells(rows, "id state started_local ended wakes cost native_id", ended=_ended, cost=_cost),
        ["id", "state", "started", "ended", "wakes", "cost", "native id"],
        empty=f"{role}: no sessions yet",
    )


def _ended(r: Mapping[str, Any]) -> str:
    reason = f" ({r['end_reason']})" if r["end_reason"] else ""
    return f"{r['ended_local'] or ''}{reason}"


def _cost(r: Mapping[str, Any]) -> str:
    return f"${r['cost_usd']:.4f}"
