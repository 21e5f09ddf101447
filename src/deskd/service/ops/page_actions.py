"""Acting on a page from its signed link: what the confirm page shows (reads only), and the
one POST that acts.

The link is the authority for one action on one page, so no login is asked. The link is
burned (``page_links_used``) in the same transaction as its action: a replay, or a second
tap racing the first, fails on the primary key and changes nothing; an action that is
refused (its wake already over) rolls the burn back with it. Every event the action writes
is stamped with how it was authorised ("link from page 42, sent to email").
"""

from __future__ import annotations

import json

from deskd.errors import LinkRefused
from deskd.service.desk.context import DeskContext
from deskd.service.desk.pauses import pause
from deskd.service.engine.questions import answer
from deskd.service.engine.wake import act_on_page
from deskd.service.paging.links import ACTIONS, link_key, read_token
from deskd.store.attempts import attempts_for_key
from deskd.store.pages import get_page, use_page_link
from deskd.store.questions import options_of, question_for_key
from deskd.store.records import JSON, shown
from deskd.store.records.wakes import Page


def link_view(ctx: DeskContext, token: str) -> JSON:
    """What ``token`` would do, for its confirm page; LinkRefused when it is forged, expired or
    its page is gone.
    Reads only: a previewer's GET must change nothing."""
    page_id, action = read_token(link_key(ctx.settings), token, now=ctx.now)
    page = get_page(ctx.conn, page_id)
    if page is None:
        raise LinkRefused("its page no longer exists")
    live = [a for a in attempts_for_key(ctx.conn, page.key, limit=5) if a.outcome == "pending"]
    label = ACTIONS.get(action) or f"Answer {_option(ctx, page, action)[1]!r}"
    return {
        "page_id": page.id,
        "action": action,
        "label": label,
        **shown(page, "role title status"),
        "attempt_id": live[0].id if live else None,
    }


def act_by_link(ctx: DeskContext, token: str) -> tuple[str, JSON]:
    """Do what ``token`` says, once; returns the sentence for the person and the link's view."""
    view = link_view(ctx, token)
    page = get_page(ctx.conn, view["page_id"])
    assert page is not None
    names = sorted({e["name"] for e in json.loads(page.results or "[]") if e.get("name")})
    how = f"via link from page {page.id}" + (f", sent to {', '.join(names)}" if names else "")
    ctx.auth = how.removeprefix("via ")
    with ctx.write() as conn:
        if not use_page_link(
            conn, token.rsplit(".", 1)[1], page_id=page.id, action=view["action"], now=ctx.now
        ):
            raise LinkRefused("it was used already", code="already_used")
        if view["action"] not in ACTIONS:  # an answer to the page's question
            question_id, option = _option(ctx, page, view["action"])
            answer(ctx, question_id, option, how=how)
            return f"answered question {question_id}: {option}", view
        if view["action"] == "pause":
            pause(ctx, role=page.role, reason=f"paused {how}")
            return f"paused {page.role} (until `deskd resume --role {page.role}`)", view
        if view["attempt_id"] is None:
            raise LinkRefused("this page's wake is already over; nothing to do")
        action = view["action"]
        hours = int(action[len("snooze") : -1]) if action.startswith("snooze") else 0
        done = act_on_page(
            ctx, page, "snooze" if hours else action, view["attempt_id"], how, snooze_s=hours * 3600
        )
    return done, view


def _option(ctx: DeskContext, page: Page, action: str) -> tuple[int, str]:
    """The question a page asks and the option an ``a<N>`` link answers with."""
    asked = question_for_key(ctx.conn, page.key)
    options = (options_of(asked) or []) if asked else []
    if asked is None or int(action[1:]) >= len(options):
        raise LinkRefused("its page asks no such question")
    return asked.id, options[int(action[1:])]
