"""`deskd serve` as a real uvicorn process: the access code generated and printed once and
kept only as a hash (0600), and the start-up refusals."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
from web_helpers import WEB_DESK, serve

from conftest import Desk


def log_in_over_http(url: str, code: str) -> int:
    # httpx waits 5 s by default: a loaded machine can take longer to answer a login.
    with httpx.Client(base_url=url, timeout=60) as client:
        form = client.get("/login").text
        token = re.search(r'name="csrf" value="([^"]+)"', form)
        assert token
        response = client.post("/login", data={"csrf": token.group(1), "code": code})
        return response.status_code


def test_it_prints_a_generated_code_once_and_keeps_only_its_hash(desk: Desk) -> None:
    desk.write_desk(WEB_DESK)
    with serve(desk) as first:
        code = first.code
        assert code and len(code) >= 16
        assert log_in_over_http(first.url, code) == 303
        assert log_in_over_http(first.url, code + "x") == 401
    stored = desk.home / "data" / "supervisor-access.json"
    assert stored.stat().st_mode & 0o777 == 0o600
    assert code not in stored.read_text()
    with serve(desk) as second:
        assert second.code is None  # printed once: the next start keeps the same code
        assert not any(code in line for line in second.printed)
        assert log_in_over_http(second.url, code) == 303


def test_it_refuses_a_public_bind_without_a_configured_code(desk: Desk) -> None:
    desk.write_desk(WEB_DESK)
    out = desk.run("serve", "--host", "0.0.0.0")
    assert out.exit_code == 1
    assert "not a loopback address" in out.stderr and "DESKD_SUPERVISOR_ACCESS_CODE" in out.stderr
    assert not (desk.home / "data" / "supervisor-access.json").exists()


def test_it_refuses_inside_an_agent_session_and_a_bad_port(desk: Desk) -> None:
    desk.write_desk(WEB_DESK)
    agent = desk.run("serve", role="alpha")
    assert agent.exit_code == 1 and "not an agent" in agent.stderr
    port = desk.run("serve", "--port", "99999")
    assert port.exit_code == 1 and "between 1 and 65535" in port.stderr


def test_doctor_reports_the_console_settings(desk: Desk) -> None:
    desk.write_desk(WEB_DESK)
    checks = {c["name"]: c for c in desk.run("doctor", "--json").json()["checks"]}
    assert (
        checks["console access code"]["ok"]
        and "generates one" in checks["console access code"]["detail"]
    )
    assert "loopback only" in checks["console bind"]["detail"]
    public = desk.run("doctor", "--json", DESKD_HOST="0.0.0.0").json()["checks"]
    code_check = next(c for c in public if c["name"] == "console access code")
    assert not code_check["ok"]


def test_signing_from_a_shell_loads_no_web_stack(desk: Desk, tmp_path: Path) -> None:
    import subprocess
    import sys

    desk.write_desk(WEB_DESK)
    pem = tmp_path / "k.pem"
    code = (
        "import sys\nfrom deskd.cli.main import main\n"
        "try:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
        "print('LOADED', ' '.join(sorted(m for m in ('fastapi', 'uvicorn', 'jinja2', 'starlette')"
        " if m in sys.modules)))"
    )
    for args in (
        ["supervisor", "keygen", "--out", str(pem), "--id", "a"],
        ["supervisor", "sign", "--key", str(pem), "--id", "a", "--path", "/"],
    ):
        out = subprocess.run(
            [sys.executable, "-c", code, *args],
            env={**desk.env(), "PATH": "/usr/bin:/bin"},
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert out.returncode == 0, out.stderr
        assert out.stdout.strip().endswith("LOADED"), out.stdout
