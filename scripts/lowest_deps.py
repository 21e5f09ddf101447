"""Pin every runtime dependency of pyproject.toml to its floor (``name>=X`` → ``name==X``).

``make test-lowest`` installs these pins in a separate virtualenv and runs the tests that
exercise each dependency, so a floor that is too low (an argument a release lacks) fails CI
instead of a user's install. Prints one requirement per line.
"""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

FLOOR = re.compile(r"^([A-Za-z0-9_.\[\]-]+)\s*>=\s*([0-9][0-9A-Za-z.]*)")


def floors(pyproject: Path) -> list[str]:
    data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    pins = []
    for spec in data["project"]["dependencies"]:
        match = FLOOR.match(spec)
        if match is None:
            raise SystemExit(f"{pyproject}: dependency {spec!r} has no >= floor to test")
        pins.append(f"{match.group(1)}=={match.group(2)}")
    return pins


if __name__ == "__main__":
    root = Path(__file__).resolve().parents[1]
    sys.stdout.write("\n".join(floors(root / "pyproject.toml")) + "\n")
