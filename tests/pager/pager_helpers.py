"""Real receivers for real sends: a loopback HTTP server for ``json://`` pages, an aiosmtpd
server for ``mailto://`` pages, and a port where nothing listens. No mocks of apprise."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any

import pytest

from conftest import DESK_TOML


@pytest.fixture
def no_send_waits(monkeypatch: pytest.MonkeyPatch) -> None:
    """A send to a closed port is retried inside the send (three tries) after waits of 0.25 s
    and 0.5 s: the tries stay, the waits go (no test here judges them). In-process CLI calls
    only: a `deskd` subprocess keeps them."""
    monkeypatch.setattr("deskd.adapters.channels.apprise.RETRY_FIRST_WAIT_S", 0.0)


def free_port() -> int:
    """A port where nothing listens (bound, then closed)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Receiver:
    """What a loopback HTTP server was sent: one (path, JSON body) per request."""

    port: int
    got: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    status: int = 200

    def url(self, path: str = "hook") -> str:
        return f"json://127.0.0.1:{self.port}/{path}"

    @property
    def titles(self) -> list[str]:
        return [str(body.get("title", "")) for _, body in self.got]

    @property
    def paths(self) -> list[str]:
        return [path for path, _ in self.got]


@contextmanager
def http_receiver(port: int = 0) -> Iterator[Receiver]:
    receiver = Receiver(port=port)

    class Handler(BaseHTTPRequestHandler):
        def _take(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw) if raw else {}
            except ValueError:
                body = {"raw": raw.decode(errors="replace")}
            receiver.got.append((self.path, body))
            self.send_response(receiver.status)
            self.end_headers()

        do_POST = _take
        do_GET = _take

        def log_message(self, *args: object) -> None:
            return None

    server = HTTPServer(("127.0.0.1", port), Handler)
    receiver.port = int(server.server_address[1])
    # serve_forever notices shutdown() only when its select() returns: at its default 0.5 s
    # poll that is half a second of every receiver's exit spent waiting; 0.02 s ends it at once.
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield receiver
    finally:
        server.shutdown()
        server.server_close()


@dataclass
class Mailbox:
    port: int
    messages: list[tuple[str, list[str], str]] = field(default_factory=list)

    def url(self) -> str:
        return (
            f"mailto://deskd:${{SMTP_PASS}}@127.0.0.1:{self.port}"
            "?to=oncall@example.com&from=deskd@example.com&mode=insecure"
        )


@contextmanager
def smtp_receiver() -> Iterator[Mailbox]:
    from aiosmtpd.controller import Controller
    from aiosmtpd.smtp import AuthResult

    box = Mailbox(port=free_port())

    class Handler:
        async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
            box.messages.append(
                (envelope.mail_from, list(envelope.rcpt_tos), envelope.content.decode())
            )
            return "250 OK"

    def accept(*_args: Any) -> AuthResult:
        return AuthResult(success=True)

    controller = Controller(
        Handler(),
        hostname="127.0.0.1",
        port=box.port,
        authenticator=accept,
        auth_require_tls=False,
    )
    controller.start()
    try:
        yield box
    finally:
        controller.stop()


def desk_with(
    channels: dict[str, list[str]],
    *,
    default: list[str] | None = None,
    roles: dict[str, list[str]] | None = None,
    extra: dict[str, str] | None = None,
    short_ladder: bool = True,
    console_url: str | None = None,
) -> str:
    """The shared three-role desk plus channels; the short ladder pages on the first tick
    (notify is its first rung), so a test needs no agent to reach a person."""
    text = DESK_TOML
    lines = text.splitlines()
    desk_extra = []
    if default is not None:
        desk_extra.append(f"default_channels = {json.dumps(default)}")
    if console_url:
        desk_extra.append(f'console_url = "{console_url}"')
    index = lines.index('inbox_sources = ["alert", "signal"]') + 1
    lines[index:index] = desk_extra
    text = "\n".join(lines) + "\n"
    for role, names in (roles or {}).items():
        text = text.replace(
            f'name = "{role}"\ntitle = "{role.title()}"\n',
            f'name = "{role}"\ntitle = "{role.title()}"\nchannels = {json.dumps(names)}\n',
        )
    if short_ladder:
        text += '\n[[ladder]]\nrung = "notify"\nsla = "5m"\n\n[[ladder]]\nrung = "badge"\n'
    for name, urls in channels.items():
        text += f'\n[[channels]]\nname = "{name}"\nurls = {json.dumps(urls)}\n'
        for key, value in (extra or {}).items():
            if key.startswith(name + "."):
                text += f"{key.split('.', 1)[1]} = {value}\n"
    return text


def enqueue(
    desk: Any, role: str = "alpha", *, priority: str = "high", title: str = "disk 91%"
) -> int:
    out = desk.json(
        "inbox", "enqueue", "--for", role, "--source", "alert", "--title", title,
        "--priority", priority,
    )  # fmt: skip
    return int(out["id"])


def page_rows(desk: Any) -> list[dict[str, Any]]:
    with desk.db() as conn:
        return [dict(r) for r in conn.execute("SELECT * FROM pages ORDER BY id")]


def page_token_of(desk: Any, page_id: int) -> str:
    """The subject token the desk's pages carry, its tag a MAC under the desk's link key."""
    from deskd.adapters.private import private_key_file
    from deskd.core.paging import page_token
    from deskd.service.paging.links import KEY_FILE, reply_tag

    return page_token(page_id, reply_tag(private_key_file(desk.home / "data" / KEY_FILE), page_id))
