"""Every page of the console on an empty desk and on a full one (every presence, every rung,
every page state, every meeting phase), through FastAPI's test client."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient
from web_helpers import CODE, ROLES, SECRET, WEB_DESK, full_desk, log_in, make_app

from conftest import Desk


def get_routes(app: object) -> set[str]:
    """Every GET route the console's routers declare (static files aside; the login link,
    which needs a link `deskd serve --open-link` printed, is test_console_login_link.py's)."""
    from deskd.web.auth import guard as auth
    from deskd.web.routes import actions, desk_pages

    return {
        route.path
        for module in (auth, desk_pages, actions)
        for route in module.router.routes
        if "GET" in getattr(route, "methods", set())
    } - {"/login/link"}


def visit_all(client: TestClient, paths: list[str]) -> dict[str, str]:
    pages = {}
    for path in paths:
        response = client.get(path)
        assert response.status_code == 200, (
            f"GET {path} -> {response.status_code}\n{response.text[:800]}"
        )
        pages[path] = response.text
    return pages


def paths_for(client: TestClient, roles: tuple[str, ...], meetings: list[int]) -> list[str]:
    return [
        "/",
        *(f"/roles/{r}" for r in roles),
        "/wakes",
        "/wakes?explain=alpha",
        "/wakes?attempt=1" if meetings else "/wakes?rung=badge",
        "/wakes?rung=badge&outcome=pending&reason=help",
        "/pages",
        "/meetings",
        *(f"/meetings/{m}" for m in meetings),
        "/tasks",
        "/tasks?all=1",
        "/usage",
        "/usage?since=30d",
        "/events",
        "/events?actor=supervisor",
        "/live",
        "/login",
    ]


def covered(paths: list[str]) -> set[str]:
    """The route templates the visited paths exercise."""
    out = set()
    for p in paths:
        bare = p.split("?")[0]
        out.add(
            re.sub(
                r"^/roles/[^/]+$",
                "/roles/{role}",
                re.sub(r"^/meetings/\d+$", "/meetings/{meeting_id}", bare),
            )
        )
    return out


def test_it_serves_every_page_of_an_empty_desk(desk: Desk) -> None:
    desk.write_desk(WEB_DESK)
    app = make_app(desk, DESKD_SUPERVISOR_ACCESS_CODE=CODE)
    with TestClient(app) as client:
        assert log_in(client).status_code == 303
        paths = paths_for(client, ROLES, [])
        pages = visit_all(client, paths)
    assert "no tick yet" in pages["/"]
    assert "human rung unwired" in pages["/"]
    assert "No live wakes." in pages["/"]
    assert "No pages yet." in pages["/pages"]
    assert "No meetings yet." in pages["/meetings"]
    assert "no wakes in this window" in pages["/roles/alpha"]
    assert covered(paths) | {"/meetings/{meeting_id}"} == get_routes(app)


def test_it_serves_every_page_of_a_full_desk(
    desk: Desk, tmp_path_factory: pytest.TempPathFactory
) -> None:
    full_desk(desk, tmp_path_factory)
    # An agent pasted a credential into an item: the console masks it there too.
    desk.json(
        "inbox",
        "enqueue",
        "--for",
        "beta",
        "--source",
        "alert",
        "--title",
        f"token {SECRET} leaked",
    )
    meetings = [m["meeting_id"] for m in desk.json("meeting", "list", "--all")]
    app = make_app(desk, DESKD_SUPERVISOR_ACCESS_CODE=CODE)
    with TestClient(app) as client:
        log_in(client)
        paths = paths_for(client, ROLES, meetings)
        pages = visit_all(client, paths)
    assert covered(paths) == get_routes(app)
    board = pages["/"]
    for presence in ("online", "suspect", "idle", "dead", "offline", "never"):
        assert f'class="presence p-{presence}"' in board, presence
    assert 'class="rung r-badge badge"' in board
    assert "open pages" in board and "human rung unwired" in board  # theta, alpha have no channel
    for status in ("queued", "held", "sent", "partial", "failed", "resolved"):
        assert f'class="status s-{status}">{status}<' in pages["/pages"], status
    assert "maintenance" in pages["/pages"]  # the silence
    states = {"waiting", "active", "consensus", "closing", "paused", "closed"}
    for state in states:
        assert f'class="status s-{state}">{state}<' in pages["/meetings"], state
    # Each rung appears in the attempt ledger, and each attempt of a role is a bar of its picture.
    for rung in ("session", "resume", "spawn", "notify", "badge"):
        assert f'class="rung r-{rung}' in pages["/wakes"], rung
    alpha = pages["/roles/alpha"]
    assert alpha.count('class="attempt"') == len(desk.json("wake", "list", "--role", "alpha"))
    assert '<svg class="timeline"' in alpha and 'class="landing"' not in alpha  # nothing landed
    assert 'class="page"' in pages["/roles/delta"]  # a page mark on delta's notify lane
    # Secrets: never on any page, masked where they would have been.
    for path, html in pages.items():
        assert SECRET not in html, path
        assert CODE not in html, path
    assert "token •••• leaked" in pages["/roles/beta"]


