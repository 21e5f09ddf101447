"""``logs/tick.log``: one line per tick, even a quiet one (LESSONS 48), rotated by size."""

from __future__ import annotations

from typing import TYPE_CHECKING

from deskd.adapters.private import open_private, private_dir
from deskd.core.timeparse import iso_utc

if TYPE_CHECKING:
    from deskd.service.context import DeskContext
    from deskd.service.tick import TickResult

MAX_BYTES = 1024 * 1024
KEEP = 3


def log_tick(ctx: DeskContext, result: TickResult) -> None:
    """Append the tick's line: when, which desk and database, dry/execute, what it did."""
    p = result.plan
    mode = "dry-run" if result.dry_run else "execute"
    if result.error:
        what = f"error: {result.error}"
    elif result.skipped:
        what = f"skipped: {result.skipped}"
    elif p is None:
        what = "no plan"
    else:
        what = (
            f"demands={len(p.demands)} closed={len(p.closures)} attempts={len(p.attempts)} "
            f"launches={len(p.launches)} pages={len(p.pages)} hooks={len(result.hooks_fired)}"
        )
    line = (
        f"{iso_utc(result.now)} desk={ctx.settings.desk_path} db={ctx.settings.db_path} "
        f"{mode} {what}\n"
    )
    folder = ctx.settings.log_path
    try:
        private_dir(folder)
        path = folder / "tick.log"
        if path.exists() and path.stat().st_size > MAX_BYTES:
            for n in range(KEEP - 1, 0, -1):
                older = folder / f"tick.log.{n}"
                if older.exists():
                    older.replace(folder / f"tick.log.{n + 1}")
            path.replace(folder / "tick.log.1")
        with open_private(path, "a", encoding="utf-8") as fh:
            fh.write(line)
    except OSError:
        # A full disk or a read-only log folder must not fail the tick itself.
        pass
