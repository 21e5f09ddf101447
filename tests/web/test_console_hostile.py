"""Hostile values against a real `deskd serve`: every action's form field, every page's
query and path parameter, the login form, the session cookie and the signed-request
headers get digits Python accepts and SQLite does not, numbers past int64, NUL, lone
surrogates, bytes that are not UTF-8 and a megabyte. None may be a 500: each is a 4xx with
a one-line reason, or an ordinary answer."""

from __future__ import annotations

import inspect
import re
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from http_helpers import client, csrf_in, keys_for, log_in, signed
from web_helpers import CODE, WEB_DESK, serve

from conftest import Desk

HOSTILE: dict[str, str | bytes] = {
    "superscript digit": "²",
    "Arabic-Indic digits": "١٢",
    "past int64": "9" * 25,
    "5,000 digits": "9" * 5000,
    "negative": "-1",
    "NUL": "a\x00b",
    "lone surrogate": b"\xed\xa0\x80",  # what a browser would send for U+D800
    "not UTF-8": b"\xff\xfe",
    "1 MB": "x" * 1_000_000,
    "markup": "<script>&\u202e",
    "empty": "",
}


def _encode(fields: dict[str, str | bytes]) -> bytes:
    return "&".join(f"{quote(k)}={quote(v)}" for k, v in fields.items()).encode()


def action_fields() -> dict[str, dict[str, str]]:
    """Every action and every form field it reads (from its own source), with a sane value."""
    from deskd.web.routes.actions import ACTIONS

    sane = {"to": "alpha", "role": "alpha", "priority": "normal", "duration": "1h", "name": "x"}
    out = {}
    for name, action in ACTIONS.items():
        fields = re.findall(r'form\.get\("(\w+)"', inspect.getsource(action))
        assert fields, name
        out[name] = {f: sane.get(f, "1") for f in [*fields, "back"]}
    return out


def page_params() -> list[tuple[str, str, str]]:
    """(path template, parameter, where) of every GET route, from the app itself."""
    from fastapi.routing import APIRoute

    from deskd.web.auth import guard as auth
    from deskd.web.routes import actions, desk_pages

    found = []
    modules = (auth, desk_pages, actions)
    for route in [r for m in modules for r in m.router.routes]:
        if isinstance(route, APIRoute) and "GET" in route.methods and route.path != "/live":
            for param in route.dependant.query_params:
                found.append((route.path, param.alias, "query"))
            for param in route.dependant.path_params:
                found.append((route.path, param.alias, "path"))
    assert len(found) >= 10
    return found


@pytest.fixture
def hostile_console(desk: Desk, tmp_path: Path) -> tuple[Desk, Path, Path]:
    desk.write_desk(WEB_DESK)
    desk.json("roles")
    pem, keys_file = keys_for(desk, tmp_path / "keys")
    return desk, pem, keys_file


def test_no_hostile_value_anywhere_is_a_500(hostile_console: tuple[Desk, Path, Path]) -> None:
    desk, pem, keys_file = hostile_console
    env = {
        "DESKD_SUPERVISOR_AUTH_MODE": "hybrid",
        "DESKD_SUPERVISOR_KEYS": str(keys_file),
        "DESKD_SUPERVISOR_ACCESS_CODE": CODE,
    }
    answers: list[tuple[str, str, int, str]] = []
    with serve(desk, **env) as served, client(served.url) as c:
        assert log_in(c, CODE).status_code == 303
        token = csrf_in(c.get("/").text)

        def send(label: str, value: str, request: httpx.Request) -> None:
            response = c.send(request)
            answers.append((label, value, response.status_code, response.text[:300]))

        form_headers = {"Content-Type": "application/x-www-form-urlencoded"}
        for action, fields in action_fields().items():
            for field in fields:
                for value_name, value in HOSTILE.items():
                    body = _encode({**fields, "csrf": token, field: value})
                    request = c.build_request(
                        "POST", f"/actions/{action}", content=body, headers=form_headers
                    )
                    send(f"POST /actions/{action} {field}", value_name, request)
        for path, param, where in page_params():
            for value_name, value in HOSTILE.items():
                value = value[:20_000]  # a URL is at most 64 KiB (httpx's own limit)
                if where == "path":
                    url = path.replace("{" + param + "}", quote(value, safe=""))
                else:
                    url = path + "?" + _encode({param: value}).decode()
                send(f"GET {path} {param}", value_name, c.build_request("GET", url))
        login = {"csrf": token, "code": CODE, "next": "/"}
        for field in login:
            for value_name, value in HOSTILE.items():
                request = c.build_request(
                    "POST", "/login", content=_encode({**login, field: value}), headers=form_headers
                )
                send(f"POST /login {field}", value_name, request)
        answers.extend(hostile_headers(served.url, desk, pem))
        printed = "\n".join(served.printed)
    errors = [a for a in answers if a[2] >= 500 and a[2] != 503]
    assert not errors, f"{len(errors)} of {len(answers)} answers were 500s: {errors[:10]}"
    assert "Traceback" not in printed
    assert len(answers) > 500
    assert sum(1 for a in answers if a[2] < 400) >= 50  # sane fields still did their work


