"""The annotated desk file ``deskd init`` writes, filled in from its answers.

Plain strings here (not package data) so an installed wheel and a checkout write the same
text. The answers of plain ``deskd init`` (``init_answers.default_answers``) give the
example desk: two roles, UTC, Claude, no channel.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from deskd.adapters.agents import KINDS
from deskd.service.ops.init_answers import (
    CHANNEL_NAME,
    CHANNEL_VAR,
    PYTHON_SCHEME,
    DeskAnswers,
    RoleAnswer,
)

if TYPE_CHECKING:
    from deskd.config.settings import Settings
    from deskd.service.paging.channels import ChannelTest

COMMENT_AT = 37
"""The column the annotations start at, so the file reads as two columns."""

HEAD = """\
# deskd.toml: the desk file. Every key is optional unless marked; unknown keys are refused.
# Durations: 90s, 5m, 2h, 1d or bare seconds. Check it with `deskd doctor`.

[desk]
name = {name}
{timezone}
{pad}# and day boundaries use it
inbox_sources = ["alert", "signal"]  # sources agents and scripts may enqueue; deskd's own
{pad}# (system, message, meeting, supervisor) are always reserved
probe_allowlist = []                 # module prefixes probes may come from; empty = no probe runs
inbox_batch = "3m"                   # a normal item waits this long before waking an idle role
stall_after = 3                      # idle-task wakes without progress before a task is stalled
reopen_after = 3                     # failed checks of a task (--done-when) before a person is paged
stuck_after = "15m"                  # a running agent silent this long is stopped and resumed
rollover_at = "04:00"                # local time after which yesterday's sessions wind down
{default_channels}
max_launches_per_day = 48            # per role; 0 = no cap
max_cost_per_day = 0                 # USD per role; 0 = no cap

[presence]
online = "2m"                        # a working session's heartbeat younger than this: online
suspect = "10m"                      # younger than this: suspect; older: dead

[agent]                              # defaults for every role (DESKD_AGENT_CMD etc. override)
kind = {kind}{kind_pad}# {kinds}
command = {kind}{command_pad}# executable name (found on PATH) or absolute path;
{pad}# install: {install}
model = ""                           # empty: the CLI's own default
timeout = "30m"                      # longest agent turn
retry_wait = "2s"                    # before retrying a quick transient failure (doubles, ≤ 10×)
allowed_tools = ["Read", "Grep", "Glob", "Edit", "Write", "Bash"]
"""

PROMPT = 'prompt = "Load the agent-orchestration skill, declare role={role}, follow its playbook."'

LADDER = """
# The escalation ladder. Leave it out for this default; drop rungs or change SLAs here.
# [[ladder]]
# rung = "session"                   # the session hook surfaces items into a running turn
# sla = "1m"
# [[ladder]]
# rung = "resume"                    # resume the role's native session
# sla = "2m"
# [[ladder]]
# rung = "spawn"                     # start a new session
# sla = "3m"
# [[ladder]]
# rung = "notify"                    # page a person through the role's channels
# sla = "5m"
# [[ladder]]
# rung = "badge"                     # red on the board until someone acts

# Events in: `deskd serve` takes POST /events/<source> from a declared sender.
# [[events]]
# source = "alertmanager"            # the items' source (allowed by declaring it)
# kind = "alertmanager"              # alertmanager | github | json
# for = "operator"                   # or: capability = "triage"
# token = "${AM_TOKEN}"              # bearer token, from .env (github: secret = "${GH_SECRET}")
# title = "{commonLabels.alertname}" # optional: the title from the payload
# priority = "normal"

