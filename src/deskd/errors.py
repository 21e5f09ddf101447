"""One error module: every refusal deskd makes, each building its own message.

The CLI maps ``exit_code`` to the process exit status and ``code`` to the JSON
``error.code`` slug; the console maps them to HTTP statuses.

It is longer than 400 lines on purpose: every refusal lives here, most declared by their
words alone (``says``, see ``DeskdError``), so a reader finds every message and code in one
place and each is mapped to an exit code once. The refusals of tasks are in
``deskd.errors_tasks`` and those of scheduling the tick in ``deskd.schedule.service``, to
keep this module under 600 lines.
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


class NoRoles(DeskdError):
    code = "no_roles"
    says = (
        "this desk has no roles: add a [[roles]] table with a name to deskd.toml "
        "(`deskd init` writes an annotated example)"
    )


class DisabledRole(DeskdError):
    code = "role_disabled"
    says = "role {name!r} is disabled (enabled = false in the desk file)"


class InvalidValue(DeskdError):
    code = "invalid_value"
    says = "invalid {what} {value!r} ({expected})"
    what: str
    value: object


class InitAnswerRefused(DeskdError):
    """An answer to ``deskd init`` (asked, or given as a flag) the new desk cannot take; the
    message names what was wrong and, where there are any, the valid choices."""

    code = "invalid_value"


class OptionsConflict(DeskdError):
    """An option that takes none of some others was given with them."""

    code = "invalid_value"

    def __init__(self, option: str, does: str, others: Sequence[str]) -> None:
        named = ", ".join(others[:-1]) + f" or {others[-1]}" if len(others) > 1 else others[0]
        super().__init__(f"{option} {does}: it takes no {named}")
        self.option = option


class ChannelTestFailed(DeskdError):
    code = "channel_failed"
    says = (
        "the test page on {option} failed ({why}): nothing written; "
        "fix the URL or leave {option} out"
    )


class FileRefused(DeskdError):
    """A file the command was told to use could not be used (the user's to fix)."""

    code = "os_error"


class KeyFileExists(DeskdError):
    says = "{path} exists; choose another --out (keys are never overwritten)"


class RelayNeedsPostgres(DeskdError):
    code = "not_postgresql"
    says = (
        "deskd relay serves PostgreSQL desks only: this desk's database is a SQLite file "
        "(its hook needs no relay)"
    )


class SchemaBehind(DeskdError):
    code = "schema_behind"
    says = (
        "{source} is at schema version {found}, this deskd's is {latest}: run any "
        "deskd command on that desk first (it migrates), then copy"
    )


class TargetNotEmptyRefused(DeskdError):
    """``deskd migrate-db`` into a database that already holds rows (the store's reason)."""

    code = "target_not_empty"


class AckNeedsTarget(DeskdError):
    code = "invalid_value"
    says = (
        "say what to ack: --seen (exactly the items {role} was shown) or --id N "
        "(see `deskd inbox list --for {role}`)"
    )


class KeyUnreadable(DeskdError):
    says = "--key {path}: {why}"


class NotYourRole(DeskdError):
    """An agent (DESKD_ROLE set) tried to act as another role."""

    code = "not_your_role"
    says = (
        "{flag} {asked!r} refused: this session acts as {actual!r} (DESKD_ROLE); "
        "agents may act only as their own role"
    )


class MissingRole(DeskdError):
    code = "missing_role"
    says = "{flag} is required (or set DESKD_ROLE inside an agent session)"


class ReservedSource(DeskdError):
    code = "reserved_source"
    says = (
        "source {source!r} is reserved for deskd itself (sources you may enqueue: "
        "{allowed!c}; add more to inbox_sources in deskd.toml)"
    )


class UnknownSource(DeskdError):
    code = "unknown_source"
    says = "unknown source {source!r} (sources: {allowed!c}; add it to inbox_sources in deskd.toml)"


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


class ConfigConflict(DeskdError):
    code = "config_conflict"
    says = "{what} is defined twice: in {first} and in {second}; keep one"


class AlreadyExists(DeskdError):
    code = "already_exists"


class ConsoleRefused(DeskdError):
    """The console cannot start or serve as configured (its keys file, its code)."""

    code = "console_refused"


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


class LeaseLost(Unavailable):
    """A holder's lock was taken over (it was seen gone): its writes must stop."""

    code = "lease_lost"
    says = (
        "the database's {name} lock is no longer this process's (it lapsed, and a tick "
        "took it as gone): nothing more is written by it"
    )


class DatabaseDamaged(Unavailable):
    """The database reported damage earlier (``run/damaged``): nothing is written into it."""

    code = "database_damaged"
    says = (
        "database {path} is damaged ({reason}); deskd writes nothing more into it: run "
        "`deskd doctor` (restore it from a backup if it is damaged; doctor clears this "
        "once the file passes its integrity check)"
    )


class NotADatabaseFile(Unavailable):
    """``DESKD_DB`` names something that is not a regular file (a device, a folder, a FIFO)."""

    code = "not_a_database"
    says = (
        "database {path} is {kind}, not a regular file: deskd refuses it and leaves it "
        "as it is (point DESKD_DB at a file, or unset it; run `deskd doctor`)"
    )


class DatabaseGone(Unavailable):
    """The desk had a database and it is gone or empty: never recreated behind anyone's back."""

    code = "database_lost"
    says = (
        "database {path} is missing or empty, but this desk had one (recorded in "
        "run/databases): its items and attempts are gone. Restore it from a backup, or "
        "start over with an empty one: `deskd init --new-db`"
    )


class NoLiveSession(DeskdError):
    code = "no_live_session"
    says = "role {role!r} has no live session to end (presence: {presence}; see `deskd roles`)"


class InvalidLaunch(DeskdError):
    """An agent launch that cannot be built (resume without a session id, an unknown kind)."""

    code = "invalid_launch"
    says = "cannot launch the {kind!r} agent: {reason}"
    kind: str


class HookNotFound(DeskdError):
    """``deskd-session-hook`` is not installed next to this Python or on PATH."""

    code = "hook_not_found"
    says = (
        "deskd-session-hook not found (searched {searched}); reinstall deskd in this "
        "environment (pip install deskd) so its console scripts exist"
    )


class UnreadableSettings(DeskdError):
    """A Claude settings file deskd was asked to merge into is not a JSON object."""

    code = "invalid_settings"
    says = "{path}: {reason}; fix or move it, then run this again"


class UnknownMeeting(DeskdError):
    code = "unknown_meeting"
    says = "no meeting {meeting!r} (see `deskd meeting list --all`)"


class MeetingRefused(DeskdError):
    """A meeting rule refused the action (not checked in, paused, closed, consensus …)."""

    code = "meeting_refused"


class DuplicateMessage(DeskdError):
    """The same sender, recipients and (normalized) body were already said in this meeting."""

    code = "duplicate_message"
    says = (
        "duplicate: the same message was already sent in meeting {meeting_id} "
        "as message {original_id} (nothing was sent)"
    )
    original_id: int


class PeopleOnly(DeskdError):
    """An agent session (DESKD_ROLE set) asked for an operator's decision."""

    code = "not_permitted"
    says = "{what} are for people, not agents (DESKD_ROLE is set)"


class PeopleCommand(DeskdError):
    """A command only a person runs, asked for by an agent session; ``instead`` says what the
    agent does."""

    code = "not_permitted"
    says = "`{command}` is for people; {instead}"


class OperatorOnly(DeskdError):
    code = "operator_only"
    says = (
        "prune deletes the desk's history and is for the operator only; this session "
        "acts as {role!r} (DESKD_ROLE)"
    )


class TooRecent(DeskdError):
    code = "too_recent"
    says = (
        "--older-than {text} would delete history younger than a day; the minimum is 1d "
        "(add --force to go lower)"
    )


class UnknownAttempt(DeskdError):
    code = "unknown_attempt"
    says = "no attempt {attempt_id} (see `{see}`)"
    see = "deskd wake list"


class AttemptClosed(DeskdError):
    code = "attempt_closed"
    says = "attempt {attempt_id} is already {outcome}; nothing to acknowledge"


class UnknownQuestion(DeskdError):
    code = "unknown_question"
    says = "no question {question_id} (see `deskd questions`)"


class QuestionAnswered(DeskdError):
    code = "already_answered"
    says = "question {question_id} is answered already (see `deskd questions`)"


class LinkRefused(DeskdError):
    """A page's action link that may not act: forged, expired, used, or its page gone."""

    code = "not_permitted"
    says = "this link cannot act: {why}"


class LaunchRefused(DeskdError):
    """``deskd wake run`` on an attempt that is not a planned, unclaimed launch."""

    code = "launch_refused"

    def __init__(self, attempt_id: int, reason: str | None = None) -> None:
        # No reason: the attempt does not exist at all.
        super().__init__(f"attempt {attempt_id} {reason}" if reason else f"no attempt {attempt_id}")
        self.attempt_id = attempt_id


class AgentMissing(DeskdError):
    code = "agent_missing"
    says = (
        "agent executable {command!r} not found (PATH searched: {path}); install it or set "
        "[agent] command in deskd.toml (or DESKD_AGENT_CMD)"
    )


class BadWorkdir(DeskdError):
    code = "bad_workdir"
    says = "workdir {folder} of role {role!r} does not exist"


class WorktreeRefused(DeskdError):
    """A role with ``worktree`` set cannot have (or has no) worktree; nothing was changed."""

    code = "bad_workdir"
    says = "role {role!r}: {why}"


class TickBusy(DeskdError):
    code = "tick_busy"
    says = "a tick is running ({lock} is held); it runs the rollover too — try again in a moment"
    lock = "run/tick.lock"


class UnknownSilence(DeskdError):
    code = "unknown_silence"
    says = "no silence {silence_id} (see `deskd silence list`)"


class SilenceOver(DeskdError):
    code = "silence_over"
    says = "silence {silence_id} is not in force (it ended or expired)"


class AlreadyPaused(DeskdError):
    code = "already_paused"

    def __init__(self, role: str | None) -> None:
        super().__init__(f"{'role ' + role if role else 'the desk'} is already paused")


class UnknownChannel(DeskdError):
    code = "unknown_channel"
    says = "unknown channel {name!r} (channels: {known!c})"


class EmptyChannel(DeskdError):
    code = "empty_channel"
    says = "channel {name!r} has no URL to send to"


class UnknownHook(DeskdError):
    code = "unknown_hook"
    says = "no hook {hook_id} (see `deskd hook list --all`)"


class NotHookOwner(DeskdError):
    code = "not_owner"
    says = "hook {hook_id} belongs to {owner!r}; only its owner cancels it"


class HookClosed(DeskdError):
    code = "hook_closed"
    says = "hook {hook_id} is already {status}"


class DemoFailed(DeskdError):
    """A step of ``deskd demo`` failed; the demo stops there."""

    def __init__(self, command: str, *, exited: int | None = None, stderr: str = "") -> None:
        if exited is None:
            super().__init__(f"demo stopped: `deskd {command}`: {stderr}")
        else:
            super().__init__(f"demo stopped: `deskd {command}` exited {exited}")
            self.code = "demo_failed"


class TargetConflict(DeskdError):
    code = "invalid_value"
    says = "give --for ROLE or --capability NAME, not both (--capability picks the role)"


class NoTarget(DeskdError):
    code = "missing_role"
    says = (
        "give --for ROLE (the role it is for) or --capability NAME (the most available "
        "role with that capability)"
    )


class WaitTimedOut(DeskdError):
    """``deskd wait`` ran out of time before the role reached the state."""

    code = "timed_out"
    says = "{role} did not reach {state} within {timeout} (now: {now})"


class NotRunning(DeskdError):
    code = "not_running"
    says = "{role} has no running launch (see `deskd wake list --role {role} --open`)"


class NoTranscript(DeskdError):
    code = "no_transcript"
    says = "{role} has no agent transcripts yet (in {folder})"
