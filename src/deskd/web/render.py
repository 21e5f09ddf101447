"""Jinja2 pages: autoescaped, every text on one line with its control characters shown
(``quoting.visible``, as text output shows them), with the desk's local time, and secrets
masked on the way out."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from fastapi import Request
from fastapi.responses import HTMLResponse
from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape
from markupsafe import Markup, escape

from deskd.core.ladder import RUNGS
from deskd.core.timeparse import human_age, iso_utc, local_text, parse_instant
from deskd.quoting import visible
from deskd.service.desk.context import DeskContext
from deskd.web.console import console_of, mask, mask_data

TEMPLATES = Path(__file__).with_name("templates")
NAV = (
    ("/", "Board"),
    ("/wakes", "Wakes"),
    ("/pages", "Pages"),
    ("/meetings", "Meetings"),
    ("/tasks", "Tasks & hooks"),
    ("/usage", "Usage"),
    ("/events", "Events"),
)


def _shown(value: Any) -> Any:
    """What ``{{ value }}`` prints: a text from anyone ``visible`` (a title's line break or
    ``ESC`` shown as ``\\n``, ``\\x1b``), markup the console built as it is."""
    return visible(value) if isinstance(value, str) and not isinstance(value, Markup) else value


_env = Environment(
    loader=FileSystemLoader(TEMPLATES),
    autoescape=select_autoescape(["html"]),
    undefined=StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
    finalize=_shown,
)


# An instant as the JSON of events carries it (docs/contract.md): ISO 8601 in UTC with a Z.
_INSTANT = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?Z")


def _local(value: Any, tz: str = "UTC") -> Markup | str:
    """An ISO 8601 UTC string or Unix ms as the desk's local time, the one way every page
    shows a time, with the exact instant on hover and for machines; empty for None."""
    if value is None or value == "":
        return ""
    ms = value if isinstance(value, int) else parse_instant(str(value), tz="UTC")
    return Markup('<time datetime="{0}" title="{0}">{1}</time>').format(
        iso_utc(ms), local_text(ms, tz)
    )


def _age(seconds: Any) -> str:
    return "" if seconds is None else human_age(float(seconds))


def _as_text(value: Any, tz: str = "UTC") -> Markup | str:
    """A detail value as a person reads it: a string as itself (its instants as local time),
    nothing as ``-``, yes/no, a list as its items, a mapping as ``key: value`` pairs. The
    pieces are escaped as they are joined (Markup), so the page stays safe."""
    if value is None or value == [] or value == {}:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, str):
        if not _INSTANT.search(value):
            return visible(value)
        return Markup(
            _INSTANT.sub(lambda m: str(_local(m.group(), tz)), str(escape(visible(value))))
        )
    if isinstance(value, list):
        parts = [_as_text(item, tz) for item in value]
        return Markup("; " if any(isinstance(v, dict) for v in value) else ", ").join(parts)
    if isinstance(value, dict):
        pairs = (Markup("{}: {}").format(visible(k), _as_text(v, tz)) for k, v in value.items())
        return Markup(", ").join(pairs)
    return str(value)


_env.filters["local"] = _local
_env.filters["as_text"] = _as_text
_env.filters["age"] = _age
_env.globals["rungs"] = RUNGS  # the macro `rung` marks a rung that waits for a person


def page(
    request: Request,
    template: str,
    *,
    ctx: DeskContext | None,
    status: int = 200,
    **data: Any,
) -> HTMLResponse:
    """Render ``template`` for this request. Every known secret is masked in the data before
    any template encodes it (``tojson`` writes ``<`` as ``\\u003c``, which a mask of the raw
    text would miss), and once more in the result."""
    console = console_of(request)
    secrets = console.secrets(ctx)
    data = mask_data(data, secrets)
    principal = getattr(request.state, "principal", None)
    html = _env.get_template(template).render(
        request=request,
        path=request.url.path,
        nav=NAV,
        tz=ctx.tz if ctx is not None else "UTC",
        desk_name=ctx.desk.name if ctx is not None else "",
        now_local=local_text(ctx.now, ctx.tz) if ctx is not None else "",
        csrf=principal.csrf if principal is not None else "",
        signed_in=principal is not None,
        flash=request.query_params.get("done", ""),
        **data,
    )
    return HTMLResponse(mask(html, secrets), status_code=status)
