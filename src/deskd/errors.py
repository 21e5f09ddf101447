"""One error module: every refusal deskd makes, each building its own message.

The CLI maps ``exit_code`` to the process exit status and ``code`` to the JSON
``error.code`` slug; the console maps them to HTTP statuses.

Most refusals are declared by their words alone, as data: ``refusal_class(code, says)``.
A refusal whose message needs more than its fields is a class with its own ``__init__``. It
runs past 400 lines on purpose, so a reader finds every message and code in one place; the
refusals of scheduling the tick are in ``deskd.schedule.service``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence


class DeskdError(Exception):
    """A refusal: the command changed nothing. Exit 1 unless a subclass says otherwise.

    A refusal that only words its arguments declares ``says``: a ``str.format`` template
    whose fields are its arguments, positional in the order they first appear, or by name;
    ``{field!c}`` shows a collection as the sorted choices. Each argument is kept as an
    attribute of its name, and a class attribute of that name is its default. Without
    ``says`` the refusal is given its message whole.
    """

    code = "refused"
    exit_code = 1
    says = ""
    message: str

    def __init__(self, *args: object, code: str | None = None, **fields: object) -> None:
        if not self.says and (len(args) != 1 or fields):
            raise TypeError(f"{type(self).__name__} takes one message")
        message = self._words(args, fields) if self.says else str(args[0])
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code

    def _words(self, args: tuple[object, ...], fields: dict[str, object]) -> str:
        import re  # only on a refusal

        found = re.findall(r"\{(\w+)(!\w)?\}", self.says)
        names = list(dict.fromkeys(name for name, _ in found))
        if len(args) > len(names):
            raise TypeError(f"{type(self).__name__} takes {len(names)} arguments")
        values = dict(zip(names, args, strict=False)) | fields
        for name in names:
            if name not in values:
                values[name] = getattr(type(self), name)  # its default, else AttributeError
            setattr(self, name, values[name])
        shown = {
            n: choices(v) if (n, "!c") in found and isinstance(v, Iterable) else v
            for n, v in values.items()
        }
        return self.says.replace("!c}", "}").format(**shown)


def choices(known: Iterable[str]) -> str:
    """Names as a refusal lists the valid choices: sorted, comma-separated, or ``none``."""
    names = sorted(known)
    return ", ".join(names) if names else "none"


def meant(name: str, known: Iterable[str]) -> str:
    """``: did you mean 'alpha'?`` for the closest of ``known`` to a mistyped ``name``, or ""."""
    import difflib  # only on a refusal

    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.75)
    return f": did you mean {close[0]!r}?" if close else ""


def refusal_class(
    code: str, says: str = "", *, base: type[DeskdError] | None = None, **defaults: object
) -> type[DeskdError]:
    """A refusal declared by its words alone: its ``code``, its ``says`` template (without
    one it is given its message whole) and its fields' defaults; ``name_refusals`` names it."""
    return type("Refusal", (base or DeskdError,), {"code": code, "says": says, **defaults})


def name_refusals(namespace: dict[str, object]) -> None:
    """Name each ``refusal_class`` of a module after its name there, for tracebacks."""
    for name, refusal in list(namespace.items()):
        if isinstance(refusal, type) and refusal.__name__ == "Refusal":
            refusal.__name__ = refusal.__qualname__ = name


class UnknownRole(DeskdError):
    code = "unknown_role"

    def __init__(self, name: str, known: Iterable[str]) -> None:
        known = list(known)
        if not known:
            super().__init__(
                f"unknown role {name!r}: this desk has no roles "
                "(add a [[roles]] table to deskd.toml, see `deskd init`)"
            )
        else:
            super().__init__(f"unknown role {name!r}{meant(name, known)} (roles: {choices(known)})")
        self.name = name


NoRoles = refusal_class(
    "no_roles",
    "this desk has no roles: add a [[roles]] table with a name to deskd.toml "
    "(`deskd init` writes an annotated example)",
)
DisabledRole = refusal_class(
    "role_disabled", "role {name!r} is disabled (enabled = false in the desk file)"
)


class InvalidValue(DeskdError):
    code = "invalid_value"
    says = "invalid {what} {value!r} ({expected})"
    what: str
    value: object


# An answer to ``deskd init`` (asked, or given as a flag) the new desk cannot take; the
# message names what was wrong and, where there are any, the valid choices.
InitAnswerRefused = refusal_class("invalid_value")


