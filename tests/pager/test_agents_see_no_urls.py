"""An agent sees channel names and results, never a channel URL; a webhook's path is masked.

``DESKD_NOTIFY_URLS`` is withheld from agents' environments, so ``deskd channels``, ``pages``
and ``status --json`` run with ``DESKD_ROLE`` set must not show it either, not even masked.
For the operator, a token in a ``json://`` path is hidden like a password, page rows keep only
that masked form, and the pager still finds the real URL in the settings when it sends.
Every command runs as a real ``deskd`` process.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from pager_helpers import http_receiver

from conftest import Desk

TOKEN = "tok3nSECRETvalue12345"


def deskd(desk: Desk, *args: str, role: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DESKD_")}
    env.update(desk.env(role))
    done = subprocess.run(
        [sys.executable, "-m", "deskd", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, (args, done.stderr)
    return done


def test_agents_see_channel_names_and_results_but_no_url(desk: Desk) -> None:
    with http_receiver() as rx:
        desk.setenv("DESKD_NOTIFY_URLS", f"json://127.0.0.1:{rx.port}/hooks/{TOKEN}")
        deskd(desk, "page", "--from", "alpha", "--title", "stuck on a deploy")
        deskd(desk, "tick", "--execute", "--wait")
        assert [path for path, _ in rx.got] == [f"/hooks/{TOKEN}"]  # the real URL was used
    url_part = f"127.0.0.1:{rx.port}"
    for args in (
        ("channels", "--no-check", "--json"),
        ("channels", "--no-check"),
        ("pages", "--json"),
        ("pages",),
        ("status", "--json"),
    ):
        out = deskd(desk, *args, role="alpha").stdout
        assert "DESKD_NOTIFY_URLS" in out or args[0] == "status", (args, out)
        assert url_part not in out and "json://" not in out and TOKEN not in out, (args, out)
    (channel,) = json.loads(deskd(desk, "channels", "--no-check", "--json", role="alpha").stdout)
    assert channel["name"] == "DESKD_NOTIFY_URLS" and channel["urls"][0]["url"] is None
    (page,) = json.loads(deskd(desk, "pages", "--json", role="alpha").stdout)
    assert page["channels"][0]["status"] == "sent" and page["channels"][0]["url"] is None


def test_a_token_in_a_webhook_path_is_masked_for_the_operator_and_in_page_rows(
    desk: Desk,
) -> None:
    with http_receiver() as rx:
        desk.setenv("DESKD_NOTIFY_URLS", f"json://127.0.0.1:{rx.port}/hooks/{TOKEN}")
        deskd(desk, "page", "--from", "alpha", "--title", "stuck on a deploy")
        deskd(desk, "tick", "--execute", "--wait")
        assert len(rx.got) == 1
    (channel,) = json.loads(deskd(desk, "channels", "--no-check", "--json").stdout)
    shown = channel["urls"][0]["url"]
    assert shown.startswith(f"json://127.0.0.1:{rx.port}/") and TOKEN not in shown
    for args in (("channels", "--no-check"), ("pages", "--json"), ("pages",), ("status", "--json")):
        assert TOKEN not in deskd(desk, *args).stdout, args
    assert TOKEN not in json.dumps(desk.dump(), default=str)  # rows keep the masked form


def test_two_webhooks_that_mask_alike_each_get_their_page(desk: Desk) -> None:
    from pager_helpers import desk_with

    with http_receiver() as rx:
        first, second = "aXXXXXXXXz", "aYYYYYYYYz"  # both shown as a...z
        urls = [f"json://127.0.0.1:{rx.port}/{first}", f"json://127.0.0.1:{rx.port}/{second}"]
        desk.write_desk(desk_with({"ops": urls}, default=["ops"]))
        deskd(desk, "page", "--from", "alpha", "--title", "stuck on a deploy")
        deskd(desk, "tick", "--execute", "--wait")
        assert sorted(path for path, _ in rx.got) == [f"/{first}", f"/{second}"]
