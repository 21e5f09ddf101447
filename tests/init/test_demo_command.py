"""`deskd demo`: the walkthrough runs end to end through the real CLI and session hook."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def run_demo(folder: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DESKD_")}
    return subprocess.run(
        [sys.executable, "-m", "deskd", "demo", "--dir", str(folder)],
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )


def test_it_shows_an_item_surface_through_the_hook_and_get_read(tmp_path: Path) -> None:
    proc = run_demo(tmp_path / "demo")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout
    # Each command is printed before its output, like a transcript.
    assert "$ deskd init" in out
    assert "$ DESKD_ROLE=alpha deskd status set --state working" in out
    assert "$ DESKD_ROLE=alpha deskd-session-hook < PostToolUse.json" in out
    assert "$ DESKD_ROLE=alpha deskd inbox ack --seen" in out
    # The hook surfaced both items, urgent first.
    context = [line for line in out.splitlines() if line.startswith("  │ ")]
    text = "\n".join(context)
    assert text.index("5xx above 2% on api") < text.index("nightly report")
    # The ledger went queued -> notified -> read, and alpha rested at the end.
    ledger_states = [
        line.split()[2]
        for line in out.splitlines()
        if line.startswith("  ") and len(line.split()) > 3 and line.split()[1] == "alpha"
    ]
    assert ledger_states.index("queued") < ledger_states.index("notified")
    assert ledger_states.index("notified") < ledger_states.index("read")
    assert "acked 2 items for alpha" in out
    # A dry-run tick plans a new session for beta, who has none, and launches nothing.
    tick = out.split("$ deskd tick", 1)[1]
    assert "spawn beta" in tick
    assert "dry-run" in tick
    assert (tmp_path / "demo" / "data" / "deskd.db").exists()


def test_it_stops_with_one_line_when_the_folder_already_has_a_desk(tmp_path: Path) -> None:
    folder = tmp_path / "demo"
    folder.mkdir()
    (folder / "deskd.toml").write_text("# someone's desk\n")
    proc = run_demo(folder)
    assert proc.returncode == 1
    assert "already exist" in proc.stdout
    assert proc.stderr.strip().splitlines()[-1].startswith("deskd: demo stopped")
    assert (folder / "deskd.toml").read_text() == "# someone's desk\n"
