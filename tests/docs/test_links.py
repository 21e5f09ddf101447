"""The docs stand alone: every link and every backticked repository path they give exists.

Checked across README.md, CHANGELOG.md, docs/ and skills/: markdown links to files (and to a
heading's anchor in a markdown file), and inline code spans that name a path in this
repository (``docs/contract.md``, ``tests/hook/fixtures``, ``src/deskd/schedule/rules.py``, a
bare ``lessons.md``), and the function a ``file.py::name`` span names. Web links are not fetched; paths of a desk (``logs/tick.log``) and
placeholders (``tests/<dir>``) are not repository paths and are left alone.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
REPO_DIRS = ("docs/", "src/", "tests/", "skills/", "scripts/", "bench/", ".ci/")
ROOT_FILES = ("README.md", "CHANGELOG.md", "LICENSE", "Makefile", "pyproject.toml")

LINK = re.compile(r"(?<!!)\[[^\]\n]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
CODE_SPAN = re.compile(r"`([^`\n]+)`")
FENCE = re.compile(r"^(```|~~~).*?^\1", flags=re.S | re.M)
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", flags=re.M)


def documents() -> list[Path]:
    found = [ROOT / "README.md", ROOT / "CHANGELOG.md"]
    for folder in ("docs", "skills"):
        found += sorted((ROOT / folder).rglob("*.md"))
    return [p for p in found if p.is_file()]


def markdown_names() -> set[str]:
    """Basenames of the repository's markdown files (a bare ``x.md`` must be one of them)."""
    found = set(ROOT.glob("*.md"))
    for folder in REPO_DIRS:
        found.update((ROOT / folder).rglob("*.md"))
    return {p.name for p in found}


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"`|\*\*|\[([^\]]*)\]\([^)]*\)", r"\1", heading).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = FENCE.sub("", path.read_text(encoding="utf-8"))
    seen: dict[str, int] = {}
    out = set()
    for heading in HEADING.findall(text):
        base = slug(heading)
        count = seen.get(base, 0)
        seen[base] = count + 1
        out.add(base if count == 0 else f"{base}-{count}")
    return out


def broken_links(doc: Path, text: str) -> Iterator[str]:
    """Markdown links in ``text`` (the contents of ``doc``) to files or anchors that do not exist."""
    prose = FENCE.sub("", text)
    for target in LINK.findall(prose):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto: ...
            continue
        file_part, _, anchor = target.partition("#")
        path = (doc.parent / file_part).resolve() if file_part else doc
        if not path.is_relative_to(ROOT):
            yield f"{target}: outside the repository"
        elif not path.exists():
            yield f"{target}: no such file"
        elif anchor and path.suffix == ".md" and anchor not in anchors(path):
            yield f"{target}: {path.name} has no heading #{anchor}"


def repo_path(span: str) -> str | None:
    """The repository path an inline code span names, or None when it names none."""
    text = span.strip().split("::", 1)[0]
    text = re.sub(r":\d+$", "", text).rstrip("/")
    if not text or re.search(r"[\s<>*{}$…|]", text):
        return None
    if text.startswith(REPO_DIRS) or text in ROOT_FILES:
        return text
    if "/" not in text and text.endswith(".md"):
        return text
    return None


def broken_paths(doc: Path, text: str, names: set[str]) -> Iterator[str]:
    """Backticked repository paths in ``text`` that do not exist."""
    prose = FENCE.sub("", text)
    for span in CODE_SPAN.findall(prose):
        path = repo_path(span)
        if path is None:
            continue
        if "/" not in path and path.endswith(".md"):
            if path not in names:
                yield f"`{span}`: no markdown file of that name in the repository"
        elif not (ROOT / path).exists():
            yield f"`{span}`: no such path in the repository"
        elif "::" in span and path.endswith(".py"):
            name = span.split("::", 1)[1].strip()
            if not re.search(rf"^def {re.escape(name)}\(", (ROOT / path).read_text(), re.M):
                yield f"`{span}`: {path} has no function {name}"


@pytest.mark.parametrize("doc", documents(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_link_in_the_docs_reaches_a_file_in_the_repository(doc: Path) -> None:
    assert list(broken_links(doc, doc.read_text(encoding="utf-8"))) == []


@pytest.mark.parametrize("doc", documents(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_backticked_repository_path_exists(doc: Path) -> None:
    names = markdown_names()
    assert list(broken_paths(doc, doc.read_text(encoding="utf-8"), names)) == []


def test_the_docs_checked_include_every_docs_page_and_the_skill() -> None:
    checked = {str(p.relative_to(ROOT)) for p in documents()}
    assert {"README.md", "CHANGELOG.md", "skills/agent-orchestration/SKILL.md"} <= checked
    assert {"docs/architecture.md", "docs/contract.md", "docs/lessons.md"} <= checked


def test_the_checker_refuses_what_does_not_exist() -> None:
    doc = ROOT / "docs" / "example.md"
    text = (
        "See [the design](../DESIGN-NOTES.md), [outside](../../outside/RULES.md),\n"
        "[a heading](contract.md#no-such-heading), [fine](cli.md) and [web](https://x.org).\n"
        "Rules in `RULES.md` and `docs/nothing.md`, code in `src/deskd/nothing.py`;\n"
        "held by `tests/docs/test_links.py::test_nothing` and `tests/docs/test_links.py::slug`;\n"
        "but `logs/tick.log`, `tests/<dir>` and `deskd tick` are not repository paths.\n"
        "```\n[in a fence](nowhere.md) `docs/also-nowhere.md`\n```\n"
    )
    links = list(broken_links(doc, text))
    assert [line.split(":")[0] for line in links] == [
        "../DESIGN-NOTES.md",
        "../../outside/RULES.md",
        "contract.md#no-such-heading",
    ]
    assert "outside the repository" in links[1]
    paths = list(broken_paths(doc, text, markdown_names()))
    assert paths == [
        "`RULES.md`: no markdown file of that name in the repository",
        "`docs/nothing.md`: no such path in the repository",
        "`src/deskd/nothing.py`: no such path in the repository",
        "`tests/docs/test_links.py::test_nothing`: tests/docs/test_links.py has no function "
        "test_nothing",
    ]
