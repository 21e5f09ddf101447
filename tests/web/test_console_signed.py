"""Signed mode: Ed25519 assertions made with `deskd supervisor keygen|sign`, verified by the
console; stale, replayed, tampered, unknown-key and untrusted-key-file requests refused."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from web_helpers import CODE, WEB_DESK, Clock, log_in, make_app

from conftest import Desk

BODY = "reason=deploy"


@pytest.fixture
def keys(desk: Desk, tmp_path: Path) -> tuple[Path, Path]:
    desk.write_desk(WEB_DESK)
    desk.json("roles")
    pem, keys_file = tmp_path / "alice.pem", tmp_path / "supervisor.keys"
    out = desk.json(
        "supervisor", "keygen", "--out", str(pem), "--id", "alice", "--keys", str(keys_file)
    )
    assert out["line"].startswith("alice ") and (pem.stat().st_mode & 0o777) == 0o600
    keys_file.chmod(0o644)
    return pem, keys_file


def signed(
    desk: Desk, pem: Path, path: str, body: str = BODY, method: str = "POST"
) -> dict[str, str]:
    headers: dict[str, str] = desk.json(
        "supervisor", "sign", "--key", str(pem), "--id", "alice", "--method", method,
        "--path", path, "--data", body,
    )  # fmt: skip
    return headers


def app_for(
    desk: Desk, keys_file: Path, mode: str = "signed", clock: Clock | None = None
) -> TestClient:
    return TestClient(
        make_app(
            desk,
            clock or Clock(desk.now_ms),
            DESKD_SUPERVISOR_AUTH_MODE=mode,
            DESKD_SUPERVISOR_KEYS=str(keys_file),
            DESKD_SUPERVISOR_ACCESS_CODE=CODE,
        )
    )


def post(client: TestClient, path: str, headers: dict[str, str], body: str = BODY) -> object:
    return client.post(
        path,
        content=body,
        headers={
            **headers,
            "content-type": "application/x-www-form-urlencoded",
            "accept": "application/json",
        },
    )


def test_a_signed_action_runs_once_as_the_supervisor(desk: Desk, keys: tuple[Path, Path]) -> None:
    pem, keys_file = keys
    headers = signed(desk, pem, "/actions/pause")
    with app_for(desk, keys_file) as client:
        first = post(client, "/actions/pause", headers)
        before = desk.dump()
        replay = post(client, "/actions/pause", headers)
    assert first.status_code == 200 and first.json()["ok"]  # type: ignore[attr-defined]
    assert replay.status_code == 401 and "nonce already used" in replay.text  # type: ignore[attr-defined]
    assert desk.dump() == before
    events = [e for e in desk.json("status")["paused"]]
    assert events[0]["reason"] == "deploy"
    with desk.db() as conn:
        actor = conn.execute("SELECT actor FROM events WHERE kind = 'paused'").fetchone()[0]
    assert actor == "supervisor"


def test_a_signed_read_works_and_an_unsigned_one_is_refused(
    desk: Desk, keys: tuple[Path, Path]
) -> None:
    pem, keys_file = keys
    with app_for(desk, keys_file) as client:
        read = client.get("/wakes", headers=signed(desk, pem, "/wakes", body="", method="GET"))
        unsigned = client.get("/wakes", follow_redirects=False)
        form = client.get("/login").text
        login = client.post("/login", data={"code": CODE}, follow_redirects=False)
    assert read.status_code == 200 and "Attempt ledger" in read.text
    assert unsigned.status_code == 303
    assert "signed requests only" in form and 'name="code"' not in form
    assert login.status_code == 403  # signed mode takes no access code


def test_a_stale_assertion_is_refused(desk: Desk, keys: tuple[Path, Path]) -> None:
    pem, keys_file = keys
    headers = signed(desk, pem, "/actions/pause")
    clock = Clock(desk.now_ms)
    clock.advance(minutes=10, hours=0)
    clock.now += 1
    with app_for(desk, keys_file, clock=clock) as client:
        response = post(client, "/actions/pause", headers)
    assert response.status_code == 401 and "stale" in response.text  # type: ignore[attr-defined]
    assert desk.json("status")["paused"] == []


def test_a_tampered_body_path_or_key_is_refused(desk: Desk, keys: tuple[Path, Path]) -> None:
    pem, keys_file = keys
    with app_for(desk, keys_file) as client:
        body = post(client, "/actions/pause", signed(desk, pem, "/actions/pause"), "reason=other")
        path = post(client, "/actions/resume", signed(desk, pem, "/actions/pause"))
        other = {**signed(desk, pem, "/actions/pause"), "X-Deskd-Key": "mallory"}
        unknown = post(client, "/actions/pause", other)
    assert body.status_code == 401 and "bad signature" in body.text  # type: ignore[attr-defined]
    assert path.status_code == 401
    assert unknown.status_code == 401 and "unknown key" in unknown.text  # type: ignore[attr-defined]
    assert desk.json("status")["paused"] == []


def test_a_keys_file_others_can_write_is_refused(desk: Desk, keys: tuple[Path, Path]) -> None:
    pem, keys_file = keys
    keys_file.chmod(0o666)
    with app_for(desk, keys_file) as client:
        response = post(client, "/actions/pause", signed(desk, pem, "/actions/pause"))
    assert response.status_code == 503  # type: ignore[attr-defined]  # the server's own file
    assert "writable by group or others" in response.text  # type: ignore[attr-defined]
    env = {"DESKD_SUPERVISOR_AUTH_MODE": "signed", "DESKD_SUPERVISOR_KEYS": str(keys_file)}
    refused = desk.run("serve", **env)
    assert refused.exit_code == 1 and "chmod go-w" in refused.stderr
    doctor = desk.run("doctor", "--json", **env)
    check = next(c for c in doctor.json()["checks"] if c["name"] == "console keys")
    assert not check["ok"] and "writable" in check["detail"]


def test_hybrid_takes_a_session_or_a_signature(desk: Desk, keys: tuple[Path, Path]) -> None:
    pem, keys_file = keys
    with app_for(desk, keys_file, mode="hybrid") as client:
        signed_read = client.get("/", headers=signed(desk, pem, "/", body="", method="GET"))
        assert log_in(client).status_code == 303
        session_read = client.get("/")
    assert signed_read.status_code == 200 and session_read.status_code == 200


def test_keygen_never_overwrites_a_key(desk: Desk, keys: tuple[Path, Path]) -> None:
    pem, _ = keys
    before = pem.read_bytes()
    again = desk.run("supervisor", "keygen", "--out", str(pem), "--id", "alice")
    assert again.exit_code == 1 and "never overwritten" in again.stderr
    assert pem.read_bytes() == before
    assert os.stat(pem).st_mode & 0o077 == 0
