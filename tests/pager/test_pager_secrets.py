"""Channel URLs are secrets: masked wherever deskd shows them, and `deskd doctor` warns about
literal credentials in deskd.toml and a notify rung that reaches no one."""

from __future__ import annotations

import json

import pytest
from pager_helpers import desk_with, enqueue, free_port, http_receiver

from conftest import Desk
from deskd.adapters.channels.base import mask_url, scrub, secret_parts

PASSWORD = "hunter2-literal"
TOKEN = "tok3nAbCdEfGh123456"
ENV_SECRET = "W3bh00kSecretFromEnv987"


@pytest.mark.parametrize(
    ("url", "shown", "hidden"),
    [
        ("json://user:pw@127.0.0.1:80/hook", "json://user:****@127.0.0.1:80/hook", ["pw"]),
        (
            "discord://${WEBHOOK_ID}/${WEBHOOK_TOKEN}",
            "discord://${WEBHOOK_ID}/${WEBHOOK_TOKEN}",
            [],
        ),
        (
            "discord://123456789012345678/AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
            "discord://1…8/A…9",
            ["123456789012345678", "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"],
        ),
        (
            "tgram://123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw/12345",
            "tgram://1…w/12345",
            ["123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw"],
        ),
        ("ntfy://ntfy.sh/alerts?token=abc", "ntfy://ntfy.sh/alerts?token=****", ["abc"]),
        (
            "mailto://${SMTP_USER}:${SMTP_PASS}@example.com",
            "mailto://${SMTP_USER}:${SMTP_PASS}@example.com",
            [],
        ),
    ],
)
def test_it_masks_every_credential_and_keeps_placeholders(
    url: str, shown: str, hidden: list[str]
) -> None:
    assert mask_url(url) == shown
    assert secret_parts(url) == hidden
    for secret in hidden:
        assert secret not in mask_url(url)
        assert scrub(f"failed posting to {url}", hidden).count(secret) == 0


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
    assert {c["url"] for c in page["channels"]} == {
        f"json://ops:****@127.0.0.1:{rx.port}/hook?token=t…6",
        f"json://ops:****@127.0.0.1:{closed}/" + "${HOOK_SECRET}",
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
