"""Channel URLs are secrets: masked wherever deskd shows them, and `deskd doctor` warns about
literal credentials in deskd.toml and a notify rung that reaches no one."""

from __future__ import annotations

import json

import pytest
from pager_helpers import (  # noqa: F401  (no_send_waits: a fixture)
    desk_with,
    enqueue,
    free_port,
    http_receiver,
    no_send_waits,
)

from conftest import Desk
from deskd.adapters.channels.base import scrub
from deskd.adapters.channels.privacy import private_url, secret_parts
from deskd.config.desk import expand_vars

pytestmark = pytest.mark.usefixtures("no_send_waits")

PASSWORD = "hunter2-literal"
TOKEN = "tok3nAbCdEfGh123456"
ENV_SECRET = "W3bh00kSecretFromEnv987"


VALUES = {"WEBHOOK_ID": "123456789012345678", "WEBHOOK_TOKEN": "AbCdEfGhIjKlMnOpQrStUv"}


@pytest.mark.parametrize(
    ("url", "starts", "hidden"),
    [
        # A webhook's path is often its token: hidden like a password.
        ("json://user:pw@127.0.0.1:80/hook", "json://user:****@127.0.0.1/****", ["pw", "hook"]),
        (
            "json://hooks.example.com/path/tok3nSECRETvalue12345",
            "json://hooks.example.com/****/t...5",
            ["tok3nSECRETvalue12345"],
        ),
        (
            "discord://${WEBHOOK_ID}/${WEBHOOK_TOKEN}",
            "discord://1...8/A...v/",
            ["123456789012345678", "AbCdEfGhIjKlMnOpQrStUv"],
        ),
        (
            "discord://123456789012345678/AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
            "discord://1...8/A...9/",
            ["123456789012345678", "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"],
        ),
        (
            "tgram://123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw/12345",
            "tgram://1...w/12345/",
            ["123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw"],
        ),
        # What the hand-written mask missed (issue 11): apprise's parse knows each format.
        ("ntfy://host.example.com/mytopic123secret", "ntfy://host.example.com/m...t", []),
        ("gotify://host.example.com/AbCdEfGhIjKlMnOp123", "gotify://host.example.com/A...3/", []),
        ("json://host.example.com/?+X-Token=supersecret99", "json://host.example.com/?", []),
        ("mailto://user:p%2Fss@example.com", "mailto://user:****@example.com/", ["p/ss"]),
        # apprise cannot read this one: only the scheme and host are shown.
        ("mailto://user:p/ss@example.com", "mailto://****:****/****@example.com", []),
        ("discord://${UNSET_HOOK}", "discord://${UNSET_HOOK}", []),
    ],
)
def test_it_shows_a_url_through_apprises_privacy_rendering(
    url: str, starts: str, hidden: list[str]
) -> None:
    shown = private_url(url, VALUES)
    assert shown.startswith(starts), shown
    real = expand_vars(url, VALUES)
    for secret in [*hidden, "mytopic123secret", "AbCdEfGhIjKlMnOp123", "supersecret99", "p/ss"]:
        assert secret not in shown
    for secret in hidden:
        assert secret in secret_parts(real)
        assert secret not in scrub(f"failed posting to {real}", secret_parts(real))


