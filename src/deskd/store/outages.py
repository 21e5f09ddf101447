"""Which of deskd's store errors a driver's error code is, so a command's advice matches the
cause (``deskd.errors.database_unavailable``): a full disk is not told to restore a backup.

Imported only when a statement or a connect failed: the session hook's path stays light.
"""

from __future__ import annotations

from deskd.errors import (
    StoreBusy,
    StoreCorrupt,
    StoreError,
    StoreFull,
    StoreReadOnly,
    StoreServerDown,
)

OUTAGES: dict[int | str, type[StoreError]] = {
    # SQLite's result codes: BUSY, LOCKED, READONLY, CORRUPT, NOTADB, FULL
    5: StoreBusy,
    6: StoreBusy,
    8: StoreReadOnly,
    14: StoreReadOnly,  # SQLITE_CANTOPEN: a file that is there, in a folder it cannot write to
    11: StoreCorrupt,
    26: StoreCorrupt,
    13: StoreFull,
    4874: StoreFull,  # SQLITE_IOERR_SHMSIZE: no room to make or grow the WAL's -shm file
    # PostgreSQL's SQLSTATEs: connection exception (the class), admin and crash shutdown,
    # cannot connect now, disk full, read-only transaction, lock not available, damage
    "08": StoreServerDown,
    "57P01": StoreServerDown,
    "57P02": StoreServerDown,
    "57P03": StoreServerDown,
    "53100": StoreFull,
    "25006": StoreReadOnly,
    "55P03": StoreBusy,
    "XX001": StoreCorrupt,
    "XX002": StoreCorrupt,
}