def test_a_meeting_page_shows_transcript_attendance_debts_and_votes(
    desk: Desk, tmp_path_factory: pytest.TempPathFactory
) -> None:
    full_desk(desk, tmp_path_factory)
    meetings = {m["agenda"]: m["meeting_id"] for m in desk.json("meeting", "list", "--all")}
    app = make_app(desk, DESKD_SUPERVISOR_ACCESS_CODE=CODE)
    with TestClient(app) as client:
        log_in(client)
        active = client.get(f"/meetings/{meetings['an active talk']}").text
        closing = client.get(f"/meetings/{meetings['wind it down']}").text
    assert "what broke?" in active and "beta owes alpha" in active
    assert "proposes to end" in closing and "owed by: beta" in closing


def test_a_role_that_is_not_on_the_desk_is_a_404_naming_the_roles(desk: Desk) -> None:
    desk.write_desk(WEB_DESK)
    with TestClient(make_app(desk, DESKD_SUPERVISOR_ACCESS_CODE=CODE)) as client:
        log_in(client)
        response = client.get("/roles/nobody")
        bad_filter = client.get("/wakes?rung=ladder")
    assert response.status_code == 404 and "alpha" in response.text
    assert bad_filter.status_code == 400 and "session, resume, spawn" in bad_filter.text


def test_the_live_stream_says_change_when_the_desk_changes(desk: Desk) -> None:
    import threading

    from deskd.config.settings_model import validate_settings
    from deskd.service.desk.context import open_context
    from deskd.service.desk.inbox import NewItem, enqueue

    desk.write_desk(WEB_DESK)
    desk.json("roles")  # the database exists before the stream takes its first mark
    app = make_app(desk, stream_polls=40, DESKD_SUPERVISOR_ACCESS_CODE=CODE)

    def write() -> None:  # another process's commit, while the stream is open
        ctx = open_context(settings=validate_settings(desk.env()))
        try:
            enqueue(ctx, NewItem(role="alpha", source="alert", title="disk 91%"))
        finally:
            ctx.close()

    with TestClient(app) as client:
        log_in(client)
        quiet = client.get("/live").text  # nothing changes during this one
        timer = threading.Timer(0.1, write)
        timer.start()
        changed = client.get("/live").text
        timer.join()
    assert quiet.startswith("retry: 2000\nevent: hello")
    assert "event: change" not in quiet
    assert "event: change" in changed


def test_the_board_shows_each_host_and_names_the_one_that_stopped_ticking(desk: Desk) -> None:
    desk.write_desk(WEB_DESK.replace('name = "beta"', 'name = "beta"\nhost = "gpu"', 1))
    desk.json("tick", "--execute", DESKD_HOST_NAME="build")
    desk.json("tick", "--execute", DESKD_HOST_NAME="gpu")
    desk.advance(minutes=3)
    desk.json("tick", "--execute", DESKD_HOST_NAME="build")  # gpu went quiet 3 minutes ago
    app = make_app(desk, DESKD_SUPERVISOR_ACCESS_CODE=CODE)
    with TestClient(app) as client:
        log_in(client)
        board = client.get("/").text
    gauge = re.search(r'<div class="gauge bad" id="gauge-hosts">(.*?)</div>', board, re.S)
    assert gauge is not None and "<b>gpu</b> not ticking" in gauge.group(1)
    rows = dict(re.findall(r'<tr data-host="([^"]+)"([^>]*)>', board))
    assert rows == {"build": "", "gpu": ' class="bad"'}
    gpu_row = board.split('data-host="gpu"')[1].split("</tr>")[0]
    assert "3m ago" in gpu_row and "stopped?" in gpu_row and "beta" in gpu_row
    build_row = board.split('data-host="build"')[1].split("</tr>")[0]
    assert "stopped?" not in build_row and "any unbound role" in build_row


def test_a_one_host_desk_shows_no_hosts_card(desk: Desk) -> None:
    desk.write_desk(WEB_DESK)
    app = make_app(desk, DESKD_SUPERVISOR_ACCESS_CODE=CODE)
    with TestClient(app) as client:
        log_in(client)
        board = client.get("/").text
    assert 'id="hosts"' not in board and 'id="gauge-hosts"' not in board
