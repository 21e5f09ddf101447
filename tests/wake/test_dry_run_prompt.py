"""A dry tick shows the prompt an executing tick records, the host's prompt builder's
included: the dry run promises the same plan."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import Desk, urgent
from deskd.config.host import load_config_module

BUILDER = """\
from deskd.config import configure

def build(role, reasons, default):
    return f"[house rules for {role}] {list(reasons)}\\n" + default

def configure_deskd():
    configure(prompt_builder=build)
"""


@pytest.fixture(autouse=True)
def _restore_imports(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(sys, "path", list(sys.path))
    before = set(sys.modules)
    yield
    for name in set(sys.modules) - before:
        if name.startswith("deskd_dry_prompt_"):
            del sys.modules[name]
    load_config_module(None, desk_home=Path("."))


def test_it_previews_the_prompt_the_builder_makes(desk: Desk) -> None:
    name = f"deskd_dry_prompt_{abs(hash(str(desk.home))) % 10**6}"
    (desk.home / f"{name}.py").write_text(textwrap.dedent(BUILDER), encoding="utf-8")
    desk.setenv("DESKD_CONFIG_MODULE", name)
    urgent(desk)
    before = desk.dump()
    (dry,) = desk.json("tick")["actions"]
    assert desk.dump() == before  # a preview writes nothing
    assert dry["prompt"].startswith("[house rules for alpha] ['1 unread item (urgent)']\n")

    desk.json("tick", "--execute")
    with desk.db() as conn:
        (recorded,) = conn.execute("SELECT prompt FROM attempts WHERE prompt IS NOT NULL")
    assert dry["prompt"] == recorded[0]
