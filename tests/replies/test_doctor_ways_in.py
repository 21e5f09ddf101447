"""``deskd doctor`` checks the ways in: an ``[[events]]`` source whose variable is unset or
empty fails naming the source and the variable; with ``DESKD_REPLY_IMAP_URL`` set, doctor
logs in to a real IMAP server (dovecot) and selects the folder, and fails with the server's
reason when it cannot, never printing the password (marked ``imap``: skipped as that tier is)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from imap_server import PASSWORD, Imap, imap_server

from conftest import Desk

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "events"))
from events_helpers import EVENTS_DESK

SET = {"GH_SECRET": "gh-secret", "JSON_TOKEN": "json-token"}
"""Every source's variable but ``am``'s ``AM_TOKEN``."""


@pytest.fixture
def imap() -> Iterator[Imap]:
    with imap_server() as server:
        yield server


def ways_in(desk: Desk, **env: str) -> tuple[int, dict[str, Any], str]:
    """doctor's exit code, its ways-in checks by name, and all it printed."""
    out = desk.run("doctor", "--json", **env)
    checks = json.loads(out.stdout)["checks"]
    named = {c["name"]: c for c in checks if c["name"] in ("event sources", "reply mailbox")}
    return out.exit_code, named, out.stdout + out.stderr


def test_an_event_source_whose_variable_is_unset_or_empty_fails_naming_it(desk: Desk) -> None:
    desk.write_desk(EVENTS_DESK)
    code, checks, _ = ways_in(desk, **SET)
    assert code == 1 and not checks["event sources"]["ok"]
    assert checks["event sources"]["detail"].startswith("am: token ${AM_TOKEN} not set")
    assert "gh" not in checks["event sources"]["detail"]  # its variable is set
    (desk.home / ".env").write_text("AM_TOKEN=\n")  # empty is unset
    code, checks, _ = ways_in(desk, **SET)
    assert not checks["event sources"]["ok"] and "${AM_TOKEN}" in checks["event sources"]["detail"]
    (desk.home / ".env").write_text("AM_TOKEN=am-token\n")
    code, checks, out = ways_in(desk, **SET)
    assert checks["event sources"]["ok"], checks
    assert checks["event sources"]["detail"] == "am, gh, hook: each secret set"
    assert not any(value in out for value in ("am-token", *SET.values()))
    assert "reply mailbox" not in checks  # no DESKD_REPLY_IMAP_URL: nothing to check


@pytest.mark.imap
def test_doctor_logs_in_to_the_reply_mailbox_and_names_why_it_cannot(
    desk: Desk, imap: Imap
) -> None:
    from web_helpers import free_port

    _, checks, out = ways_in(desk, DESKD_REPLY_IMAP_URL=imap.url)
    assert checks["reply mailbox"]["ok"], checks
    assert checks["reply mailbox"]["detail"].endswith("logged in, folder selected")
    assert PASSWORD not in out
    wrong = imap.url.replace(PASSWORD, "not-the-password")
    code, checks, out = ways_in(desk, DESKD_REPLY_IMAP_URL=wrong)
    assert code == 1 and not checks["reply mailbox"]["ok"]
    assert "login refused: [AUTHENTICATIONFAILED]" in checks["reply mailbox"]["detail"]
    assert "not-the-password" not in out
    missing = imap.url.replace("/INBOX", "/Nowhere")
    _, checks, out = ways_in(desk, DESKD_REPLY_IMAP_URL=missing)
    detail = checks["reply mailbox"]["detail"]
    assert not checks["reply mailbox"]["ok"] and "cannot select folder 'Nowhere'" in detail
    assert PASSWORD not in out
    closed = f"imap://u:secret-pw@127.0.0.1:{free_port()}/INBOX"
    _, checks, out = ways_in(desk, DESKD_REPLY_IMAP_URL=closed)
    assert not checks["reply mailbox"]["ok"] and "refused" in checks["reply mailbox"]["detail"]
    assert "secret-pw" not in out
