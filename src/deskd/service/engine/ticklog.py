"""``logs/tick.log``: one line per tick, even a quiet one (lesson 48), rotated by size.

The tick builds the line's words (it owns the tick's result); this module only appends and rotates.
"""

from __future__ import annotations

from pathlib import Path

from deskd.adapters.private import open_private, private_dir

MAX_BYTES = 1024 * 1024
KEEP = 3


def append_line(folder: Path, line: str) -> None:
    """Append one line to ``folder/tick.log``, rotating it past ``MAX_BYTES``."""
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
            fh.write(line.rstrip("\n") + "\n")
    except OSError:
        # A full disk or a read-only log folder must not fail the tick itself.
        pass