class OptionsConflict(DeskdError):
    """An option that takes none of some others was given with them."""

    code = "invalid_value"

    def __init__(self, option: str, does: str, others: Sequence[str]) -> None:
        named = ", ".join(others[:-1]) + f" or {others[-1]}" if len(others) > 1 else others[0]
        super().__init__(f"{option} {does}: it takes no {named}")
        self.option = option


ChannelTestFailed = refusal_class(
    "channel_failed",
    "the test page on {option} failed ({why}): nothing written; fix the URL or leave {option} out",
)
# A file the command was told to use could not be used (the user's to fix).
FileRefused = refusal_class("os_error")
KeyFileExists = refusal_class(
    "refused", "{path} exists; choose another --out (keys are never overwritten)"
)
RelayNeedsPostgres = refusal_class(
    "not_postgresql",
    "deskd relay serves PostgreSQL desks only: this desk's database is a SQLite file "
    "(its hook needs no relay)",
)
SchemaBehind = refusal_class(
    "schema_behind",
    "{source} is at schema version {found}, this deskd's is {latest}: run any "
    "deskd command on that desk first (it migrates), then copy",
)
# ``deskd migrate-db`` into a database that already holds rows (the store's reason).
TargetNotEmptyRefused = refusal_class("target_not_empty")
AckNeedsTarget = refusal_class(
    "invalid_value",
    "say what to ack: --seen (exactly the items {role} was shown) or --id N "
    "(see `deskd inbox list --for {role}`)",
)
KeyUnreadable = refusal_class("refused", "--key {path}: {why}")
NotYourRole = refusal_class(
    "not_your_role",
    "{flag} {asked!r} refused: this session acts as {actual!r} (DESKD_ROLE); "
    "agents may act only as their own role",
)
MissingRole = refusal_class(
    "missing_role", "{flag} is required (or set DESKD_ROLE inside an agent session)"
)
ReservedSource = refusal_class(
    "reserved_source",
    "source {source!r} is reserved for deskd itself (sources you may enqueue: "
    "{allowed!c}; add more to inbox_sources in deskd.toml)",
)
UnknownSource = refusal_class(
    "unknown_source",
    "unknown source {source!r} (sources: {allowed!c}; add it to inbox_sources in deskd.toml)",
)


class UnknownItem(DeskdError):
    code = "unknown_item"

    def __init__(self, ids: Iterable[int], role: str) -> None:
        listed = ", ".join(str(i) for i in ids)
        super().__init__(
            f"no item {listed} addressed to {role!r} (see `deskd inbox list --for {role}`)"
        )


class DeskFileError(DeskdError):
    code = "invalid_desk"

    def __init__(self, path: str, key: str, reason: str) -> None:
        where = f"{path}: {key}: " if key else f"{path}: "
        super().__init__(f"{where}{reason}")
        self.path = path
        self.key = key
        self.reason = reason


class SettingsError(DeskdError):
    code = "invalid_setting"
    says = "{variable}: {reason}"
    variable: str


ConfigConflict = refusal_class(
    "config_conflict", "{what} is defined twice: in {first} and in {second}; keep one"
)
AlreadyExists = refusal_class("already_exists")
# The console cannot start or serve as configured (its keys file, its code).
ConsoleRefused = refusal_class("console_refused")


class Unavailable(DeskdError):
    """The database or another resource could not be used: exit 3."""

    code = "unavailable"
    exit_code = 3


def database_unavailable(path: object, exc: StoreError) -> Unavailable:
    """A database error as deskd's exit 3: the database, its words and what to do, which
    the error's class says (server down, lock timeout, read-only, disk full, damage)."""
    reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return Unavailable(f"database {path}: {reason} ({exc.advice})")


class StoreError(Unavailable):
    """The database failed a statement or a connect, on either backend: exit 3. The store's
    connections raise this family in place of sqlite3's or psycopg's own errors (kept as the
    cause), sorted by the driver's error code (``store.outages``), so callers handle one set and
    the command's answer says what to do about that cause (``database_unavailable``)."""

    advice = "run `deskd doctor`"


class StoreBusy(StoreError):
    """Another writer held the write lock past the busy timeout."""

    advice = (
        "another process held the write lock past the timeout: run the command again; "
        "`deskd doctor` says who holds it"
    )


class StoreIntegrityError(StoreError):
    """A constraint refused the write (a duplicate key, a missing parent row)."""


class StoreCorrupt(StoreError):
    """The database itself is damaged (SQLite: malformed, not a database; PostgreSQL: a
    damaged page or index). Only damage is told to restore from a backup."""

    advice = "the database is damaged: run `deskd doctor`, then restore it from a backup"


