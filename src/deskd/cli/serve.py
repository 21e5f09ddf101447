"""``deskd serve`` and ``deskd supervisor keygen|sign``: the supervisor console, and the
Ed25519 keys and signed requests of its signed mode.

FastAPI, uvicorn and Jinja2 are imported only once ``serve`` runs, and cryptography once a
key is made or used, so no other command pays for them."""

from __future__ import annotations

import errno
import ipaddress
import os
import re
import socket
import threading
from contextlib import closing
from pathlib import Path
from typing import Any

import click

from deskd.adapters.clock import now_ms
from deskd.cli.common import Command, Group
from deskd.cli.output import emit
from deskd.errors import ConsoleRefused, InvalidValue, KeyFileExists, KeyUnreadable, Unavailable
from deskd.service.desk.context import open_context
from deskd.service.ops.console import (
    CODE_MODES,
    access_code_configured,
    is_loopback,
    new_access_code,
    startup_refusal,
)
from deskd.service.ops.console_sessions import issue_login_link, sync_code_generation
from deskd.service.ops.tick_alarm import watch_ticks


@click.command(cls=Command, json=False)
@click.option("--host", help="Address to bind (default: DESKD_HOST, 127.0.0.1).")
@click.option("--port", help="Port (default: DESKD_PORT, 8000).")
@click.option(
    "--new-code",
    is_flag=True,
    help="Generate a new access code now (the old one stops working); printed once.",
)
@click.option(
    "--open-link",
    is_flag=True,
    help="Print a login link that works once, within 5 minutes (no code to type).",
)
def serve(host: str | None, port: str | None, new_code: bool, open_link: bool) -> None:
    """The supervisor console: the board, each role's ladder, wakes, pages, meetings, tasks
    and hooks in a browser, and the supervisor's actions — behind authentication.

    Simple mode (DESKD_SUPERVISOR_AUTH_MODE=simple, the default) asks for an access code:
    DESKD_SUPERVISOR_ACCESS_CODE, or one generated on the first run, printed once and kept
    only as a hash under data/. Signed mode takes Ed25519-signed requests only (see
    `deskd supervisor keygen`); hybrid takes either. Binding anything but a loopback
    address without configured authentication is refused.

    Examples:
      deskd serve                                  # http://127.0.0.1:8000
      deskd serve --port 8080
      DESKD_SUPERVISOR_ACCESS_CODE=... deskd serve --host 0.0.0.0   # behind a TLS proxy
      deskd serve --new-code                       # forget the old code, print a new one
      deskd serve --open-link                      # and a link that logs a browser in once
    """
    from deskd.config.settings_model import validate_settings

    settings = validate_settings()
    bind = _unbracketed(host or settings.host)
    number = _port(port, settings.port)
    _check_bind(bind, number)  # before a code is generated or a URL printed
    with closing(open_context(settings=settings)) as ctx:  # the desk file and database first
        ctx.conn  # noqa: B018 — creates and migrates the database now, not on the first request
    generated = None
    wants_code = settings.supervisor_auth_mode in CODE_MODES
    if wants_code and not settings.supervisor_access_code:
        if new_code or (is_loopback(bind) and not access_code_configured(settings)):
            generated = new_access_code(settings)
    elif new_code:
        raise ConsoleRefused(
            "--new-code: DESKD_SUPERVISOR_ACCESS_CODE is set (change it there) or the mode is "
            "signed (no code)"
        )
    if open_link and not wants_code:
        raise ConsoleRefused(
            "--open-link: the mode is signed, which has no logins (set "
            "DESKD_SUPERVISOR_AUTH_MODE=simple or hybrid)"
        )
    refusal = startup_refusal(settings, host=bind) or _proxies_refusal(settings.trusted_proxies)
    if refusal:
        raise ConsoleRefused(f"deskd serve refused: {refusal}")
    link = None
    if wants_code:
        # A new or changed code ends every session made under the old one, for good.
        with closing(open_context(settings=settings)) as ctx:
            sync_code_generation(ctx, new_code=generated is not None and new_code)
            link = issue_login_link(ctx) if open_link else None
    if generated:
        click.echo(f"supervisor access code (shown once, kept only as a hash): {generated}")
    if link:
        # Printed to this terminal only (never logged); not handed to a browser's command
        # line, where every local user could read it in /proc until it is used.
        click.echo(
            f"login link (works once, for 5 minutes): "
            f"http://{_url_host(_link_host(bind))}:{number}/login/link?token={link}"
        )
    click.echo(
        f"deskd console on http://{_url_host(bind)}:{number}/ (auth: "
        f"{settings.supervisor_auth_mode}); Ctrl-C stops it"
    )

    import uvicorn

    from deskd.web.app import create_app

    proxies = _proxy_list(settings.trusted_proxies)
    stop = _watch_ticks(settings)
    try:
        uvicorn.run(
            create_app(settings, host=bind),
            host=bind,
            port=number,
            log_level="warning",
            server_header=False,
            access_log=False,
            # X-Forwarded-For is believed only from the proxies the operator names: otherwise
            # any local process could claim to be a new client on every login guess.
            proxy_headers=bool(proxies),
            forwarded_allow_ips=proxies or None,
            # Open event streams never end by themselves; do not let them hold a stop forever.
            timeout_graceful_shutdown=3,
        )
    finally:
        stop.set()