# Replies by email to pages (DESKD_REPLY_IMAP_URL in .env) act from these addresses only.
# [reply]
# from = ["oncall@example.com"]
"""

CHANNELS_NOTE = """
# Channels reach a person: any apprise URL; ${VAR} is filled from the environment, so
# secrets stay in .env, not in this file. Name a channel in a role's `channels` or in
# [desk] default_channels to use it.
"""

CHANNEL_EXAMPLE = """\
# [[channels]]
# name = "ops"
# urls = ["discord://${DISCORD_WEBHOOK}", "mailto://${SMTP_USER}:${SMTP_PASS}@example.com"]
# severity = ["urgent", "high"]      # only pages at these priorities use this channel
# quiet = "22:00-07:00"              # hold non-urgent pages in these local hours
# apprise_config = "/etc/deskd/apprise.yml"   # an existing apprise config file instead of urls
"""

CHANNEL_GIVEN = """\
[[channels]]
name = {name}
{urls}
# severity = ["urgent", "high"]      # only pages at these priorities use this channel
# quiet = "22:00-07:00"              # hold non-urgent pages in these local hours
"""


def render_desk(answers: DeskAnswers, *, channel_ref: str | None = None) -> str:
    """The annotated desk file for ``answers``.

    The channel's URL is written as ``channel_ref`` when given (a preview to test it), else
    as ``channel_url_ref`` says (``${OPS_CHANNEL_URL}``, its value kept in ``.env``).
    """
    channels = [CHANNEL_NAME] if answers.channel else []
    text = HEAD.format(
        name=_str(answers.name),
        timezone=_line(
            f"timezone = {_str(answers.timezone)}",
            "IANA name (America/New_York, Europe/Berlin); wake hooks",
        ),
        pad=" " * COMMENT_AT,
        default_channels=_line(
            f"default_channels = {_list(channels)}",
            'paged for roles that name no channels (e.g. ["ops"])',
        ),
        kind=_str(answers.agent),
        kind_pad=_pad(f"kind = {_str(answers.agent)}"),
        command_pad=_pad(f"command = {_str(answers.agent)}"),
        install=KINDS[answers.agent].install,
        kinds=" | ".join(KINDS),
    )
    for index, role in enumerate(answers.roles):
        text += "\n" + _role(role, answers.agent, annotated=index == 0)
    text += LADDER + CHANNELS_NOTE
    if answers.channel:
        ref = channel_ref if channel_ref is not None else channel_url_ref(answers.channel)
        urls = f"urls = [{_str(ref)}]"
        if ref.startswith("${"):
            urls = _line(urls, f"{CHANNEL_VAR} is set in .env")
        text += CHANNEL_GIVEN.format(name=_str(CHANNEL_NAME), urls=urls)
    else:
        text += CHANNEL_EXAMPLE
    return text


def try_channel(settings: Settings, answers: DeskAnswers) -> ChannelTest:
    """Send a test page on the channel as ``deskd channels test`` would, on the desk these
    answers make (the URL written in, nothing on disk yet); that command's result."""
    from deskd.config.desk_file import parse_desk
    from deskd.config.host import host_config
    from deskd.service.paging.channels import send_test

    text = render_desk(answers, channel_ref=answers.channel or "")
    desk = parse_desk(text, path=settings.desk_path, host=host_config())
    return send_test(settings, desk, CHANNEL_NAME)


def channel_url_ref(url: str) -> str:
    """How the desk file names a channel URL: ``${OPS_CHANNEL_URL}`` (a credential, kept in
    ``.env``), except a Python channel's ``python://NAME``, which holds none."""
    return url if url.startswith(PYTHON_SCHEME) else "${" + CHANNEL_VAR + "}"


def _role(role: RoleAnswer, desk_agent: str, *, annotated: bool) -> str:
    lines = ["[[roles]]"]
    name = f"name = {_str(role.name)}"
    lines.append(
        _line(name, '[a-z][a-z0-9_-]{0,31}; "supervisor" is reserved') if annotated else name
    )
    lines.append(f"title = {_str(role.title)}")
    capabilities = f"capabilities = {_list(list(role.capabilities))}"
    if annotated and not role.capabilities:
        capabilities = _line(capabilities, "what it can take (--capability routes work to it)")
    lines.append(capabilities)
    given = role.workdir is not None
    workdir = (
        '# workdir = "~/src/myapp"' if role.workdir is None else f"workdir = {_str(role.workdir)}"
    )
    if not annotated:
        lines.append(workdir)
    elif given:
        lines += [
            _line(workdir, "where its agent runs (it must exist); agents can"),
            " " * COMMENT_AT + "# read whatever their Unix user can",
        ]
    else:
        lines += [
            _line(workdir, "where its agent runs; unset: the desk folder. Point it"),
            " " * COMMENT_AT + "# at the project the role works on (it must exist);",
            " " * COMMENT_AT + "# agents can read whatever their Unix user can",
        ]
    if annotated:
        lines.append(_line("enabled = true", "false: no wakes, demand withdrawn, history kept"))
    lines.append(PROMPT)
    if annotated:
        lines.append(_line("channels = []", "who is paged when this role's wake reaches a person"))
    if role.agent is not None and role.agent != desk_agent:
        kind = _str(role.agent)
        lines.append(_line(f"agent = {{ kind = {kind}, command = {kind} }}", "its own agent CLI"))
    elif annotated:
        lines.append(
            '# agent = { kind = "codex", model = "gpt-5" }   # per-role override of [agent]'
        )
    return "\n".join(lines) + "\n"


def _line(code: str, comment: str) -> str:
    return code + _pad(code) + "# " + comment


def _pad(code: str) -> str:
    return " " * max(1, COMMENT_AT - len(code))


def _str(value: str) -> str:
    """A TOML basic string: JSON's escapes are TOML's, but not its surrogate pairs (an emoji
    stays itself) nor a raw DEL, which TOML forbids."""
    return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")


def _list(values: list[str]) -> str:
    return "[" + ", ".join(_str(v) for v in values) + "]"
