"""A real Prometheus scrapes a real `deskd serve`, and the series come back through its HTTP
API: the names, labels and values survive a real scraper, not only prometheus_client's parser.

Marked ``prometheus`` (``pytest -m prometheus`` runs the tier alone). Without the binary
(Debian's ``prometheus`` package; ``DESKD_PROMETHEUS`` names another) the tier is skipped with
a one-line reason, except under ``CI=true``, where it is mandatory and fails instead. Both
processes listen on loopback only; every wait polls for its event under a deadline.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from conftest import Desk
from server_tiers import find_binary, stop
from server_tiers import wait_for as wait

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "web"))
from web_helpers import WEB_DESK, free_port, serve

pytestmark = pytest.mark.prometheus

DEADLINE_S = 60.0
"""Long enough for a loaded two-core machine to start Prometheus and scrape twice."""


@pytest.fixture(scope="module", name="prometheus_bin")
def installed_prometheus() -> str:
    return find_binary("prometheus", "DESKD_PROMETHEUS", ("prometheus",), "prometheus")


def wait_for(what: str, probe: Any) -> Any:
    return wait(what, probe, DEADLINE_S)


@pytest.fixture
def scraper(prometheus_bin: str, tmp_path: Path) -> Iterator[Any]:
    """``start(target)`` starts Prometheus scraping ``target`` (host:port) every second and
    returns its API URL."""
    procs: list[subprocess.Popen[bytes]] = []

    def start(target: str) -> str:
        port = free_port()
        config = tmp_path / "prometheus.yml"
        config.write_text(
            "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n"
            "scrape_configs:\n  - job_name: deskd\n"
            f"    static_configs:\n      - targets: ['{target}']\n",
            encoding="utf-8",
        )
        log = (tmp_path / "prometheus.log").open("wb")
        procs.append(
            subprocess.Popen(
                [
                    prometheus_bin,
                    f"--config.file={config}",
                    f"--storage.tsdb.path={tmp_path / 'tsdb'}",
                    f"--web.listen-address=127.0.0.1:{port}",
                    "--log.level=warn",
                ],
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        )
        return f"http://127.0.0.1:{port}"

    yield start
    for proc in procs:
        stop(proc)


def query(api: str, promql: str) -> list[dict[str, Any]]:
    response = httpx.get(f"{api}/api/v1/query", params={"query": promql}, timeout=60)
    response.raise_for_status()
    result: list[dict[str, Any]] = response.json()["data"]["result"]
    return result


def test_prometheus_reads_the_desk_through_deskd_serve(desk: Desk, scraper: Any) -> None:
    # Prometheus 2.x creates its scrape pools only after its discovery reload interval (at
    # least 5 s, not configurable down): start it first, on the port deskd serve will take,
    # so that wait runs alongside the desk's setup and the console's start. A scrape before
    # the console listens records up == 0; the wait below is for up == 1.
    port = free_port()
    api = scraper(f"127.0.0.1:{port}")
    desk.write_desk(WEB_DESK)
    desk.ok("inbox", "enqueue", "--for", "alpha", "--source", "alert", "--title", "disk 91%")
    desk.ok("pause", "--role", "beta", "--reason", "deploy freeze")
    with serve(desk, port=port) as served:
        up = wait_for("the deskd target to be up", lambda: query(api, 'up{job="deskd"} == 1'))
        assert up[0]["metric"]["instance"] == served.url.removeprefix("http://")
        unread = wait_for(
            "deskd_items_unread", lambda: query(api, 'deskd_items_unread{role="alpha"}')
        )
        paused = query(api, "deskd_role_paused == 1")
        landing = query(api, "deskd_wake_landing_seconds_bucket")
    assert unread[0]["value"][1] == "1"
    assert [s["metric"]["role"] for s in paused] == ["beta"]
    assert {s["metric"]["le"] for s in landing} >= {"5.0", "3600.0", "+Inf"}