def _watch_ticks(settings: Any) -> Any:
    """The missed-tick alarm, checked in a background thread while the console runs."""
    stop = threading.Event()
    threading.Thread(
        target=watch_ticks,
        kwargs={
            "settings": settings,
            "clock": lambda: now_ms(settings.now),
            "stop": stop,
            "say": lambda line: click.echo(line, err=True),
        },
        name="deskd-tick-watch",
        daemon=True,
    ).start()
    return stop


def _port(given: str | None, default: int) -> int:
    if given is None:
        return default
    if not given.isdigit() or not 0 < int(given) < 65536:
        raise InvalidValue("--port", given, "a TCP port between 1 and 65535")
    return int(given)


def _proxy_list(raw: str | None) -> list[str]:
    return [p for p in (raw or "").replace(",", " ").split() if p]


def _proxies_refusal(raw: str | None) -> str | None:
    """Why DESKD_TRUSTED_PROXIES is not a list of addresses or networks, or None."""
    for entry in _proxy_list(raw):
        try:
            ipaddress.ip_network(entry, strict=False)
        except ValueError:
            return (
                f"DESKD_TRUSTED_PROXIES: {entry!r} is not an IP address or network "
                "(e.g. 127.0.0.1 or 10.0.0.0/8, separated by commas)"
            )
    return None


def _link_host(bind: str) -> str:
    """The name a browser on this machine reaches the console by: the bound address, or
    ``localhost`` for a wildcard bind (it passes the Host check, and browsers keep the
    ``Secure`` session cookie for it over plain HTTP)."""
    return "localhost" if bind in ("0.0.0.0", "::", "") else bind


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def _unbracketed(host: str) -> str:
    """``[::1]`` as written in a URL is the address ``::1``."""
    return host[1:-1] if host.startswith("[") and host.endswith("]") else host