def test_secrets_are_masked_everywhere_deskd_shows_them(desk: Desk) -> None:
    desk.monkeypatch.setenv("HOOK_SECRET", ENV_SECRET)
    closed = free_port()
    with http_receiver() as rx:
        urls = [
            f"json://ops:{PASSWORD}@127.0.0.1:{rx.port}/hook?token={TOKEN}",
            f"json://ops:{PASSWORD}@127.0.0.1:{closed}/" + "${HOOK_SECRET}",
        ]
        desk.write_desk(desk_with({"ops": urls}, default=["ops"]))
        enqueue(desk, priority="urgent")
        shown = [desk.ok("tick", "--execute", "--json").stdout]
        assert len(rx.got) == 1
    shown.append(desk.ok("pages", "--json").stdout)
    shown.append(desk.ok("pages").stdout)
    shown.append(desk.ok("channels", "--json").stdout)
    shown.append(desk.ok("channels").stdout)
    shown.append(desk.run("channels", "test", "ops", "--json").stdout)
    doctor = desk.run("doctor", "--json")
    shown += [doctor.stdout, doctor.stderr]
    shown.append((desk.home / "logs" / "tick.log").read_text())
    shown.append(json.dumps(desk.dump(), default=str))  # the database keeps only masked URLs
    for text in shown:
        for secret in (PASSWORD, TOKEN, ENV_SECRET):
            assert secret not in text, (secret, text[:2000])
    page = desk.json("pages")[0]
    assert page["status"] == "partial"
    shown_urls = {c["url"].split("?")[0] for c in page["channels"]}
    assert shown_urls == {
        f"json://ops:****@127.0.0.1:{closed}/" + "${HOOK_SECRET}",
        f"json://ops:****@127.0.0.1:{rx.port}/****",
    }


def test_doctor_warns_about_literal_credentials_and_an_unwired_human_rung(desk: Desk) -> None:
    desk.write_desk(
        desk_with({"ops": [f"json://u:{PASSWORD}@127.0.0.1:9/x"]}, roles={"alpha": ["ops"]})
    )
    checks = {c["name"]: c for c in desk.run("doctor", "--json").json()["checks"]}
    assert checks["channel secrets"]["level"] == "warn"
    assert "literal credentials" in checks["channel secrets"]["detail"]
    assert PASSWORD not in checks["channel secrets"]["detail"]
    human = checks["human rung"]
    assert human["level"] == "warn" and "human rung unwired" in human["detail"]
    assert "beta, gamma" in human["detail"]


def test_doctor_is_content_when_every_role_pages_through_variables(desk: Desk) -> None:
    desk.monkeypatch.setenv("OPS_HOOK", "x")
    desk.write_desk(desk_with({"ops": ["discord://${OPS_HOOK}"]}, default=["ops"]))
    checks = {c["name"]: c for c in desk.run("doctor", "--json").json()["checks"]}
    assert checks["human rung"]["level"] == "ok"
    assert checks["channel secrets"]["level"] == "ok"
    assert "channel variables" not in checks
    desk.monkeypatch.delenv("OPS_HOOK")
    checks = {c["name"]: c for c in desk.run("doctor", "--json").json()["checks"]}
    assert checks["channel variables"]["detail"] == "not set: ops: ${OPS_HOOK}"


@pytest.mark.parametrize(
    ("url", "literal"),
    [
        ("gotify://host.example.com/AbCdEfGhIjKlMnOp123", True),
        ("json://host.example.com/?+X-Token=supersecret99", True),
        ("mailto://user:p%2Fss@example.com", True),
        ("discord://${OPS_ID}/${OPS_TOKEN}", False),
        ("mailto://ops:${SMTP_PASS}@example.com", False),
        ("json://127.0.0.1:8080/hook", True),  # a webhook path is a credential
        ("json://127.0.0.1:8080/${OPS_TOKEN}", False),
    ],
)
def test_doctor_finds_literal_credentials_with_apprises_parse(
    desk: Desk, url: str, literal: bool
) -> None:
    desk.monkeypatch.setenv("OPS_ID", "123456789012345678")
    desk.monkeypatch.setenv("OPS_TOKEN", "AbCdEfGhIjKlMnOpQrStUv")
    desk.monkeypatch.setenv("SMTP_PASS", "smtp-pass-99")
    desk.write_desk(desk_with({"ops": [url]}, default=["ops"]))
    checks = {c["name"]: c for c in desk.run("doctor", "--json").json()["checks"]}
    assert (checks["channel secrets"]["level"] == "warn") is literal, checks["channel secrets"]
    for secret in ("AbCdEfGhIjKlMnOp123", "supersecret99", "p/ss", "smtp-pass-99"):
        assert secret not in checks["channel secrets"]["detail"]
