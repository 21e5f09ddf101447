"""Why an executor died without a word: when a disk is full, it could not record it.

The executor records an OSError (a full disk for the agent's log, say) as the launch's
failure when the database can still take it. When the executor died instead (the database's
disk was full too), the healing tick that fails the launch looks at the disks it uses and
names a full one, so the ledger says more than ``executor died``.
"""

from __future__ import annotations

import os

from deskd.service.desk.context import DeskContext

LOW_DISK_BYTES = 16 * 1024 * 1024
"""Below this much free space a disk counts as full: SQLite, the logs and an agent's own
files all need room, and a launch writes more than this."""


def died_detail(ctx: DeskContext) -> str:
    """``executor died``, plus the full disk that likely killed it, if one is."""
    folders = [str(ctx.settings.log_path), str(ctx.settings.run_path)]
    if not ctx.settings.shared_database:
        folders.insert(0, os.path.dirname(ctx.settings.database) or ".")
    for folder in folders:
        try:
            found = os.statvfs(folder)
        except OSError:
            continue
        free = found.f_bavail * found.f_frsize
        if free < LOW_DISK_BYTES:
            return (
                f"executor died; the disk holding {folder} is full ({free // 1024} KiB free), "
                "so it could not record why: free space there"
            )
    return "executor died"
