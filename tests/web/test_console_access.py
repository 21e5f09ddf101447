"""What the console accepts as access, over real `deskd serve`: sessions that end for good
(logout and a new code, across restarts), weak codes refused off loopback, and a signed
mode keys file trusted only when nobody else can change it or a folder above it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from http_helpers import client, csrf_in, keys_for, log_in, signed
from web_helpers import WEB_DESK, free_port, serve

from conftest import Desk


def test_a_logged_out_session_stays_out_after_a_restart(desk: Desk) -> None:
    desk.write_desk(WEB_DESK)
    with serve(desk) as served, client(served.url) as c:
        code = served.code
        assert code and log_in(c, code).status_code == 303
        cookie = str(c.cookies.get("deskd_session"))
        out = c.post("/logout", data={"csrf": csrf_in(c.get("/").text)})
        assert out.status_code == 303
    with serve(desk) as served, client(served.url, cookies={"deskd_session": cookie}) as c:
        replayed = c.get("/")
    assert replayed.status_code == 303 and replayed.headers["location"].startswith("/login")


def test_a_new_code_ends_every_session_of_the_old_one(desk: Desk) -> None:
    desk.write_desk(WEB_DESK)
    with serve(desk) as served, client(served.url) as c:
        old = served.code
        assert old and log_in(c, old).status_code == 303
        cookie = str(c.cookies.get("deskd_session"))
        assert c.get("/").status_code == 200
    with serve(desk, "--new-code") as served:
        new = served.code
        with client(served.url, cookies={"deskd_session": cookie}) as c:
            assert c.get("/").status_code == 303  # the old code's session is over
        with client(served.url) as c:
            assert log_in(c, str(old)).status_code == 401
            assert new and log_in(c, new).status_code == 303
    # and it stays over on the next start
    with (
        serve(desk) as served,
        client(served.url, cookies={"deskd_session": cookie}) as c,
    ):
        assert c.get("/").status_code == 303


def test_a_changed_configured_code_ends_the_old_sessions(desk: Desk) -> None:
    desk.write_desk(WEB_DESK)
    first, second = "first-code-long-enough", "second-code-long-enough"
    with serve(desk, DESKD_SUPERVISOR_ACCESS_CODE=first) as served, client(served.url) as c:
        assert log_in(c, first).status_code == 303
        cookie = str(c.cookies.get("deskd_session"))
    # unchanged: still in
    with (
        serve(desk, DESKD_SUPERVISOR_ACCESS_CODE=first) as served,
        client(served.url, cookies={"deskd_session": cookie}) as c,
    ):
        assert c.get("/").status_code == 200
    with (
        serve(desk, DESKD_SUPERVISOR_ACCESS_CODE=second) as served,
        client(served.url, cookies={"deskd_session": cookie}) as c,
    ):
        assert c.get("/").status_code == 303


def serve_refusal(desk: Desk, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """`deskd serve` that must refuse to start (a timeout if it serves instead)."""
    full = {k: v for k, v in os.environ.items() if not k.startswith("DESKD_")}
    full.update(desk.env(**env))
    deskd = str(Path(sys.executable).with_name("deskd"))
    return subprocess.run(
        [deskd, "serve", "--port", str(free_port()), *args],
        env=full,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_short_or_weak_code_is_refused_off_loopback_and_doctor_says_why(desk: Desk) -> None:
    desk.write_desk(WEB_DESK)
    out = serve_refusal(desk, "--host", "0.0.0.0", DESKD_SUPERVISOR_ACCESS_CODE="a")
    assert out.returncode == 1
    assert out.stderr.count("\n") == 1 and "has 1 characters" in out.stderr
    assert "at least 16" in out.stderr
    checks = desk.run("doctor", "--json", DESKD_HOST="0.0.0.0", DESKD_SUPERVISOR_ACCESS_CODE="a")
    code_check = next(c for c in checks.json()["checks"] if c["name"] == "console access code")
    assert not code_check["ok"] and "at least 16" in code_check["detail"]
    weak = desk.run("doctor", "--json", DESKD_HOST="0.0.0.0", DESKD_SUPERVISOR_ACCESS_CODE="a" * 16)
    found = next(c for c in weak.json()["checks"] if c["name"] == "console access code")
    assert not found["ok"] and "has 1 different characters" in found["detail"]  # long, not strong
    strong = "tq7-Wv2m-Kp9x-4Rz"
    for host, code in (("127.0.0.1", "a"), ("0.0.0.0", strong)):  # fine: loopback, or strong
        fine = desk.run("doctor", "--json", DESKD_HOST=host, DESKD_SUPERVISOR_ACCESS_CODE=code)
        found = next(c for c in fine.json()["checks"] if c["name"] == "console access code")
        assert found["ok"], (host, found)


@pytest.mark.parametrize(
    "damage", ["world-writable folder", "another owner", "group-writable parent"]
)
def test_a_keys_file_others_could_change_is_refused(
    desk: Desk, tmp_path: Path, damage: str
) -> None:
    desk.write_desk(WEB_DESK)
    folder = tmp_path / "keys" / "inner"
    pem, keys_file = keys_for(desk, folder)
    folder.chmod(0o700)
    env = {"DESKD_SUPERVISOR_AUTH_MODE": "signed", "DESKD_SUPERVISOR_KEYS": str(keys_file)}
    with serve(desk, **env) as served, client(served.url) as c:
        assert c.get("/", headers=signed(desk, pem, "/")).status_code == 200
        if damage == "world-writable folder":
            folder.chmod(0o777)
            expected = f"folder {folder} is writable by group or others"
        elif damage == "another owner":
            os.chown(keys_file, 65534, 65534)
            expected = "owned by uid 65534"
        else:
            folder.parent.chmod(0o775)
            expected = f"folder {folder.parent} is writable by group or others"
        refused = c.get("/", headers={**signed(desk, pem, "/"), "Accept": "application/json"})
    assert refused.status_code == 503 and expected in refused.json()["error"]["message"]
    out = serve_refusal(desk, **env)
    assert out.returncode == 1 and expected in out.stderr
