"""The agent adapter protocol: build a launch's argv, read its output, classify how it ended.

The executor owns the process (environment, timeout, kill); an adapter owns the knowledge of
one CLI: which flags start or resume a session, which output lines carry the native session
id, which prove the model took a turn (a *landing*), and what the final output says about
failure. ``feed`` is called once per stdout line as it arrives and must never raise: agent
CLIs print banners, warnings and half-lines among their JSON.

Failure classes (docs/contract.md "The agent CLIs"): ``permanent`` (executable missing,
authentication, invalid request, model not found, billing) climbs at once; ``transient``
(overload, network, timeout) is retried; ``usage_limit`` holds the role until ``reset_at_ms``
when the CLI gives one; ``task`` means the agent ran and reported that its work failed.
Classification reads the structured output first and the exit code only where nothing
structured was printed; it survives a missing final result (some agent versions print none
when a Stop hook is configured).
"""

from __future__ import annotations

import json
import re
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple

from deskd.core.ladder import LAUNCH_RUNGS
from deskd.core.timeparse import iso_utc
from deskd.core.usage import Usage
from deskd.core.values import FAILURE_CLASSES as FAILURE_CLASSES
from deskd.core.values import PERMANENT as PERMANENT
from deskd.core.values import TASK as TASK
from deskd.core.values import TRANSIENT as TRANSIENT
from deskd.core.values import USAGE_LIMIT as USAGE_LIMIT
from deskd.errors import InvalidLaunch
from deskd.session_ids import Shape, session_id_problem

if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

SESSION = "session"  # signal: this line recorded the native session id
TURN = "turn"  # signal: this line proves the model took a turn (the launch landed)

MAX_DETAIL = 300


class LaunchSpec(NamedTuple):
    kind: str  # claude | codex | gemini | opencode | command
    command: str  # executable (absolute path or name resolved by the executor)
    args: tuple[str, ...]  # kind=command: the argv template; others: extra args
    mode: str  # "spawn" | "resume"
    prompt: str
    session_id: str | None  # resume: the native id; claude spawn: the pre-assigned UUID
    model: str  # "" = the CLI's default
    allowed_tools: tuple[str, ...]
    settings_path: str | None  # claude: the per-run settings file
    role: str


@dataclass
class RunState:
    """What one run's output has shown so far; ``feed`` updates it line by line."""

    session_id: str | None = None
    landed: bool = False  # the model took a turn (assistant event etc.), NOT init/SessionStart
    result: dict[str, Any] | None = None
    events: int = 0  # structured lines seen (each is a heartbeat for the role)
    errors: list[str] = field(default_factory=list)
    cost_usd: float | None = None
    usage: Usage = field(default_factory=Usage)  # summed over the run's reports
    reset_at_ms: int | None = None
    buffer: str = ""  # an adapter's partial multi-line document (gemini's pretty JSON)
    started_at_ms: int = 0  # deskd's clock when the run started: relative reset times use it

    def model_turn(self) -> set[str]:
        """The run landed a model turn: ``{TURN}`` the first time, nothing after."""
        first = not self.landed
        self.landed = True
        return {TURN} if first else set()

    def count(self, model: object = None, **tokens: object) -> None:
        """Add one usage report (``input=``, ``output=``, ``cache_read=``, ``cache_write=``;
        a value that is not a number counts as not reported) and the model it names."""
        figures = {f"{k}_tokens": int(n) for k, v in tokens.items() if (n := number(v)) is not None}
        named = model if isinstance(model, str) and model else None
        self.usage = self.usage.plus(Usage(**figures, model=named))

    def add_cost(self, value: object) -> None:
        cost = number(value)
        if cost is not None:
            self.cost_usd = (self.cost_usd or 0.0) + cost


class RunOutcome(NamedTuple):
    """How a run ended. ``failure_class`` None means success."""

    failure_class: str | None  # None | permanent | transient | usage_limit | task
    detail: str  # one line for people ("not logged in: run `claude /login`")
    cost_usd: float | None
    session_id: str | None
    reset_at_ms: int | None  # usage-limit reset, when the CLI gives one
    usage: Usage = Usage()