def _check_bind(host: str, port: int) -> None:
    """Refuse (exit 3) when ``host:port`` cannot be bound — the port is taken, or the address
    is not this machine's — before anything is printed; uvicorn would fail only after."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise Unavailable(
            f"cannot serve on {host!r}: {exc.strerror} (--host takes an address of "
            "this machine, like 127.0.0.1 or ::1)"
        ) from None
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        # As uvicorn binds: SO_REUSEADDR, so a port in TIME_WAIT is free but a listener is not.
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as exc:
            hint = (
                "choose another with --port (or DESKD_PORT), or stop what listens there"
                if exc.errno == errno.EADDRINUSE
                else "--host takes an address of this machine, like 127.0.0.1 or ::1"
            )
            raise Unavailable(
                f"cannot serve on {_url_host(host)}:{port}: {exc.strerror}; {hint}"
            ) from None


KEY_ID = r"^[A-Za-z0-9_.@-]{1,64}$"


@click.group(cls=Group)
def supervisor() -> None:
    """Keys and signed requests for the supervisor console (DESKD_SUPERVISOR_AUTH_MODE
    signed or hybrid).

    Examples:
      deskd supervisor keygen --out ~/.config/deskd/alice.pem --id alice
      deskd supervisor sign --key ~/.config/deskd/alice.pem --id alice \\
          --method POST --path /actions/pause --data 'reason=deploy'
    """


@supervisor.command()
@click.option(
    "--out",
    required=True,
    type=click.Path(path_type=Path),
    help="Private key file to write (0600).",
)
@click.option("--id", "key_id", required=True, help="The key's name in the keys file.")
@click.option(
    "--keys",
    type=click.Path(path_type=Path),
    help="Append the public key to this keys file (default: print the line only).",
)
def keygen(out: Path, key_id: str, keys: Path | None, as_json: bool) -> None:
    """Make an Ed25519 key pair: the private key to --out (0600, never overwritten) and the
    public line `ID BASE64` for the keys file DESKD_SUPERVISOR_KEYS names.

    Examples:
      deskd supervisor keygen --out alice.pem --id alice
      deskd supervisor keygen --out alice.pem --id alice --keys /etc/deskd/supervisor.keys
    """
    from deskd.web.auth.signed import new_key_pair

    if not re.match(KEY_ID, key_id):
        raise InvalidValue("--id", key_id, "letters, digits and _ . @ - (at most 64)")
    if out.exists():
        raise KeyFileExists(out)
    pem, public = new_key_pair()
    out.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as fh:
        fh.write(pem)
    line = f"{key_id} {public}"
    if keys is not None:
        fd = os.open(keys, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        with os.fdopen(fd, "a", encoding="utf-8") as fh:
            fh.write(line + "\n")
    data = {
        "private_key": str(out),
        "key_id": key_id,
        "public_key": public,
        "line": line,
        "keys_file": str(keys) if keys else None,
    }
    where = (
        f"appended to {keys}" if keys else "add this line to the file DESKD_SUPERVISOR_KEYS names"
    )
    emit(data, as_json, f"private key: {out} (0600)\n{where}:\n{line}")


@supervisor.command()
@click.option(
    "--key",
    "key_file",
    required=True,
    type=click.Path(path_type=Path, exists=True),
    help="Private key file (from keygen).",
)
@click.option("--id", "key_id", required=True, help="The key's name in the keys file.")
@click.option("--method", default="POST", show_default=True, help="HTTP method.")
@click.option("--path", required=True, help="Request path with its query, e.g. /actions/pause.")
@click.option("--data", default="", help="The exact request body (form-encoded for actions).")
def sign(key_file: Path, key_id: str, method: str, path: str, data: str, as_json: bool) -> None:
    """Print the headers that sign one request (valid for 10 minutes, usable once).

    The signature covers the method, the path, the body's SHA-256, the time and a fresh
    nonce; send the body byte for byte as given. The time is now (DESKD_NOW honoured).

    Examples:
      deskd supervisor sign --key alice.pem --id alice --method GET --path /
      deskd supervisor sign --key alice.pem --id alice --path /actions/pause \\
          --data 'reason=deploy' --json   # the four headers; send the same body
    """
    from deskd.config.settings_model import validate_settings
    from deskd.web.auth.signed import load_private_key
    from deskd.web.auth.signed import sign as make

    if not path.startswith("/"):
        raise InvalidValue("--path", path, "a path on the console starting with /")
    try:
        key = load_private_key(key_file)
    except (ValueError, TypeError) as exc:
        raise KeyUnreadable(key_file, exc) from None
    headers = make(
        key,
        key_id=key_id,
        method=method,
        path=path,
        body=data.encode(),
        timestamp=now_ms(validate_settings().now),
    )
    emit(headers, as_json, "\n".join(f"{k}: {v}" for k, v in headers.items()))
