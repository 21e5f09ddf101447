"""The docs tell the truth about what is not built: roadmap.md holds only what is not built,
and any other page that says something is "not built", "coming", "still to come" or "does
not … yet" links to the roadmap section that lists it."""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_cli_docs import options_of, resolve
from test_links import anchors

ROOT = Path(__file__).resolve().parents[2]
ROADMAP = ROOT / "docs" / "roadmap.md"
NOT_BUILT = re.compile(
    r"not built|\bcoming\b|still to come|\b(?:does|do|is|are) not\b[^.;:]*?\byet\b", re.I
)
ROADMAP_LINK = re.compile(r"\]\((?:\.\./)?(?:docs/)?roadmap\.md#([^)\s]+)\)")


def pages() -> list[Path]:
    found = [ROOT / "README.md"]
    for folder in ("docs", "skills"):
        found += sorted((ROOT / folder).rglob("*.md"))
    return [p for p in found if p != ROADMAP]


def paragraphs(text: str) -> Iterator[str]:
    """Prose paragraphs and list items, each on one line (code blocks left out)."""
    text = re.sub(r"^(```|~~~).*?^\1", "", text, flags=re.S | re.M)
    for block in re.split(r"\n\s*\n", text):
        for item in re.split(r"\n(?=\s*(?:[-*]|\d+\.)\s)", block):
            yield " ".join(item.split())


def claims(text: str) -> Iterator[tuple[str, str]]:
    """(the words that say "not built", the paragraph) for every such claim."""
    for paragraph in paragraphs(text):
        for match in NOT_BUILT.finditer(paragraph):
            yield match.group(0), paragraph


def unlisted(text: str, listed: set[str]) -> list[str]:
    """The claims in ``text`` that link to no section of the roadmap that exists."""
    out = []
    for words, paragraph in claims(text):
        if not set(ROADMAP_LINK.findall(paragraph)) & listed:
            out.append(f"{words!r} in: {paragraph[:160]}")
    return out


@pytest.mark.parametrize("page", pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_not_built_claim_links_to_its_roadmap_section(page: Path) -> None:
    found = unlisted(page.read_text(encoding="utf-8"), anchors(ROADMAP))
    assert not found, (
        f"{page.relative_to(ROOT)} says something is not built without linking to its "
        "section of docs/roadmap.md (list it there, or fix the sentence): " + "; ".join(found)
    )


def test_the_checker_catches_a_stale_claim_and_accepts_a_listed_one() -> None:
    listed = {"a-light-session-hook-for-postgresql-desks"}
    assert unlisted("The console is still to come.\n", listed)
    assert unlisted("`.env` does not fill\n`${VAR}` yet.\n", listed)
    assert unlisted("Pages through channels are *coming*.\n", listed)
    assert unlisted("`serve` is not built yet ([roadmap.md](roadmap.md)).\n", listed)
    assert not unlisted(
        "The hook is not built yet ([roadmap](roadmap.md#a-light-session-hook-for-postgresql-desks)).",
        listed,
    )
    assert not unlisted("It does not page. Nothing else yet.\n", listed)  # two sentences
    assert not unlisted("```\n# coming soon\n```\n", listed)  # code is not prose


def roadmap_sections() -> list[str]:
    text = ROADMAP.read_text(encoding="utf-8")
    return re.findall(r"^### (.+)$", text, flags=re.M)


def test_the_roadmap_lists_sections_to_link_to() -> None:
    assert roadmap_sections()


@pytest.mark.parametrize("heading", roadmap_sections())
def test_a_command_the_roadmap_lists_does_not_exist(heading: str) -> None:
    """A roadmap section named after a command or option is not built: once the CLI has it,
    the section must go (its line moves to the CHANGELOG)."""
    for span in re.findall(r"`deskd ([^`]+)`", heading):
        words = shlex.split(span)
        try:
            path, command = resolve(words)
        except AssertionError:
            continue  # no such command: not built, as listed
        options = [w for w in words if w.startswith("--")]
        assert options and not set(options) <= options_of(command), (
            f"docs/roadmap.md lists `deskd {span}`, but deskd {path} has it: delete the section"
        )
