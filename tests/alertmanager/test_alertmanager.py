"""A real Alertmanager notifies a real `deskd serve` through its webhook receiver: a firing
alert becomes an item and a wake within one tick, its resolved notice acknowledges the item,
Alertmanager's own repeats of a notification add nothing, and a receiver with a wrong token
is refused (401) and writes nothing.

Marked ``alertmanager`` (``pytest -m alertmanager`` runs the tier alone). Without the binary
(Debian's ``prometheus-alertmanager``; ``DESKD_ALERTMANAGER`` names another) the tier is
skipped with a one-line reason, except under ``CI=true``, where it is mandatory and fails
instead. Both processes listen on loopback only; every wait polls for its event under a
deadline that only a real hang reaches.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from conftest import Desk
from server_tiers import find_binary, stop, wait_for

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "web"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "events"))
from events_helpers import EVENTS_DESK
from web_helpers import free_port, serve

pytestmark = pytest.mark.alertmanager

TOKEN = "am-tier-token-0123456789"


@pytest.fixture(scope="module", name="alertmanager_bin")
def installed_alertmanager() -> str:
    names = ("prometheus-alertmanager", "alertmanager")
    return find_binary("alertmanager", "DESKD_ALERTMANAGER", names, "prometheus-alertmanager")


@pytest.fixture
def alertmanager(alertmanager_bin: str, tmp_path: Path) -> Iterator[Any]:
    """``start(events_url)`` starts Alertmanager with one receiver holding two webhooks to
    ``events_url``: one with the right token, one with a wrong one. Returns its API URL."""
    procs: list[subprocess.Popen[bytes]] = []

    def start(events_url: str) -> str:
        port = free_port()
        config = tmp_path / "alertmanager.yml"
        hooks = "".join(
            f"      - url: {events_url}\n        send_resolved: true\n"
            f"        http_config:\n          authorization:\n            credentials: {token}\n"
            for token in (TOKEN, "a-wrong-token")
        )
        config.write_text(
            "route:\n  receiver: deskd\n  group_by: [alertname]\n"
            "  group_wait: 1s\n  group_interval: 1s\n  repeat_interval: 2s\n"
            f"receivers:\n  - name: deskd\n    webhook_configs:\n{hooks}",
            encoding="utf-8",
        )
        log = (tmp_path / "alertmanager.log").open("wb")
        procs.append(
            subprocess.Popen(
                [
                    alertmanager_bin,
                    f"--config.file={config}",
                    f"--storage.path={tmp_path / 'am-data'}",
                    f"--web.listen-address=127.0.0.1:{port}",
                    "--cluster.listen-address=",  # no gossip port: one instance, loopback only
                    "--log.level=warn",
                ],
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        )
        api = f"http://127.0.0.1:{port}"
        wait_for("Alertmanager to be ready", lambda: httpx.get(f"{api}/-/ready").is_success)
        return api

    yield start
    for proc in procs:
        stop(proc)


def post_alert(api: str, *, resolved: bool) -> None:
    now = datetime.now(UTC).isoformat()
    alert: dict[str, Any] = {
        "labels": {"alertname": "DiskFull", "instance": "db1", "severity": "critical"},
        "annotations": {"summary": "disk 91% on db1"},
        "startsAt": "2026-01-01T00:00:00Z",
    }
    if resolved:
        alert["endsAt"] = now
    httpx.post(f"{api}/api/v2/alerts", json=[alert], timeout=30).raise_for_status()


def sent(api: str, metric: str) -> float:
    """Alertmanager's own count of webhook notifications (``…_total``) so far."""
    text = httpx.get(f"{api}/metrics", timeout=30).text
    return sum(
        float(line.rsplit(" ", 1)[1])
        for line in text.splitlines()
        if line.startswith(metric + "{") and 'integration="webhook"' in line
    )


def rows(desk: Desk, sql: str) -> list[tuple[Any, ...]]:
    with desk.db() as conn:
        return [tuple(r) for r in conn.execute(sql).fetchall()]


def test_a_real_alertmanager_opens_wakes_and_resolves(
    desk: Desk, alertmanager: Any, tmp_path: Path
) -> None:
    desk.write_desk(EVENTS_DESK)  # its source am: Alertmanager, for alpha
    (desk.home / ".env").write_text(f"AM_TOKEN={TOKEN}\n", encoding="utf-8")
    desk.json("inbox", "list", "--for", "alpha")
    with serve(desk) as served:
        api = alertmanager(f"{served.url}/events/am")
        post_alert(api, resolved=False)
        [item] = wait_for(
            "the firing alert's item",
            lambda: rows(desk, "SELECT id, role, source, priority, title FROM items"),
        )
        assert item[1:] == ("alpha", "am", 3, "DiskFull: disk 91% on db1")
        tick = desk.json("tick", "--execute")
        assert rows(desk, "SELECT role, kind FROM attempts") == [("alpha", "inbox")], tick
        # Alertmanager repeats the notification (repeat_interval) and tries the wrong token
        # each time: wait for both, then nothing more was written.
        wait_for(
            "a repeated notification",
            lambda: (
                sent(api, "alertmanager_notifications_total")
                - sent(api, "alertmanager_notifications_failed_total")
                >= 2
            ),
        )
        wait_for(
            "a refused notification",
            lambda: sent(api, "alertmanager_notifications_failed_total") >= 1,
        )
        assert len(rows(desk, "SELECT id FROM items")) == 1
        assert len(rows(desk, "SELECT source FROM deliveries")) == 1
        post_alert(api, resolved=True)
        read = wait_for(
            "the resolved notice's ack",
            lambda: rows(desk, "SELECT read_by FROM items WHERE read_at IS NOT NULL"),
        )
        assert read == [("am",)]
        assert len(rows(desk, "SELECT id FROM items")) == 1
    # The refusal Alertmanager saw: the wrong token's webhook got 401.
    assert "401" in (tmp_path / "alertmanager.log").read_text(encoding="utf-8")