class AgentAdapter(ABC):
    """One agent CLI, built by ``adapter_for`` from its line in ``KINDS``. Instances are
    stateless; per-run state lives in ``RunState``."""

    login_hint: ClassVar[str] = ""
    """How to fix "not logged in" for this CLI, for the outcome's detail."""
    keeps_unanswered_session: ClassVar[bool] = True
    """Whether a session whose model call failed is stored and can be resumed (an in-rung
    retry resumes it). Claude Code and Codex store it; Gemini CLI does not."""

    def __init__(self, kind: str, ids: Shape) -> None:
        self.kind, self.ids = kind, ids

    def new_session_id(self) -> str | None:
        """The id a spawn gives its session up front (None: the CLI picks one and prints it)."""
        return None

    def install_hooks(self, run_file: Path | None, env: Mapping[str, str]) -> str | None:
        """Wire deskd's session hook into one run (``env``: the launch's environment) through
        ``run_file``, and return what the CLI is given to find it: None for a CLI whose hooks
        are not installed per run; with ``run_file`` None (``deskd agent command``), a
        placeholder, writing nothing."""
        return None

    def argv(self, spec: LaunchSpec) -> list[str]:
        """The full argv, executable first; never a shell string. An unknown mode is refused
        here for every kind; ``build`` writes the CLI's own flags."""
        if spec.mode not in LAUNCH_RUNGS:
            raise InvalidLaunch(self.kind, f"unknown mode {spec.mode!r} (spawn or resume)")
        return self.build(spec)

    @abstractmethod
    def build(self, spec: LaunchSpec) -> list[str]:
        """``argv`` for a spawn or a resume (a resume's id comes from ``resume_id``)."""

    def feed(self, state: RunState, line: str) -> set[str]:
        """Read one stdout line into ``state``; the signals it carried (SESSION, TURN). A line
        holding a JSON object is an event (a heartbeat, counted), read by ``read``; other lines
        (banners, warnings, half-lines) are passed over."""
        event = parse_json_line(line)
        if event is None:
            return set()
        state.events += 1
        return self.read(state, event)

    @abstractmethod
    def read(self, state: RunState, event: dict[str, Any]) -> set[str]:
        """One JSON event of the CLI's output into ``state``; the signals it carried."""

    def outcome(
        self, state: RunState, *, exit_code: int | None, timed_out: bool, stderr_tail: str
    ) -> RunOutcome:
        """How the run ended, from what ``feed`` saw, then stderr, then the exit code."""
        if timed_out:
            turn = "after a model turn" if state.landed else "before any model turn"
            return self.done(state, TRANSIENT, f"timed out {turn}")
        return self.ended(state, exit_code=exit_code, stderr_tail=stderr_tail)

    @abstractmethod
    def ended(self, state: RunState, *, exit_code: int | None, stderr_tail: str) -> RunOutcome:
        """How a run that was not timed out ended (``outcome`` without the timeout)."""

    # Shared pieces for the concrete adapters.

    def done(self, state: RunState, failure_class: str | None, detail: str) -> RunOutcome:
        reset = state.reset_at_ms if failure_class == USAGE_LIMIT else None
        if failure_class == USAGE_LIMIT and reset is not None and "resets" not in detail:
            detail = f"{detail} (resets {iso_utc(reset)})"
        return RunOutcome(
            failure_class=failure_class,
            detail=one_line(detail),
            cost_usd=state.cost_usd,
            session_id=state.session_id,
            reset_at_ms=reset,
            usage=state.usage,
        )

    def session(self, state: RunState, value: object) -> set[str]:
        """Record the first native session id seen; later ids (a forked resume) do not replace
        it. Only an id of the shape this CLI prints is kept: it is passed back to the CLI on
        the next resume, so output that named ``--some-flag`` as its session must not become
        one."""
        if state.session_id is None and isinstance(value, str):
            value = value.strip()
            if session_id_problem(self.ids, value) is None:
                state.session_id = value
                return {SESSION}
        return set()

    def resume_id(self, spec: LaunchSpec) -> str:
        """The session id a resume passes to the CLI, refused unless it has the CLI's shape."""
        if not spec.session_id:
            raise InvalidLaunch(self.kind, "resume needs the native session id")
        return self.checked_id(spec.session_id)

    def checked_id(self, session_id: str) -> str:
        """``session_id`` when this CLI could have printed it; refused otherwise (an id stored
        before ids were checked must not reach the CLI's argv)."""
        problem = session_id_problem(self.ids, session_id, f"the {self.kind} CLI")
        if problem is not None:
            raise InvalidLaunch(self.kind, f"session id {session_id[:60]!r} refused: {problem}")
        return session_id

    def classify(self, text: str) -> tuple[str, str] | None:
        """(failure class, detail) for an error text the CLI printed, or None if unrecognised
        (``_PATTERNS``)."""
        text = plain(text or "").strip()
        if not text:
            return None
        for cls, label, pattern in _PATTERNS:
            if pattern.search(text):
                said = last_line(text)
                if label == "not logged in" and self.login_hint:
                    return cls, f"not logged in: {self.login_hint} ({said})"
                if label == "untrusted folder":
                    said = last_line(next(ln for ln in text.splitlines() if pattern.search(ln)))
                    return cls, f"untrusted folder: trust the role's workdir for this CLI ({said})"
                return cls, f"{label}: {said}"
        return None

    def without_result(
        self, state: RunState, *, exit_code: int | None, stderr_tail: str
    ) -> RunOutcome:
        """Classify a run that printed no final result, from what it did show.

        A model turn and a clean exit is a success (the result line is what went missing);
        an error text the CLI printed (in its stream or on stderr) decides next; an exit
        code is used only when there is nothing else.
        """
        if state.landed and exit_code == 0:
            return self.done(state, None, "finished (no final result printed)")
        for text in [*reversed(state.errors), stderr_tail]:
            found = self.classify(text)
            if found is not None:
                return self.done(state, *found)
        if exit_code in (126, 127) and state.events == 0:
            return self.done(
                state, PERMANENT, f"the agent command could not run (exit {exit_code})"
            )
        said = last_line(state.errors[-1] if state.errors else stderr_tail)
        tail = f": {said}" if said else ""
        if exit_code == 0:
            if state.events == 0:
                return self.done(state, TRANSIENT, f"no result: the agent printed nothing{tail}")
            if not state.landed:
                return self.done(
                    state, TRANSIENT, f"no result: the session started but no model turn{tail}"
                )
        if state.landed:
            return self.done(
                state, TRANSIENT, f"exited {exit_code} after a model turn, no final result{tail}"
            )
        return self.done(state, TRANSIENT, f"exited {exit_code} without a result{tail}")