class StoreFull(StoreError):
    advice = "the disk is full: free space on it and run `deskd doctor`; nothing is damaged"


class StoreReadOnly(StoreError):
    advice = (
        "the database is read-only: check the file's and its folder's permissions, or that the "
        "server is no read-only replica (`deskd doctor`); nothing is damaged"
    )


class StoreServerDown(StoreError):
    """The PostgreSQL server went away, shut down or cannot be reached."""

    advice = (
        "the PostgreSQL server stopped or cannot be reached: check that it runs "
        "(`deskd doctor`); nothing is damaged"
    )


class StoreUnreachable(StoreServerDown):
    """A connect the server refused or that could not reach it; ``advice`` says what to
    check (the user, the database's name, the host)."""

    def __init__(self, message: str, advice: str) -> None:
        super().__init__(message)
        self.advice = advice


LeaseLost = refusal_class(
    "lease_lost",
    "the database's {name} lock is no longer this process's (it lapsed, and a tick "
    "took it as gone): nothing more is written by it",
    base=Unavailable,
)
DatabaseDamaged = refusal_class(
    "database_damaged",
    "database {path} is damaged ({reason}); deskd writes nothing more into it: run "
    "`deskd doctor` (restore it from a backup if it is damaged; doctor clears this "
    "once the file passes its integrity check)",
    base=Unavailable,
)
NotADatabaseFile = refusal_class(
    "not_a_database",
    "database {path} is {kind}, not a regular file: deskd refuses it and leaves it "
    "as it is (point DESKD_DB at a file, or unset it; run `deskd doctor`)",
    base=Unavailable,
)
# The desk had a database and it is gone or empty: never recreated behind anyone's back.
DatabaseGone = refusal_class(
    "database_lost",
    "database {path} is missing or empty, but this desk had one (recorded in "
    "run/databases): its items and attempts are gone. Restore it from a backup, or "
    "start over with an empty one: `deskd init --new-db`",
    base=Unavailable,
)
NoLiveSession = refusal_class(
    "no_live_session",
    "role {role!r} has no live session to end (presence: {presence}; see `deskd roles`)",
)


class InvalidLaunch(DeskdError):
    """An agent launch that cannot be built (resume without a session id, an unknown kind)."""

    code = "invalid_launch"
    says = "cannot launch the {kind!r} agent: {reason}"
    kind: str


HookNotFound = refusal_class(
    "hook_not_found",
    "deskd-session-hook not found (searched {searched}); reinstall deskd in this "
    "environment (pip install deskd) so its console scripts exist",
)
UnreadableSettings = refusal_class(
    "invalid_settings", "{path}: {reason}; fix or move it, then run this again"
)
UnknownMeeting = refusal_class(
    "unknown_meeting", "no meeting {meeting!r} (see `deskd meeting list --all`)"
)
# A meeting rule refused the action (not checked in, paused, closed, consensus …).
MeetingRefused = refusal_class("meeting_refused")


class DuplicateMessage(DeskdError):
    """The same sender, recipients and (normalized) body were already said in this meeting."""

    code = "duplicate_message"
    says = (
        "duplicate: the same message was already sent in meeting {meeting_id} "
        "as message {original_id} (nothing was sent)"
    )
    original_id: int


PeopleOnly = refusal_class("not_permitted", "{what} are for people, not agents (DESKD_ROLE is set)")
# A command only a person runs, asked for by an agent session; ``instead`` says what the
# agent does.
PeopleCommand = refusal_class("not_permitted", "`{command}` is for people; {instead}")
OperatorOnly = refusal_class(
    "operator_only",
    "prune deletes the desk's history and is for the operator only; this session "
    "acts as {role!r} (DESKD_ROLE)",
)
TooRecent = refusal_class(
    "too_recent",
    "--older-than {text} would delete history younger than a day; the minimum is 1d "
    "(add --force to go lower)",
)
UnknownAttempt = refusal_class(
    "unknown_attempt", "no attempt {attempt_id} (see `{see}`)", see="deskd wake list"
)
AttemptClosed = refusal_class(
    "attempt_closed", "attempt {attempt_id} is already {outcome}; nothing to acknowledge"
)
UnknownQuestion = refusal_class(
    "unknown_question", "no question {question_id} (see `deskd questions`)"
)
QuestionAnswered = refusal_class(
    "already_answered", "question {question_id} is answered already (see `deskd questions`)"
)
# A page's action link that may not act: forged, expired, used, or its page gone.
LinkRefused = refusal_class("not_permitted", "this link cannot act: {why}")


