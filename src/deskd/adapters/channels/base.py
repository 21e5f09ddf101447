"""What every channel transport shares: a target to send to, its result, and URL masking.

Channel URLs are secrets (webhook tokens, SMTP passwords). They are shown only through
``mask_url`` — in logs, ``deskd pages``, ``deskd channels`` and ``deskd doctor`` — and an
error text from a transport is passed through ``scrub`` before it is stored or printed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol

SEND_BUDGET_S = 15.0
"""Longest one send may take, every service and retry included (a tick runs each minute)."""

_VAR = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*\}")
_HOSTNAME = re.compile(r"(localhost|[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+|\[[0-9A-Fa-f:.]+\])")
_SECRET_KEYS = frozenset(
    {"token", "key", "apikey", "api_key", "pass", "password", "secret", "auth", "webhook", "sig"}
)


@dataclass(frozen=True, slots=True, kw_only=True)
class Target:
    """One apprise URL to send to; ``key`` identifies it in the results."""

    key: str
    url: str
    """The real URL (``${VAR}`` filled): never printed."""
    masked: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Delivery:
    """How one target took one send: ``ok``, or the error text (already scrubbed)."""

    key: str
    ok: bool
    error: str | None = None
    permanent: bool = False
    """True when retrying cannot help (apprise cannot read the URL)."""


class Transport(Protocol):
    def send(
        self, targets: list[Target], *, title: str, body: str, kind: str, budget_s: float
    ) -> dict[str, Delivery]: ...


def _secretish(part: str) -> bool:
    """A URL part that looks like a credential: long, or long enough and mixing in digits."""
    if not part or _VAR.fullmatch(part):
        return False
    if len(part) >= 24:
        return True
    return len(part) >= 10 and any(c.isdigit() for c in part) and any(c.isalpha() for c in part)


def _hide(part: str) -> str:
    if _VAR.fullmatch(part):
        return part
    return f"{part[0]}…{part[-1]}" if len(part) >= 12 else "****"


def _split(url: str) -> tuple[str, str, str, str, str, str] | None:
    """(scheme, user, password, hostport, path, query) or None when not ``scheme://…``."""
    scheme, sep, rest = url.partition("://")
    if not sep or not scheme:
        return None
    rest, _, query = rest.partition("?")
    netloc, slash, path = rest.partition("/")
    user = password = ""
    if "@" in netloc:
        userinfo, _, netloc = netloc.rpartition("@")
        user, _, password = userinfo.partition(":")
    return scheme, user, password, netloc, (slash + path), query


def _host_port(hostport: str) -> tuple[str, str]:
    host, colon, port = hostport.rpartition(":")
    if colon and port.isdigit():
        return host, ":" + port
    return hostport, ""


def _host_secret(hostport: str) -> list[str]:
    host, _ = _host_port(hostport)
    if not host or _VAR.fullmatch(host):
        return []
    if _HOSTNAME.fullmatch(host) and not _secretish(host):
        return []
    return [host]


def secret_parts(url: str) -> list[str]:
    """The substrings of ``url`` that ``mask_url`` hides (``${VAR}`` placeholders never)."""
    parts = _split(url)
    if parts is None:
        return [url] if url and not _VAR.fullmatch(url) else []
    _, user, password, hostport, path, query = parts
    found: list[str] = []
    if password and not _VAR.fullmatch(password):
        found.append(password)
    if _secretish(user):
        found.append(user)
    found += _host_secret(hostport)
    found += [seg for seg in path.split("/") if _secretish(seg)]
    for pair in query.split("&"):
        name, _, value = pair.partition("=")
        secret = name.lower() in _SECRET_KEYS or _secretish(value)
        if value and not _VAR.fullmatch(value) and secret:
            found.append(value)
    return found


def mask_url(url: str) -> str:
    """The URL with every credential hidden; ``${VAR}`` placeholders stay readable.

    The one mask deskd uses wherever a channel URL is shown.
    """
    parts = _split(url)
    if parts is None:
        return _hide(url) if url else url
    scheme, user, password, hostport, path, query = parts
    out = f"{scheme}://"
    if user or password:
        out += _hide(user) if _secretish(user) else user
        if password:
            out += ":" + (password if _VAR.fullmatch(password) else "****")
        out += "@"
    host, port = _host_port(hostport)
    out += (_hide(host) if _host_secret(hostport) else host) + port
    out += "/".join(_hide(seg) if _secretish(seg) else seg for seg in path.split("/"))
    if query:
        pairs = []
        for pair in query.split("&"):
            name, eq, value = pair.partition("=")
            hidden = value and not _VAR.fullmatch(value)
            if hidden and (name.lower() in _SECRET_KEYS or _secretish(value)):
                value = _hide(value)
            pairs.append(name + eq + value)
        out += "?" + "&".join(pairs)
    return out


def scrub(text: str, secrets: list[str]) -> str:
    """``text`` (an error from a transport) with every known secret replaced by ``****``."""
    for secret in sorted({s for s in secrets if s}, key=len, reverse=True):
        # A short secret (a two-letter password) is replaced only where it sits in a URL,
        # so ordinary words in the message survive.
        if len(secret) >= 3:
            text = text.replace(secret, "****")
        else:
            for before, after in ((":", "@"), ("/", "/"), ("=", "&")):
                text = text.replace(f"{before}{secret}{after}", f"{before}****{after}")
    return text
