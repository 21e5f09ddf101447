"""What ``deskd init`` is told (by its questions or its flags), each answer checked as the
desk file would check it, so a bad one is refused with the reason before anything is written.

The guided questions live in the CLI (click prompts); this module has no terminal in it.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from deskd.core.values import AGENT_KINDS as ALL_AGENT_KINDS
from deskd.errors import DeskdError, InitAnswerRefused, InvalidValue

if TYPE_CHECKING:
    from deskd.service.paging.channels import ChannelTest

AGENT_KINDS = tuple(kind for kind in ALL_AGENT_KINDS if kind != "command")
"""The agent CLIs ``init`` offers (a ``command`` agent is written by hand, docs/own-agent.md)."""
CHANNEL_NAME = "ops"
CHANNEL_VAR = "OPS_CHANNEL_URL"
"""The ``.env`` variable that holds the channel URL ``init`` was given: a webhook URL is a
credential, and deskd.toml is readable by every agent running as this user."""
PYTHON_SCHEME = "python://"


class RoleAnswer(NamedTuple):
    name: str
    title: str
    workdir: str | None = None
    """As given (``~`` kept); checked to exist as a launch would resolve it."""
    agent: str | None = None
    """This role's agent CLI when it differs from the desk's ``[agent]``."""
    capabilities: tuple[str, ...] = ()


class DeskAnswers(NamedTuple):
    name: str
    timezone: str = "UTC"
    roles: tuple[RoleAnswer, ...] = ()
    agent: str = AGENT_KINDS[0]
    channel: str | None = None
    """An apprise URL (or ``python://NAME``) paged for every role, or None."""


EXAMPLE_ROLES = (
    RoleAnswer("researcher", "Researcher", capabilities=("research", "review")),
    RoleAnswer("operator", "Operator", capabilities=("deploy", "incident")),
)
"""The two roles a desk gets when nobody named any (plain ``deskd init``)."""


def desk_name(home: Path) -> str:
    """A readable desk name from the folder name (``desk`` when it has nothing usable)."""
    cleaned = re.sub(r"[^A-Za-z0-9_.-]+", "-", home.name).strip("-")
    return cleaned or "desk"


def default_answers(home: Path) -> DeskAnswers:
    """Plain ``deskd init``'s desk: named after its folder, UTC, the two example roles."""
    return DeskAnswers(name=desk_name(home), roles=EXAMPLE_ROLES)


def check_desk_name(value: str) -> str:
    name = value.strip()
    if not name or any(ord(c) < 32 for c in name):
        raise InitAnswerRefused("a desk name is some text on one line, like support")
    return name


def check_timezone(value: str) -> str:
    """An IANA zone name, refused with the desk file's own reason."""
    from pydantic import ValidationError

    from deskd.config.desk_file import DeskSection

    zone = value.strip()
    try:
        DeskSection(timezone=zone)
    except ValidationError as exc:
        raise InitAnswerRefused(_reason(exc)) from None
    return zone


def check_role_name(value: str, taken: list[str]) -> str:
    from deskd.core.values import role_name_problem

    name = value.strip()
    problem = role_name_problem(name)
    if problem:
        raise InitAnswerRefused(problem)
    if name in taken:
        raise InitAnswerRefused(
            f"role {name!r} is already on this desk (roles: {', '.join(taken)})"
        )
    return name


def check_title(value: str) -> str:
    title = value.strip()
    if any(ord(c) < 32 for c in title):
        raise InitAnswerRefused("a role title is text on one line")
    return title


def check_workdir(value: str, home: Path) -> str | None:
    """A folder that exists (``~`` and paths relative to the desk folder resolved as a launch
    resolves them); empty: None, the desk folder."""
    given = value.strip()
    if not given:
        return None
    from deskd.service.engine.launch_command import resolve_workdir

    folder, problem = resolve_workdir(given, home)
    if problem is not None:
        raise InitAnswerRefused(
            f"workdir {folder} {problem}: create it first, or leave it empty for the desk folder"
        )
    return given


def check_agent(value: str, offered: list[str] | None = None) -> str:
    """One of ``AGENT_KINDS``; of ``offered`` (those on PATH) when the question offers fewer."""
    kind = value.strip()
    if kind not in AGENT_KINDS:
        raise InitAnswerRefused(f"unknown agent {kind!r} (agents: {', '.join(AGENT_KINDS)})")
    if offered and kind not in offered:
        raise InitAnswerRefused(f"{kind!r} is not on PATH (on PATH: {', '.join(offered)})")
    return kind


def check_channel(value: str) -> str | None:
    url = value.strip()
    if not url:
        return None
    if "://" not in url or any(c.isspace() for c in url):
        raise InvalidValue(
            "channel URL", value, "an apprise URL like discord://ID/TOKEN or json://host/path"
        )
    return url


def default_title(name: str) -> str:
    return " ".join(w.capitalize() for w in re.split(r"[-_]+", name) if w) or name


def parse_role(spec: str, home: Path, taken: list[str]) -> RoleAnswer:
    """``NAME[:TITLE[:WORKDIR]]`` (``--role``); the workdir may itself hold colons."""
    name, _, rest = spec.partition(":")
    title, _, workdir = rest.partition(":")
    name = check_role_name(name, taken)
    return RoleAnswer(
        name=name,
        title=check_title(title) or default_title(name),
        workdir=check_workdir(workdir, home),
    )


def agents_on_path(search_path: str) -> list[str]:
    """The agent CLIs found on ``search_path``, in ``AGENT_KINDS`` order."""
    return [kind for kind in AGENT_KINDS if shutil.which(kind, path=search_path)]


def system_timezone(
    environ: Mapping[str, str] | None = None,
    *,
    etc: Path = Path("/etc"),
) -> str:
    """This machine's IANA zone: ``TZ``, else ``/etc/timezone``, else where ``/etc/localtime``
    links into the zoneinfo tree; ``UTC`` when none names a known zone."""
    environ = os.environ if environ is None else environ
    candidates = [environ.get("TZ", "").lstrip(":")]
    try:
        candidates.append((etc / "timezone").read_text(encoding="utf-8").strip())
    except OSError:
        pass
    try:
        target = os.readlink(etc / "localtime")
        candidates.append(target.partition("zoneinfo/")[2])
    except OSError:
        pass
    for zone in candidates:
        if zone and not zone.startswith("/"):
            try:
                return check_timezone(zone)
            except DeskdError:
                continue
    return "UTC"


def failed_sends(result: ChannelTest) -> str:
    """What went wrong in a ``send_test`` result, in one line."""
    errors = [str(c["error"]) for c in result["channels"] if c["status"] != "sent"]
    return "; ".join(e for e in errors if e) or "not delivered"


def _reason(exc: Any) -> str:
    """The first reason pydantic gives, without its ``Value error,`` prefix."""
    message = str(exc.errors()[0]["msg"])
    return message.removeprefix("Value error, ")