def hostile_headers(url: str, desk: Desk, pem: Path) -> list[tuple[str, str, int, str]]:
    """The session cookie and the signed-request headers, malformed."""
    out = []
    cookies: dict[str, bytes] = {
        "non-ASCII cookie": b"deskd_session=abc.\xe9",
        "cookie of control bytes": b"deskd_session=\x7f.\x80\x01",
        "megabyte cookie": b"deskd_session=" + b"a" * 60_000 + b".b",
    }
    with httpx.Client(base_url=url, timeout=60) as c:
        for label, cookie in cookies.items():
            response = c.get("/events", headers={"Cookie": cookie, "Accept": "application/json"})
            out.append((label, "", response.status_code, response.text[:300]))
            assert response.status_code in (401, 400, 431), label
        good = signed(desk, pem, "/")
        for value_name, value in {
            "superscript timestamp": "²".encode(),
            "5,000-digit timestamp": b"9" * 5000,
            "negative timestamp": b"-1",
        }.items():
            headers: dict[str, Any] = {**good, "X-Deskd-Timestamp": value}
            response = c.get("/", headers={**headers, "Accept": "application/json"})
            out.append((value_name, "", response.status_code, response.text[:300]))
            assert response.status_code == 401, value_name
            message = response.json()["error"]["message"]
            assert "X-Deskd-Timestamp must be Unix milliseconds" in message
            assert "\n" not in message
        for header, value in {
            "X-Deskd-Key": b"k" * 5000,
            "X-Deskd-Signature": "ü".encode(),
            "X-Deskd-Nonce": b"\xff" * 40,
        }.items():
            response = c.get("/", headers={**good, header: value, "Accept": "application/json"})
            out.append((header, "", response.status_code, response.text[:300]))
            assert response.status_code == 401, header
    return out


def test_a_hostile_id_is_a_one_line_400_naming_the_field(
    hostile_console: tuple[Desk, Path, Path],
) -> None:
    desk, _, _ = hostile_console
    with serve(desk, DESKD_SUPERVISOR_ACCESS_CODE=CODE) as served, client(served.url) as c:
        assert log_in(c, CODE).status_code == 303
        token = csrf_in(c.get("/").text)
        json_headers = {"Accept": "application/json"}
        for value in ("²", "١", "9" * 25, "-1", "1\x00", "9" * 5000):
            for action, field, what in (
                ("wake-ack", "attempt", "attempt"),
                ("task-cancel", "id", "task"),
                ("meeting-close", "meeting", "meeting"),
            ):
                response = c.post(
                    f"/actions/{action}", data={field: value, "csrf": token}, headers=json_headers
                )
                assert response.status_code == 400, (action, value, response.text[:200])
                message = response.json()["error"]["message"]
                assert message.startswith(f"invalid {what} ") and "\n" not in message
            page = c.get(f"/meetings/{quote(value)}", headers=json_headers)
            assert page.status_code == 400 and "invalid meeting" in page.text
