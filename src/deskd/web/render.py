"""Jinja2 pages: autoescaped, every text on one line with its control characters shown
(``quoting.visible``, as text output shows them), with the desk's local time, and secrets
masked on the way out.

The ladder timeline picture (``ladder_svg``) is an inline SVG drawn on the server from a
role's attempts: one lane per rung (top: ``session``, bottom: ``badge``), time left to
right. Each attempt is a bar on its rung from when it was attempted to when it closed (or
now), coloured by outcome; a circle marks its launch, a diamond its landing, a bar end its
resolution; a red cross marks a failed launch with its failure class; a triangle on the lane
marks each page. Every mark carries a ``<title>``, which a browser shows on hover. No script,
no inline CSS (the console's CSP forbids both): only SVG presentation attributes.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from fastapi import Request
from fastapi.responses import HTMLResponse
from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape
from markupsafe import Markup, escape

from deskd.core.ladder import PAGE_RUNG, RUNGS, rank
from deskd.core.records import LAUNCH_FAILED
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


WIDTH, LANE, LEFT, TOP, BOTTOM = 900, 34, 80, 10, 28
OUTCOME_FILL = {
    "pending": "#2f6fdf",
    "resolved": "#2e9d57",
    "superseded": "#9aa3ad",
    "withdrawn": "#c2c8cf",
    "failed": "#d0342c",
}
PAGE_FILL = {"sent": "#2e9d57", "partial": "#d9a21b", "failed": "#d0342c", "held": "#8a6fdf"}


def _x(ms: int, start: int, end: int) -> float:
    span = max(end - start, 1)
    return LEFT + (WIDTH - LEFT - 10) * (ms - start) / span


def _title(text: str) -> str:
    return f"<title>{escape(text)}</title>"


def ladder_svg(history: Mapping[str, Any], *, tz: str) -> Markup:
    """The picture for ``service.console_views.ladder_history``'s result."""
    start, end = int(history["from"]), int(history["to"])
    height = TOP + LANE * len(RUNGS) + BOTTOM
    out = [
        f'<svg class="timeline" viewBox="0 0 {WIDTH} {height}" width="100%" '
        f'role="img" aria-label="ladder timeline of {escape(history["role"])}" '
        'xmlns="http://www.w3.org/2000/svg">'
    ]
    for index, rung in enumerate(RUNGS):
        y = TOP + index * LANE
        fill = "#f4f6f8" if index % 2 == 0 else "#ffffff"
        out.append(
            f'<rect x="{LEFT}" y="{y}" width="{WIDTH - LEFT}" height="{LANE}" fill="{fill}"/>'
        )
        out.append(
            f'<text x="{LEFT - 8}" y="{y + LANE / 2 + 4}" text-anchor="end" '
            f'font-size="12" fill="#333">{rung}</text>'
        )
    axis_y = TOP + LANE * len(RUNGS)
    out.append(f'<line x1="{LEFT}" y1="{axis_y}" x2="{WIDTH}" y2="{axis_y}" stroke="#888"/>')
    for fraction in (0.0, 0.5, 1.0):
        ms = int(start + (end - start) * fraction)
        x = _x(ms, start, end)
        anchor = "start" if fraction == 0 else ("end" if fraction == 1 else "middle")
        out.append(
            f'<text x="{x:.1f}" y="{axis_y + 16}" text-anchor="{anchor}" font-size="11" '
            f'fill="#555">{escape(local_text(ms, tz))}</text>'
        )
    for a in history["attempts"]:
        out.extend(_attempt(a, start, end, tz))
    for p in history["pages"]:
        out.extend(_page(p, start, end, tz))
    if not history["attempts"] and not history["pages"]:
        out.append(
            f'<text x="{(LEFT + WIDTH) / 2}" y="{TOP + LANE * 2.6}" text-anchor="middle" '
            'font-size="13" fill="#777">no wakes in this window</text>'
        )
    out.append("</svg>")
    return Markup("".join(out))


def _lane(rung: str) -> int:
    return rank(rung) if rung in RUNGS else len(RUNGS) - 1


def _attempt(a: dict[str, Any], start: int, end: int, tz: str) -> list[str]:
    lane = _lane(a["rung"])
    y = TOP + lane * LANE
    x1, x2 = _x(a["start"], start, end), _x(a["end"], start, end)
    width = max(x2 - x1, 3.0)
    fill = OUTCOME_FILL.get(a["outcome"], "#2f6fdf")
    label = f"{a['label']} (from {local_text(a['start'], tz)})"
    parts = [
        f'<g class="attempt" data-attempt="{a["id"]}" data-outcome="{escape(a["outcome"])}">',
        _title(label),
        f'<rect x="{x1:.1f}" y="{y + 9}" width="{width:.1f}" height="{LANE - 18}" rx="3" '
        f'fill="{fill}"'
        + (' stroke="#d0342c" stroke-width="2"' if list(RUNGS.values())[lane].waits else "")
        + "/>",
    ]
    mid = y + LANE / 2
    # Each moment of the attempt's life that happened, as a marker titled with its time.
    marks = {
        "launched": '<circle class="launch" cx="{x:.1f}" cy="{mid}" r="4" fill="#fff" '
        'stroke="#222">',
        "landed": '<path class="landing" d="M{x:.1f} {top} l5 5 l-5 5 l-5 -5 z" fill="#222">',
        "resolved": '<line class="resolution" x1="{x:.1f}" y1="{y1}" x2="{x:.1f}" y2="{y2}" '
        'stroke="#0b5d2a" stroke-width="3">',
    }
    for moment, tag in marks.items():
        if a[moment]:
            x = _x(int(a[moment]), start, end)
            opening = tag.format(x=x, mid=mid, top=mid - 5, y1=y + 5, y2=y + LANE - 5)
            close = opening[1 : opening.index(" ")]
            title = _title(f"{moment} {local_text(int(a[moment]), tz)}")
            parts.append(f"{opening}{title}</{close}>")
    if a["failure_class"] or a["launch_status"] in LAUNCH_FAILED:
        x = x1 + width
        why = a["failure_class"] or a["launch_status"]
        parts.append(
            f'<path class="failure" d="M{x - 4:.1f} {mid - 4} l8 8 m0 -8 l-8 8" '
            f'stroke="#d0342c" stroke-width="2.5">' + _title(f"launch failed: {why}") + "</path>"
        )
    parts.append("</g>")
    return parts


def _page(p: dict[str, Any], start: int, end: int, tz: str) -> list[str]:
    y = TOP + _lane(PAGE_RUNG) * LANE
    x = _x(p["at"], start, end)
    fill = PAGE_FILL.get(p["status"], "#555")
    return [
        f'<path class="page" data-page="{p["id"]}" d="M{x:.1f} {y + 1} l5 7 l-10 0 z" '
        f'fill="{fill}">' + _title(f"{p['label']} at {local_text(p['at'], tz)}") + "</path>"
    ]
