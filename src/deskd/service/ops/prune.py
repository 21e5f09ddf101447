"""``deskd prune``: bounded history (lesson 44). Deletes closed rows older than now − DUR in
one write transaction; live rows are never touched (see ``deskd.store.prune``)."""

from __future__ import annotations

from typing import NamedTuple

from deskd.core.timeparse import duration_text, iso_utc, parse_duration
from deskd.errors import OperatorOnly, StoreCorrupt, TooRecent
from deskd.service.desk.context import DeskContext
from deskd.service.ops.worktrees import prune_worktrees
from deskd.store import prune as rows
from deskd.store.attempts import running_launches
from deskd.store.db import integrity_problem
from deskd.store.records import JSON, shown

MIN_AGE_S = 86400
"""Below one day only with ``--force``: ``--older-than 0`` must not empty the history."""


class _Rollback(Exception):
    pass


_SHOWN = "cutoff dry_run deleted worktrees"


class PruneResult(NamedTuple):
    older_than_s: int
    cutoff: int
    dry_run: bool
    deleted: dict[str, int]
    """Rows per table, in ``store.prune.STEPS`` order (filled as each step runs)."""
    worktrees: tuple[JSON, ...] = ()
    """The worktrees of roles that left the desk: removed when clean, else kept."""

    @property
    def total(self) -> int:
        return sum(self.deleted.values())

    def to_json(self) -> JSON:
        """`prune --json`: rows deleted (or, dry, that would be) per table."""
        return {"older_than": self.older_than_s, **shown(self, _SHOWN, iso="cutoff")}


def check_prune(ctx: DeskContext, *, older_than: str, force: bool) -> int:
    """The refusals, before anything is opened: operator only, a valid DUR, at least 1d."""
    if ctx.settings.role:
        raise OperatorOnly(ctx.settings.role)
    seconds = parse_duration(older_than, what="--older-than")
    if seconds < MIN_AGE_S and not force:
        raise TooRecent(older_than)
    return seconds


def prune(
    ctx: DeskContext, *, older_than: str, force: bool = False, dry_run: bool = False
) -> PruneResult:
    """Delete closed history older than ``ctx.now - older_than`` in one transaction.

    ``dry_run`` runs the same deletes and rolls them back, so the counts are exact.
    """
    seconds = check_prune(ctx, older_than=older_than, force=force)
    result = PruneResult(
        older_than_s=seconds, cutoff=ctx.now - seconds * 1000, dry_run=dry_run, deleted={}
    )
    # PostgreSQL checks its own pages; `PRAGMA quick_check` is SQLite's.
    damaged = integrity_problem(ctx.conn) if ctx.conn.dialect == "sqlite" else None
    if damaged is not None:
        # Deleting rows rewrites pages across the file: never into a damaged one, which is
        # remembered (run/damaged) like damage any command finds.
        raise ctx.failed(StoreCorrupt(damaged))
    try:
        with ctx.write() as conn:
            result.deleted.update(rows.delete_before(conn, before=result.cutoff))
            if dry_run:
                raise _Rollback
            detail = {
                "older_than": duration_text(seconds),
                "cutoff": iso_utc(result.cutoff),
                "deleted": result.deleted,
            }
            ctx.event(conn, "pruned", actor="operator", detail=detail)
    except _Rollback:
        pass
    running = {a.role for a in running_launches(ctx.conn)}
    return result._replace(worktrees=tuple(prune_worktrees(ctx, dry_run=dry_run, running=running)))
