"""Talking to a real `deskd serve` over HTTP with httpx: logging in from a chosen loopback
address (each one a different client to the console), and signed requests."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from conftest import Desk


@contextmanager
def client(url: str, source: str = "127.0.0.1", **kw: object) -> Iterator[httpx.Client]:
    """An HTTP client whose connections come from ``source`` (any 127.x.y.z is loopback)."""
    transport = httpx.HTTPTransport(local_address=source)
    with httpx.Client(base_url=url, transport=transport, timeout=60, **kw) as c:  # type: ignore[arg-type]
        yield c


def csrf_in(html: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', html)
    assert found, "no CSRF token on the page"
    return found.group(1)


def log_in(c: httpx.Client, code: str, **headers: str) -> httpx.Response:
    """GET the form (its CSRF token and cookie), then POST the code."""
    token = csrf_in(c.get("/login").text)
    return c.post("/login", data={"csrf": token, "code": code, "next": "/"}, headers=headers)


def keys_for(desk: Desk, folder: Path) -> tuple[Path, Path]:
    """A key pair made with `deskd supervisor keygen`: the private key and the keys file."""
    folder.mkdir(parents=True, exist_ok=True)
    pem, keys_file = folder / "alice.pem", folder / "supervisor.keys"
    desk.json("supervisor", "keygen", "--out", str(pem), "--id", "alice", "--keys", str(keys_file))
    keys_file.chmod(0o644)
    return pem, keys_file


def signed(desk: Desk, pem: Path, path: str, body: str = "", method: str = "GET") -> dict[str, str]:
    headers: dict[str, str] = desk.json(
        "supervisor", "sign", "--key", str(pem), "--id", "alice", "--method", method,
        "--path", path, "--data", body,
    )  # fmt: skip
    return headers
