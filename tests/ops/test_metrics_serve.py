"""`/metrics` on a real `deskd serve`: loopback reads it without a login; a client off
loopback (here: behind a local proxy that forwards its address) needs DESKD_METRICS_TOKEN,
and the supervisor's access code is no such token."""

from __future__ import annotations

import sys
from pathlib import Path

import httpx
from prometheus_client.parser import text_string_to_metric_families

from conftest import Desk

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "web"))
from web_helpers import WEB_DESK, serve

CODE = "correct-horse-battery"
TOKEN = "scrape-token-0123456789"
OUTSIDE = {"X-Forwarded-For": "203.0.113.9"}
PROXIED = {"DESKD_TRUSTED_PROXIES": "127.0.0.1"}  # the local proxy whose header is believed


def test_loopback_reads_the_metrics_without_a_login(desk: Desk) -> None:
    desk.write_desk(WEB_DESK)
    desk.ok("inbox", "enqueue", "--for", "alpha", "--source", "alert", "--title", "disk 91%")
    with serve(desk, DESKD_SUPERVISOR_ACCESS_CODE=CODE) as served:
        response = httpx.get(f"{served.url}/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain; version=0.0.4")
    families = {f.name: f for f in text_string_to_metric_families(response.text)}
    unread = {s.labels["role"]: s.value for s in families["deskd_items_unread"].samples}
    assert unread["alpha"] == 1


def test_off_loopback_it_needs_the_metrics_token_and_never_the_access_code(desk: Desk) -> None:
    desk.write_desk(WEB_DESK)
    with serve(desk, DESKD_SUPERVISOR_ACCESS_CODE=CODE, **PROXIED) as served:
        unset = httpx.get(f"{served.url}/metrics", headers=OUTSIDE)
    assert unset.status_code == 403
    assert "DESKD_METRICS_TOKEN" in unset.text
    with serve(
        desk, DESKD_SUPERVISOR_ACCESS_CODE=CODE, DESKD_METRICS_TOKEN=TOKEN, **PROXIED
    ) as served:
        url = f"{served.url}/metrics"
        bare = httpx.get(url, headers=OUTSIDE)
        code = httpx.get(url, headers={**OUTSIDE, "Authorization": f"Bearer {CODE}"})
        good = httpx.get(url, headers={**OUTSIDE, "Authorization": f"Bearer {TOKEN}"})
    assert bare.status_code == 401
    assert code.status_code == 401
    assert good.status_code == 200
    assert "deskd_items_unread" in good.text


def test_the_metrics_token_never_reaches_an_agent(desk: Desk) -> None:
    out = desk.json(
        "agent",
        "command",
        "--role",
        "alpha",
        DESKD_METRICS_TOKEN=TOKEN,
        DESKD_AGENT_CMD="/bin/true",
    )
    assert "DESKD_METRICS_TOKEN" in out["dropped"]
    assert TOKEN not in str(out)


def test_only_the_metrics_commands_load_prometheus_client(tmp_path: Path) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "docs"))
    from test_imports import modules_after

    (tmp_path / "deskd.toml").write_text(WEB_DESK)
    for args in (["status"], ["tick"], ["doctor"], ["timer", "status"]):
        loaded = modules_after(args, tmp_path, exit_code=None)
        assert not [m for m in loaded if m.startswith("prometheus_client")], args
    assert "prometheus_client" in modules_after(["metrics"], tmp_path)
