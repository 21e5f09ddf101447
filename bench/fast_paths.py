"""What each start-up trick saves, as interleaved fresh processes (docs/performance.md).

An agent-facing command (``inbox list``) and the tick (the dry and the executing one, which
cron runs every minute), each on its own temporary desk, in these forms:

- ``click``: the console script as it is;
- ``pydantic settings``: the same, with ``DESKD_PORT=8000`` set, a variable any settings
  reader must check, so the settings are validated by the pydantic-settings model;
- ``no desk cache``: the console script on a desk whose ``run/desk-cache.json`` is a folder
  (the cache can be neither read nor written), so the desk file is validated by pydantic on
  every call;
- with ``--upstream DESKD``, that ``deskd`` console script (upstream deskd 0.4.3 in its own
  virtualenv: ``pip download deskd==0.4.3``) running ``inbox list --for alpha`` on its own
  empty desk.

Run:  .venv/bin/python bench/fast_paths.py [--runs 15] [--upstream /tmp/up/venv/bin/deskd]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cli_latency import clean_env, deskd_argv, make_desk
from interleave import Form, interleave, print_table, report

COMMANDS = {
    "inbox list": ["inbox", "list", "--for", "alpha"],
    "tick --dry-run": ["tick", "--dry-run"],
    "tick --execute": ["tick", "--execute"],
}


def forms(root: Path, upstream: str | None) -> list[Form]:
    deskd = deskd_argv()
    cached, uncached = make_desk(root, "cached"), make_desk(root, "uncached")
    (uncached / "run" / "desk-cache.json").mkdir(parents=True)
    plain = clean_env(cached)
    checked = {**plain, "DESKD_PORT": "8000"}
    validated = clean_env(uncached)
    out = [Form("python -c pass", [sys.executable, "-c", "pass"], plain)]
    for name, args in COMMANDS.items():
        out += [
            Form(f"{name}: click", [*deskd, *args], plain),
            Form(f"{name}: pydantic settings", [*deskd, *args], checked),
            Form(f"{name}: no desk cache", [*deskd, *args], validated),
        ]
    if upstream:
        home = root / "upstream"
        home.mkdir()
        env = {**clean_env(home), "DESKD_HOME": str(home)}
        out.append(Form("inbox list: upstream 0.4.3", [upstream, *COMMANDS["inbox list"]], env))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--upstream", help="upstream deskd's console script")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="deskd-fast-") as tmp:
        samples = interleave(forms(Path(tmp), args.upstream), args.runs)
    print_table(report(samples, "python -c pass"), "python -c pass")


if __name__ == "__main__":
    main()
