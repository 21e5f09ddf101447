"""The repository guards itself: it tracks no file it should not (a database, a path a
Windows checkout or a URL parser chokes on, anything big outside ``docs/images``), and the
maps of the code in docs/architecture.md and docs/design.md name the packages as they are.

Why: a 331 KB SQLite database whose name held a password (``postgresql:/deskd:…``) was once
committed at the root, and the docs' maps had drifted (no ``web/``, no relay)."""

from __future__ import annotations

import re
import subprocess
from contextlib import closing
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "deskd"
MAX_BYTES = 1024 * 1024
BIG_ALLOWED = "docs/images/"
DATABASE_SUFFIXES = (".db", ".sqlite", ".sqlite3", ".db-wal", ".db-shm", ".db-journal")
SQLITE_MAGIC = b"SQLite format 3\x00"


def tracked() -> list[str]:
    try:
        out = subprocess.run(
            ["git", "-C", str(ROOT), "ls-files", "-z"], capture_output=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    return [p for p in out.decode("utf-8", "surrogateescape").split("\0") if p]


def misplaced(paths: list[str], root: Path = ROOT) -> list[str]:
    """Each tracked path that should not be in the repository, with why."""
    found = []
    for path in paths:
        file = root / path
        if not file.is_file():
            continue  # deleted in the work tree, not yet committed
        if any(c in path for c in ":?"):
            found.append(f"{path}: ':' or '?' in a path")
        with file.open("rb") as f:
            head = f.read(len(SQLITE_MAGIC))
        if path.lower().endswith(DATABASE_SUFFIXES) or head == SQLITE_MAGIC:
            found.append(f"{path}: a database")
        if file.stat().st_size > MAX_BYTES and not path.startswith(BIG_ALLOWED):
            found.append(f"{path}: over 1 MB outside {BIG_ALLOWED}")
    return found


def test_it_tracks_no_database_odd_path_or_big_file() -> None:
    assert misplaced(tracked()) == []


def test_no_two_test_modules_share_a_name() -> None:
    """The suite runs without packages under tests/ (rootdir-relative imports), so two test
    files with one basename stop collection with "import file mismatch"."""
    names: dict[str, list[str]] = {}
    for path in tracked():
        name = path.rsplit("/", 1)[-1]
        if path.startswith("tests/") and name.startswith("test_") and name.endswith(".py"):
            names.setdefault(name, []).append(path)
    assert {n: p for n, p in names.items() if len(p) > 1} == {}


def test_it_would_catch_a_committed_database(tmp_path: Path) -> None:
    import sqlite3

    with closing(sqlite3.connect(tmp_path / "state")) as conn:
        conn.execute("CREATE TABLE t (x)")
        conn.commit()
    (tmp_path / "docs" / "images").mkdir(parents=True)
    (tmp_path / "docs" / "images" / "big.png").write_bytes(b"x" * (MAX_BYTES + 1))
    (tmp_path / "big.log").write_bytes(b"x" * (MAX_BYTES + 1))
    (tmp_path / "a?b").write_text("x")
    assert misplaced(["state", "docs/images/big.png", "big.log", "a?b"], tmp_path) == [
        "state: a database",
        "big.log: over 1 MB outside docs/images/",
        "a?b: ':' or '?' in a path",
    ]


def top_level() -> set[str]:
    """The packages (``name/``) and modules (``name.py``) directly in src/deskd."""
    names = {p.name + "/" for p in SRC.iterdir() if (p / "__init__.py").is_file()}
    names |= {p.name for p in SRC.glob("*.py") if not p.name.startswith("__")}
    return names


def layer_table(doc: str) -> str:
    """The ``| layer | where | …`` table of a doc, as text."""
    text = (ROOT / "docs" / doc).read_text(encoding="utf-8")
    start = text.index("| layer | where |")
    end = text.index("\n\n", start)
    return text[start:end]


def named(table: str) -> set[str]:
    """The top-level names of src/deskd the ``where`` column of a layer table names."""
    found = set()
    for line in table.splitlines()[2:]:
        where = line.split("|")[2]
        for path in re.findall(r"`(?:src/deskd/)?([a-z_]+(?:/|\.py))[^`]*`", where):
            found.add(path)
    return found


@pytest.mark.parametrize("doc", ["architecture.md", "design.md"])
def test_the_layer_table_names_every_package_and_module(doc: str) -> None:
    names = named(layer_table(doc))
    assert sorted(top_level() - names) == []  # a package or module the map leaves out
    assert sorted(n for n in names if n.endswith("/") and n not in top_level()) == []


def test_design_names_no_module_that_is_gone() -> None:
    """Every ``folder/module.py`` design.md's map names exists under src/deskd."""
    text = layer_table("design.md")
    paths = set(re.findall(r"`([a-z_]+/(?:[a-z_]+/)*[a-z_]+\.py)`", text))
    assert paths, "design.md names no module"
    assert sorted(p for p in paths if not (SRC / p).is_file()) == []