def parse_json_line(line: str) -> dict[str, Any] | None:
    """The JSON object on this line, or None for anything else (banners, junk, arrays)."""
    text = line.strip()
    if not text.startswith("{"):
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])")


def plain(text: str) -> str:
    """``text`` without terminal colour and cursor codes (CLIs colour their stderr)."""
    return _ANSI.sub("", str(text))


def one_line(text: str, limit: int = MAX_DETAIL) -> str:
    flat = " ".join(plain(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def last_line(text: str) -> str:
    lines = [ln.strip() for ln in plain(text).splitlines() if ln.strip()]
    return one_line(lines[-1], 160) if lines else ""


def error_text(error: object, kind: str) -> str:
    """An error object a CLI printed as one text: its ``kind`` (``type``, ``name``) and its
    message (``data.message`` first, where the CLI nests it)."""
    if not isinstance(error, dict):
        return str(error or "error")
    data = error.get("data")
    message = data.get("message") if isinstance(data, dict) else None
    parts = [str(error.get(kind) or ""), str(message or error.get("message") or "")]
    return ": ".join(p for p in parts if p) or "error"


# Error texts the CLIs print, most specific first. Used on error messages inside structured
# output and on stderr when no structured output exists; never on a successful result.
_PATTERNS: tuple[tuple[str, str, re.Pattern[str]], ...] = tuple(
    (cls, label, re.compile(rx, re.I | re.M))
    for cls, label, rx in (
        (
            # Gemini CLI exits 55, Codex exits 1: a configuration failure no retry can fix.
            PERMANENT,
            "untrusted folder",
            r"not (?:running )?in(?:side)? a trusted directory|untrusted (?:folder|workspace)",
        ),
        (
            USAGE_LIMIT,
            "usage limit",
            r"usage limit|rate.?limit|\b429\b|quota|resource.?exhausted|too many requests",
        ),
        (PERMANENT, "billing", r"credit balance|billing|payment required|\b402\b"),
        (
            PERMANENT,
            "not logged in",
            r"not logged in|log ?in required|please run /login|unauthori[sz]ed|\b401\b"
            r"|invalid api key|api key not found|no api key|missing bearer|authenticat",
        ),
        (PERMANENT, "forbidden", r"\b403\b|forbidden|permission denied for model"),
        (
            PERMANENT,
            "model not found",
            r"model .*not (?:found|supported|exist)|unknown model|model_not_found"
            r"|invalid model|model metadata .*not found",
        ),
        (
            PERMANENT,
            "session not found",
            r"no conversation found|session .*not found|no (?:such )?session",
        ),
        (
            PERMANENT,
            "bad arguments",
            r"unknown option|unknown argument|unexpected argument|unrecognized arguments"
            r"|invalid option|invalid.request|\b400\b|^usage:",
        ),
        (
            TRANSIENT,
            "overloaded",
            r"overloaded|\b5\d\d\b|internal server error|server.error|service unavailable"
            r"|bad gateway",
        ),
        (
            TRANSIENT,
            "network",
            r"network|econnreset|econnrefused|etimedout|enotfound|socket hang up"
            r"|stream disconnected|connection (?:reset|refused|error)|timed? ?out|dns",
        ),
    )
)
