"""How a channel URL is shown: apprise's own privacy rendering (``url(privacy=True)`` on the
parsed service), plus the few parts it leaves readable that are credentials all the same.

apprise knows which part of each of its ~100 URL formats is a token, a password or a key;
a hand-written parser cannot keep up with that. What apprise shows in the clear but deskd
still hides: request headers of ``json://``/``xml://``/``form://`` (``+X-Token=…``), query
values named like a secret (``?token=…``), ntfy topics (on a shared ntfy server the topic
is the only credential), the path of ``json://``/``xml://``/``form://`` (a webhook's path is
often its token), and every ``${VAR}`` value, shown back as its ``${VAR}`` name.

A URL apprise cannot read (an unknown service, a ``${VAR}`` that is not set) is shown as its
scheme, its ``${VAR}`` names and plain words only. Loading apprise is slow (docs/performance.md):
this module imports it inside functions, and only commands that show or send a URL call them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote, unquote

VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
SECRET_KEYS = frozenset(
    {"token", "key", "apikey", "api_key", "pass", "password", "secret", "webhook", "sig"}
)
TOPIC_SCHEMES = frozenset({"ntfy", "ntfys"})
WEBHOOK_SCHEMES = frozenset({"json", "jsons", "xml", "xmls", "form", "forms"})
"""A webhook's path is often its only credential (``/hooks/<token>``): hidden segment by
segment, as apprise hides a password."""
_DELIMS = re.compile(r"[/?&=:@,#;]+")
_PART = re.compile(r"[^/?&=:@,#;]+")
MIN_VALUE = 4
"""A ``${VAR}`` value shorter than this is not searched for in text (it would hit ordinary
characters); apprise hides passwords of any length itself."""


def hide(part: str) -> str:
    """apprise's own style: first and last character of a long value, ``****`` otherwise."""
    return f"{part[0]}...{part[-1]}" if len(part) >= 8 else "****"


def expand(url: str, values: Mapping[str, str]) -> str:
    return VAR.sub(lambda m: values.get(m.group(1), ""), url)


def missing(url: str, values: Mapping[str, str]) -> list[str]:
    """The ``${VAR}`` names in ``url`` that ``values`` does not set (or sets empty)."""
    return [m.group(1) for m in VAR.finditer(url) if not values.get(m.group(1))]


def asset() -> Any:
    """How deskd runs apprise: named, nothing stored on disk, secrets masked in its logs."""
    import apprise

    return apprise.AppriseAsset(
        app_id="deskd", app_desc="deskd pages", storage_mode="memory", secure_logging=True
    )


def service_of(url: str) -> Any | None:
    """apprise's parsed service for ``url`` (None when apprise cannot read it)."""
    import apprise

    try:
        return apprise.Apprise.instantiate(url, asset=asset())
    except Exception:  # a plugin that raises on odd input: unreadable, like None
        return None


def private_url(url: str, values: Mapping[str, str]) -> str:
    """``url`` (as written, ``${VAR}`` kept) the way deskd shows it: every credential hidden."""
    service = None if missing(url, values) else service_of(expand(url, values))
    if service is None:
        return unreadable(url)
    # ``${VAR}`` names first: a webhook path that is a variable reads as its name, not hidden.
    return supplement(restore_vars(str(service.url(privacy=True)), url, values))


def rendered(service: Any) -> str:
    """A parsed service shown privately (an apprise config file's entries)."""
    return supplement(str(service.url(privacy=True)))


def supplement(private: str) -> str:
    """apprise's privacy URL with headers, secret-named query values, ntfy topics and webhook
    paths hidden."""
    scheme, sep, rest = private.partition("://")
    if not sep:
        return private
    rest, qmark, query = rest.partition("?")
    if scheme.lower() in TOPIC_SCHEMES | WEBHOOK_SCHEMES:
        netloc, slash, path = rest.partition("/")
        if slash:
            rest = netloc + "/" + "/".join(_hidden_part(s) for s in path.split("/"))
        elif "." not in netloc and netloc != "localhost":
            rest = hide(netloc)  # ntfy://topic on the public server: the netloc is the topic
    if query:
        pairs = []
        for pair in query.split("&"):
            name, eq, value = pair.partition("=")
            plain = unquote(name)
            if value and (plain.startswith("+") or plain.lower() in SECRET_KEYS):
                value = _hidden_part(unquote(value))
            pairs.append(name + eq + value)
        query = "&".join(pairs)
    return f"{scheme}://{rest}{qmark}{query}"


def _hidden_part(part: str) -> str:
    """``part`` hidden, unless it is empty or a ``${VAR}`` name (already no secret)."""
    return part if not part or VAR.fullmatch(part) else hide(part)


def restore_vars(text: str, url: str, values: Mapping[str, str]) -> str:
    """Every ``${VAR}`` value of ``url`` found in ``text`` shown back as ``${VAR}``."""
    names = sorted({m.group(1) for m in VAR.finditer(url)}, key=lambda n: -len(values.get(n, "")))
    for name in names:
        value = values.get(name, "")
        if len(value) >= MIN_VALUE:
            for form in {value, quote(value, safe=""), quote(value, safe="/")}:
                text = text.replace(form, "${" + name + "}")
    return text


def unreadable(url: str) -> str:
    """A URL apprise cannot read: its scheme, its host (after the last ``@``) and its
    ``${VAR}`` names; every other part hidden (which part is a secret cannot be known)."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        return "****"
    userinfo, at, hostpart = rest.rpartition("@")
    host, slash, tail = hostpart.partition("/")
    if not at:
        host, slash, tail = "", "", hostpart
    shown = _hidden(userinfo) + at + host + slash + _hidden(tail)
    return f"{scheme}://" + shown


def _hidden(text: str) -> str:
    """Every part of ``text`` between delimiters as ``****``, but a ``${VAR}`` name."""
    return _PART.sub(lambda m: m[0] if VAR.fullmatch(m[0]) else "****", text)


def secret_parts(url: str) -> list[str]:
    """The parts of ``url`` (expanded, real) that ``private_url`` hides: for scrubbing the
    error texts apprise returns, and for the doctor's literal-credential check."""
    service = service_of(url)
    if service is None:
        shown = set(_tokens(unreadable(url)))
        return [t for t in _tokens(url) if t not in shown]
    full = _tokens(str(service.url(privacy=False)))
    shown = set(_tokens(supplement(str(service.url(privacy=True)))))
    return list(dict.fromkeys(t for t in full if t not in shown))


def _tokens(url: str) -> list[str]:
    body = url.partition("://")[2] or url
    return [unquote(t) for t in _DELIMS.split(body) if t]
