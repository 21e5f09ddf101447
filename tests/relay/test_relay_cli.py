"""``deskd relay`` refuses a desk it cannot serve, changing nothing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

BOUND_S = 120.0


def test_deskd_relay_on_a_sqlite_desk_is_refused(tmp_path: Path) -> None:
    home = tmp_path / "desk"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("DESKD_")}
    env["DESKD_HOME"] = str(home)
    done = subprocess.run(
        [sys.executable, "-m", "deskd", "relay"],
        env=env,
        capture_output=True,
        text=True,
        timeout=BOUND_S,
        check=False,
    )
    assert done.returncode == 1
    assert "serves PostgreSQL desks only" in done.stderr
    assert not (home / "run" / "relay.sock").exists()