class LaunchRefused(DeskdError):
    """``deskd wake run`` on an attempt that is not a planned, unclaimed launch."""

    code = "launch_refused"

    def __init__(self, attempt_id: int, reason: str | None = None) -> None:
        # No reason: the attempt does not exist at all.
        super().__init__(f"attempt {attempt_id} {reason}" if reason else f"no attempt {attempt_id}")
        self.attempt_id = attempt_id


AgentMissing = refusal_class(
    "agent_missing",
    "agent executable {command!r} not found (PATH searched: {path}); install it or set "
    "[agent] command in deskd.toml (or DESKD_AGENT_CMD)",
)
BadWorkdir = refusal_class("bad_workdir", "workdir {folder} of role {role!r} does not exist")
# A role with ``worktree`` set cannot have (or has no) worktree; nothing was changed.
WorktreeRefused = refusal_class("bad_workdir", "role {role!r}: {why}")
TickBusy = refusal_class(
    "tick_busy",
    "a tick is running ({lock} is held); it runs the rollover too — try again in a moment",
    lock="run/tick.lock",
)
UnknownSilence = refusal_class(
    "unknown_silence", "no silence {silence_id} (see `deskd silence list`)"
)
SilenceOver = refusal_class(
    "silence_over", "silence {silence_id} is not in force (it ended or expired)"
)


class AlreadyPaused(DeskdError):
    code = "already_paused"

    def __init__(self, role: str | None) -> None:
        super().__init__(f"{'role ' + role if role else 'the desk'} is already paused")


UnknownChannel = refusal_class("unknown_channel", "unknown channel {name!r} (channels: {known!c})")
EmptyChannel = refusal_class("empty_channel", "channel {name!r} has no URL to send to")
UnknownHook = refusal_class("unknown_hook", "no hook {hook_id} (see `deskd hook list --all`)")
NotHookOwner = refusal_class(
    "not_owner", "hook {hook_id} belongs to {owner!r}; only its owner cancels it"
)
HookClosed = refusal_class("hook_closed", "hook {hook_id} is already {status}")


class DemoFailed(DeskdError):
    """A step of ``deskd demo`` failed; the demo stops there."""

    def __init__(self, command: str, *, exited: int | None = None, stderr: str = "") -> None:
        if exited is None:
            super().__init__(f"demo stopped: `deskd {command}`: {stderr}")
        else:
            super().__init__(f"demo stopped: `deskd {command}` exited {exited}")
            self.code = "demo_failed"


TargetConflict = refusal_class(
    "invalid_value", "give --for ROLE or --capability NAME, not both (--capability picks the role)"
)
NoTarget = refusal_class(
    "missing_role",
    "give --for ROLE (the role it is for) or --capability NAME (the most available "
    "role with that capability)",
)
WaitTimedOut = refusal_class(
    "timed_out", "{role} did not reach {state} within {timeout} (now: {now})"
)
NotRunning = refusal_class(
    "not_running", "{role} has no running launch (see `deskd wake list --role {role} --open`)"
)
NoTranscript = refusal_class("no_transcript", "{role} has no agent transcripts yet (in {folder})")


# --- tasks ---------------------------------------------------------------------------------------
UnknownTask = refusal_class("unknown_task", "no task {task_id} (see `deskd task list --all`)")
NotTaskParty = refusal_class(
    "not_task_party",
    "{by!r} may not change task {task_id}: only its assignee ({role!r}), "
    "its creator ({created_by!r}) or the operator (at the shell, without --by) may",
)
TaskClosed = refusal_class(
    "task_closed", "task {task_id} is {status}: closed tasks do not change (add a new task)"
)
BadTransition = refusal_class(
    "bad_transition", "task {task_id}: {old} → {new} is not allowed (from {old}: {allowed!c})"
)
BlockedOnWithoutBlocked = refusal_class(
    "blocked_on_without_blocked",
    "--blocked-on names what task {task_id} waits for: use it with --status blocked",
)
BlockedNeedsDependency = refusal_class(
    "blocked_needs_dependency",
    "task {task_id}: blocked requires --blocked-on naming the dependency "
    '(e.g. --blocked-on "task 12" or --blocked-on "beta\'s review")',
)
NothingToChange = refusal_class(
    "nothing_to_change",
    "nothing to change on task {task_id} (give --status, --priority, --due, "
    "--for, --blocked-on or --note)",
)
# Compare-and-set lost: another writer changed the task between read and write.
TaskChanged = refusal_class("conflict", "task {task_id} changed meanwhile; try again")


name_refusals(globals())
