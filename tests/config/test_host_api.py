"""The host Python API: a DESKD_CONFIG_MODULE's configure_deskd() declares roles (RoleSpec),
the time zone and inbox sources, a prompt builder, and Python channels (register_channel)
that the pager treats as any channel: results, retries with backoff, "settled"."""

from __future__ import annotations

import itertools
import json
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import Desk
from deskd.config.host import load_config_module

_names = itertools.count()

BARE_DESK = """\
[desk]
name = "host"

[[roles]]
name = "alpha"
"""


@pytest.fixture(autouse=True)
def _restore_imports(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(sys, "path", list(sys.path))
    before = set(sys.modules)
    yield
    for name in set(sys.modules) - before:
        if name.startswith("deskd_api_"):
            del sys.modules[name]
    load_config_module(None, desk_home=Path("."))


def host(desk: Desk, body: str) -> str:
    """Write a host module into the desk folder and point DESKD_CONFIG_MODULE at it."""
    name = f"deskd_api_{next(_names)}_{abs(hash(str(desk.home))) % 10**6}"
    (desk.home / f"{name}.py").write_text(textwrap.dedent(body), encoding="utf-8")
    desk.setenv("DESKD_CONFIG_MODULE", name)
    return name


def test_it_declares_roles_timezone_and_sources_from_python(desk: Desk) -> None:
    desk.write_desk(BARE_DESK)
    host(
        desk,
        """
        from deskd.config import RoleSpec, configure

        def configure_deskd():
            configure(
                roles=[RoleSpec(name="triager", title="Triager", capabilities=["triage"])],
                timezone="America/New_York",
                inbox_sources=["github"],
            )
        """,
    )
    out = desk.json(
        "inbox", "enqueue", "--capability", "triage", "--source", "github", "--title", "bug"
    )
    assert out["role"] == "triager"
    listed = desk.json("inbox", "list", "--for", "triager")
    assert [i["title"] for i in listed] == ["bug"]
    assert "America/New_York" not in (desk.home / "deskd.toml").read_text()
    hooks = desk.json("hook", "add", "--for", "alpha", "--title", "t", "--at", "2026-12-01T10:00")
    assert hooks["next_fire_at"] == "2026-12-01T15:00:00Z"  # 10:00 read in the host's zone


def test_a_timezone_in_both_places_is_refused_naming_both(desk: Desk) -> None:
    module = host(
        desk,
        """
        from deskd.config import configure

        def configure_deskd():
            configure(timezone="UTC")
        """,
    )
    out = desk.run("roles")
    assert out.exit_code == 1
    assert out.stderr.startswith("deskd: desk.timezone is defined twice")
    assert module in out.stderr


def test_the_prompt_builder_shapes_the_launch_prompt(desk: Desk) -> None:
    host(
        desk,
        """
        from deskd.config import configure

        def build(role, reasons, default):
            return f"[house rules for {role}] {list(reasons)}\\n" + default

        def configure_deskd():
            configure(prompt_builder=build)
        """,
    )
    desk.ok("inbox", "enqueue", "--for", "alpha", "--source", "alert", "--title", "disk",
            "--priority", "urgent")  # fmt: skip
    desk.json("tick", "--execute")
    prompt = desk.db().execute("SELECT prompt FROM attempts WHERE prompt IS NOT NULL").fetchone()
    assert prompt[0].startswith("[house rules for alpha] ['1 unread item (urgent)']\n")
    assert "disk" in prompt[0]


def test_a_failing_prompt_builder_keeps_deskds_prompt_and_says_why(desk: Desk) -> None:
    host(
        desk,
        """
        from deskd.config import configure

        def build(role, reasons, default):
            raise RuntimeError("template missing")

        def configure_deskd():
            configure(prompt_builder=build)
        """,
    )
    desk.ok("inbox", "enqueue", "--for", "alpha", "--source", "alert", "--title", "disk",
            "--priority", "urgent")  # fmt: skip
    desk.json("tick", "--execute")
    conn = desk.db()
    prompt = conn.execute("SELECT prompt FROM attempts WHERE prompt IS NOT NULL").fetchone()[0]
    assert "deskd woke you as role 'alpha'" in prompt
    (detail,) = conn.execute("SELECT detail FROM events WHERE kind = 'prompt_builder.failed'")
    assert json.loads(detail[0])["error"] == "RuntimeError: template missing"


CHANNEL = """
    import json, os
    from deskd.config import register_channel

    def send(message):
        path = os.environ["SENT_FILE"]
        fail = os.path.exists(path + ".fail")
        with open(path, "a") as out:
            out.write(json.dumps({{"title": message.title, "kind": message.kind,
                                  "failed": fail}}) + "\\n")
        if fail:
            raise ConnectionError("sms gateway down")

    def configure_deskd():
        register_channel("sms", send)
"""


def test_a_python_channel_is_paged_retried_and_settled(desk: Desk, tmp_path: Path) -> None:
    sent = tmp_path / "sent.jsonl"
    desk.monkeypatch.setenv("SENT_FILE", str(sent))
    desk.write_desk(
        (desk.home / "deskd.toml")
        .read_text()
        .replace(
            'inbox_sources = ["alert", "signal"]',
            'inbox_sources = ["alert", "signal"]\ndefault_channels = ["sms"]',
        )
        + '\n[[ladder]]\nrung = "notify"\nsla = "5m"\n\n[[ladder]]\nrung = "badge"\n'
    )
    host(desk, CHANNEL.format())
    (tmp_path / "sent.jsonl.fail").write_text("")
    item = desk.json("inbox", "enqueue", "--for", "alpha", "--source", "alert", "--title", "x")
    desk.advance(minutes=31)
    desk.json("tick", "--execute")
    (page,) = desk.json("pages")
    assert page["status"] == "failed"
    (channel,) = page["channels"]
    assert channel["url"] == "python://sms" and "sms gateway down" in channel["error"]
    (tmp_path / "sent.jsonl.fail").unlink()
    desk.advance(minutes=2)  # past the first backoff (1 min)
    desk.json("tick", "--execute")
    (page,) = desk.json("pages")
    assert page["status"] == "sent" and page["channels"][0]["tries"] == 2
    desk.ok("inbox", "ack", "--for", "alpha", "--id", str(item["id"]))
    desk.advance(minutes=1)
    desk.json("tick", "--execute")
    kinds = [json.loads(line)["kind"] for line in sent.read_text().splitlines()]
    assert kinds == ["page", "page", "settled"]
    listed = desk.json("channels")
    assert [c["urls"][0]["url"] for c in listed if c["name"] == "sms"] == ["python://sms"]
    assert desk.json("channels", "test", "sms")["status"] == "sent"


@pytest.mark.parametrize(
    ("call", "reason"),
    [
        ('register_channel("bad name", print)', "channel name 'bad name' must match"),
        ('register_channel("sms", 42)', "channel 'sms': send must be callable"),
        ('register_channel("sms", print); register_channel("sms", print)', "registered twice"),
    ],
)
def test_bad_channel_registrations_are_one_clear_line(desk: Desk, call: str, reason: str) -> None:
    host(
        desk,
        f"""
        from deskd.config import register_channel

        def configure_deskd():
            {call}
        """,
    )
    out = desk.run("roles")
    assert out.exit_code == 1 and reason in out.stderr and out.stderr.count("\n") == 1
