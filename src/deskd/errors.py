"""One error module: every refusal deskd makes, each building its own message.

The CLI maps ``exit_code`` to the process exit status and ``code`` to the JSON
``error.code`` slug; the console (later) maps them to HTTP statuses.

It is longer than 400 lines on purpose: every refusal lives here, one short class each, so a
reader finds every message and code in one place and each is mapped to an exit code once.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence


class DeskdError(Exception):
    """A refusal: the command changed nothing. Exit 1 unless a subclass says otherwise."""

    code = "refused"
    exit_code = 1

    def __init__(self, message: str, *, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code


def _choices(known: Iterable[str]) -> str:
    names = sorted(known)
    return ", ".join(names) if names else "none"


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
            super().__init__(f"unknown role {name!r} (roles: {_choices(known)})")
        self.name = name


class NoRoles(DeskdError):
    code = "no_roles"

    def __init__(self) -> None:
        super().__init__(
            "this desk has no roles: add a [[roles]] table with a name to deskd.toml "
            "(`deskd init` writes an annotated example)"
        )


class DisabledRole(DeskdError):
    code = "role_disabled"

    def __init__(self, name: str) -> None:
        super().__init__(f"role {name!r} is disabled (enabled = false in the desk file)")


class InvalidValue(DeskdError):
    code = "invalid_value"

    def __init__(self, what: str, value: object, expected: str) -> None:
        super().__init__(f"invalid {what} {value!r} ({expected})")
        self.what = what
        self.value = value


class InitAnswerRefused(DeskdError):
    """An answer to ``deskd init`` (asked, or given as a flag) the new desk cannot take; the
    message names what was wrong and, where there are any, the valid choices."""

    code = "invalid_value"

    def __init__(self, why: str) -> None:
        super().__init__(why)


class OptionsConflict(DeskdError):
    """An option that takes none of some others was given with them."""

    code = "invalid_value"

    def __init__(self, option: str, does: str, others: Sequence[str]) -> None:
        named = ", ".join(others[:-1]) + f" or {others[-1]}" if len(others) > 1 else others[0]
        super().__init__(f"{option} {does}: it takes no {named}")
        self.option = option


class ChannelTestFailed(DeskdError):
    """A channel's test page did not go out, so nothing was written."""

    code = "channel_failed"

    def __init__(self, option: str, why: str) -> None:
        super().__init__(
            f"the test page on {option} failed ({why}): nothing written; "
            f"fix the URL or leave {option} out"
        )


class FileRefused(DeskdError):
    """A file the command was told to use could not be used (the user's to fix)."""

    code = "os_error"

    def __init__(self, said: str) -> None:
        super().__init__(said)


class KeyFileExists(DeskdError):
    def __init__(self, path: object) -> None:
        super().__init__(f"{path} exists; choose another --out (keys are never overwritten)")
        self.path = path


class RelayNeedsPostgres(DeskdError):
    code = "not_postgresql"

    def __init__(self) -> None:
        super().__init__(
            "deskd relay serves PostgreSQL desks only: this desk's database is a SQLite file "
            "(its hook needs no relay)"
        )


class SchemaBehind(DeskdError):
    code = "schema_behind"

    def __init__(self, source: str, found: int, latest: int) -> None:
        super().__init__(
            f"{source} is at schema version {found}, this deskd's is {latest}: run any "
            "deskd command on that desk first (it migrates), then copy"
        )


class TargetNotEmptyRefused(DeskdError):
    """``deskd migrate-db`` into a database that already holds rows (the store's reason)."""

    code = "target_not_empty"


class AckNeedsTarget(DeskdError):
    code = "invalid_value"

    def __init__(self, role: str) -> None:
        super().__init__(
            f"say what to ack: --seen (exactly the items {role} was shown) or --id N "
            f"(see `deskd inbox list --for {role}`)"
        )


class KeyUnreadable(DeskdError):
    def __init__(self, path: object, why: object) -> None:
        super().__init__(f"--key {path}: {why}")
        self.path = path


class NotYourRole(DeskdError):
    """An agent (DESKD_ROLE set) tried to act as another role."""

    code = "not_your_role"

    def __init__(self, flag: str, asked: str, actual: str) -> None:
        super().__init__(
            f"{flag} {asked!r} refused: this session acts as {actual!r} (DESKD_ROLE); "
            "agents may act only as their own role"
        )


class MissingRole(DeskdError):
    code = "missing_role"

    def __init__(self, flag: str) -> None:
        super().__init__(f"{flag} is required (or set DESKD_ROLE inside an agent session)")


class ReservedSource(DeskdError):
    code = "reserved_source"

    def __init__(self, source: str, allowed: Iterable[str]) -> None:
        super().__init__(
            f"source {source!r} is reserved for deskd itself "
            f"(sources you may enqueue: {_choices(allowed)}; add more to "
            "inbox_sources in deskd.toml)"
        )


class UnknownSource(DeskdError):
    code = "unknown_source"

    def __init__(self, source: str, allowed: Iterable[str]) -> None:
        super().__init__(
            f"unknown source {source!r} (sources: {_choices(allowed)}; add it to "
            "inbox_sources in deskd.toml)"
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

    def __init__(self, variable: str, reason: str) -> None:
        super().__init__(f"{variable}: {reason}")
        self.variable = variable


class ConfigConflict(DeskdError):
    code = "config_conflict"

    def __init__(self, what: str, first: str, second: str) -> None:
        super().__init__(f"{what} is defined twice: in {first} and in {second}; keep one")


class AlreadyExists(DeskdError):
    code = "already_exists"


class ConsoleRefused(DeskdError):
    """The console cannot start or serve as configured (its keys file, its code)."""

    code = "console_refused"

    def __init__(self, message: str) -> None:
        super().__init__(message)


class Unavailable(DeskdError):
    """The database or another resource could not be used: exit 3."""

    code = "unavailable"
    exit_code = 3


DOCTOR_ADVICE = "run `deskd doctor`; restore it from a backup if it is damaged"


def database_unavailable(path: object, exc: BaseException) -> Unavailable:
    """A database error as deskd's exit 3: the file, SQLite's words and what to do."""
    reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    advice = getattr(exc, "advice", None) or DOCTOR_ADVICE  # a refused connect: no restore
    return Unavailable(f"database {path}: {reason} ({advice})")


class StoreError(Unavailable):
    """The database failed a statement or a connect, on either backend: exit 3. The store's
    connections raise this family in place of sqlite3's or psycopg's own errors (kept as the
    cause), so callers handle one set; the command's answer names the database and
    ``deskd doctor`` (``database_unavailable``)."""

    advice: str | None = None


class StoreBusy(StoreError):
    """Another writer held the write lock past the busy timeout."""


class StoreIntegrityError(StoreError):
    """A constraint refused the write (a duplicate key, a missing parent row)."""


class StoreCorrupt(StoreError):
    """The database file itself is damaged (SQLite: malformed, not a database)."""


class StoreUnreachable(StoreError):
    """The server refused the connection or could not be reached; ``advice`` says what to
    check (the data is not damaged, so no restore advice)."""

    def __init__(self, message: str, advice: str) -> None:
        super().__init__(message)
        self.advice = advice


class LeaseLost(Unavailable):
    """A holder's lock was taken over (it was seen gone): its writes must stop."""

    code = "lease_lost"

    def __init__(self, name: str) -> None:
        super().__init__(
            f"the database's {name} lock is no longer this process's (it lapsed, and a tick "
            "took it as gone): nothing more is written by it"
        )
        self.name = name


class DatabaseDamaged(Unavailable):
    """The database reported damage earlier (``run/damaged``): nothing is written into it."""

    code = "database_damaged"

    def __init__(self, path: object, reason: str) -> None:
        super().__init__(
            f"database {path} is damaged ({reason}); deskd writes nothing more into it: run "
            "`deskd doctor` (restore it from a backup if it is damaged; doctor clears this "
            "once the file passes its integrity check)"
        )
        self.path = path


class NotADatabaseFile(Unavailable):
    """``DESKD_DB`` names something that is not a regular file (a device, a folder, a FIFO)."""

    code = "not_a_database"

    def __init__(self, path: object, kind: str) -> None:
        super().__init__(
            f"database {path} is {kind}, not a regular file: deskd refuses it and leaves it "
            "as it is (point DESKD_DB at a file, or unset it; run `deskd doctor`)"
        )
        self.path = path


class DatabaseGone(Unavailable):
    """The desk had a database and it is gone or empty: never recreated behind anyone's back."""

    code = "database_lost"

    def __init__(self, path: object) -> None:
        super().__init__(
            f"database {path} is missing or empty, but this desk had one (recorded in "
            "run/databases): its items and attempts are gone. Restore it from a backup, or "
            "start over with an empty one: `deskd init --new-db`"
        )
        self.path = path


class NoLiveSession(DeskdError):
    """``deskd status end`` for a role whose current session is not working or resting."""

    code = "no_live_session"

    def __init__(self, role: str, presence: str) -> None:
        super().__init__(
            f"role {role!r} has no live session to end (presence: {presence}; see `deskd roles`)"
        )
        self.role = role


class InvalidLaunch(DeskdError):
    """An agent launch that cannot be built (resume without a session id, an unknown kind)."""

    code = "invalid_launch"

    def __init__(self, kind: str, reason: str) -> None:
        super().__init__(f"cannot launch the {kind!r} agent: {reason}")
        self.kind = kind


class HookNotFound(DeskdError):
    """``deskd-session-hook`` is not installed next to this Python or on PATH."""

    code = "hook_not_found"

    def __init__(self, searched: str) -> None:
        super().__init__(
            f"deskd-session-hook not found (searched {searched}); reinstall deskd in this "
            "environment (pip install deskd) so its console scripts exist"
        )


class UnreadableSettings(DeskdError):
    """A Claude settings file deskd was asked to merge into is not a JSON object."""

    code = "invalid_settings"

    def __init__(self, path: object, reason: str) -> None:
        super().__init__(f"{path}: {reason}; fix or move it, then run this again")
        self.path = path


class UnknownMeeting(DeskdError):
    code = "unknown_meeting"

    def __init__(self, meeting: object) -> None:
        super().__init__(f"no meeting {meeting!r} (see `deskd meeting list --all`)")
        self.meeting = meeting


class MeetingRefused(DeskdError):
    """A meeting rule refused the action (not checked in, paused, closed, consensus …)."""

    code = "meeting_refused"


class DuplicateMessage(DeskdError):
    """The same sender, recipients and (normalized) body were already said in this meeting."""

    code = "duplicate_message"

    def __init__(self, meeting_id: int, original_id: int) -> None:
        super().__init__(
            f"duplicate: the same message was already sent in meeting {meeting_id} "
            f"as message {original_id} (nothing was sent)"
        )
        self.original_id = original_id


class TaskRefused(DeskdError):
    """A task change the rules do not allow (a transition, a missing dependency, a party)."""

    code = "task_refused"


class UnknownTask(DeskdError):
    code = "unknown_task"

    def __init__(self, task_id: int) -> None:
        super().__init__(f"no task {task_id} (see `deskd task list --all`)")
        self.task_id = task_id


class NotTaskParty(TaskRefused):
    code = "not_task_party"

    def __init__(self, by: str, task_id: int, *, role: str, created_by: str) -> None:
        super().__init__(
            f"{by!r} may not change task {task_id}: only its assignee ({role!r}), "
            f"its creator ({created_by!r}) or the operator (at the shell, without --by) may"
        )


class TaskClosed(TaskRefused):
    code = "task_closed"

    def __init__(self, task_id: int, status: str) -> None:
        super().__init__(f"task {task_id} is {status}: closed tasks do not change (add a new task)")


class BadTransition(TaskRefused):
    code = "bad_transition"

    def __init__(self, task_id: int, old: str, new: str, allowed: Iterable[str]) -> None:
        super().__init__(
            f"task {task_id}: {old} → {new} is not allowed (from {old}: {_choices(allowed)})"
        )


class BlockedOnWithoutBlocked(TaskRefused):
    code = "blocked_on_without_blocked"

    def __init__(self, task_id: int) -> None:
        super().__init__(
            f"--blocked-on names what task {task_id} waits for: use it with --status blocked"
        )


class BlockedNeedsDependency(TaskRefused):
    code = "blocked_needs_dependency"

    def __init__(self, task_id: int) -> None:
        super().__init__(
            f"task {task_id}: blocked requires --blocked-on naming the dependency "
            '(e.g. --blocked-on "task 12" or --blocked-on "beta\'s review")'
        )


class NothingToChange(DeskdError):
    code = "nothing_to_change"

    def __init__(self, task_id: int) -> None:
        super().__init__(
            f"nothing to change on task {task_id} (give --status, --priority, --due, "
            "--for, --blocked-on or --note)"
        )


class TaskChanged(DeskdError):
    """Compare-and-set lost: another writer changed the task between read and write."""

    code = "conflict"

    def __init__(self, task_id: int) -> None:
        super().__init__(f"task {task_id} changed meanwhile; try again")


class PeopleOnly(DeskdError):
    """An agent session (DESKD_ROLE set) asked for an operator's decision."""

    code = "not_permitted"

    def __init__(self, what: str) -> None:
        super().__init__(f"{what} are for people, not agents (DESKD_ROLE is set)")


class PeopleCommand(DeskdError):
    """A command only a person runs, asked for by an agent session; ``instead`` says what the
    agent does."""

    code = "not_permitted"

    def __init__(self, command: str, instead: str) -> None:
        super().__init__(f"`{command}` is for people; {instead}")


class OperatorOnly(DeskdError):
    code = "operator_only"

    def __init__(self, role: str) -> None:
        super().__init__(
            f"prune deletes the desk's history and is for the operator only; this session "
            f"acts as {role!r} (DESKD_ROLE)"
        )


class TooRecent(DeskdError):
    code = "too_recent"

    def __init__(self, text: str) -> None:
        super().__init__(
            f"--older-than {text} would delete history younger than a day; the minimum is 1d "
            "(add --force to go lower)"
        )


class UnknownAttempt(DeskdError):
    code = "unknown_attempt"

    def __init__(self, attempt_id: int, *, see: str = "deskd wake list") -> None:
        super().__init__(f"no attempt {attempt_id} (see `{see}`)")
        self.attempt_id = attempt_id


class AttemptClosed(DeskdError):
    code = "attempt_closed"

    def __init__(self, attempt_id: int, outcome: str) -> None:
        super().__init__(f"attempt {attempt_id} is already {outcome}; nothing to acknowledge")


class LaunchRefused(DeskdError):
    """``deskd wake run`` on an attempt that is not a planned, unclaimed launch."""

    code = "launch_refused"

    def __init__(self, attempt_id: int, reason: str | None = None) -> None:
        # No reason: the attempt does not exist at all.
        super().__init__(f"attempt {attempt_id} {reason}" if reason else f"no attempt {attempt_id}")
        self.attempt_id = attempt_id


class AgentMissing(DeskdError):
    code = "agent_missing"

    def __init__(self, command: str, path: str) -> None:
        super().__init__(
            f"agent executable {command!r} not found (PATH searched: {path}); install it or set "
            "[agent] command in deskd.toml (or DESKD_AGENT_CMD)"
        )


class BadWorkdir(DeskdError):
    code = "bad_workdir"

    def __init__(self, folder: object, role: str) -> None:
        super().__init__(f"workdir {folder} of role {role!r} does not exist")


class TickBusy(DeskdError):
    code = "tick_busy"

    def __init__(self, lock: str = "run/tick.lock") -> None:
        super().__init__(
            f"a tick is running ({lock} is held); it runs the rollover too — try again in a moment"
        )


class UnknownSilence(DeskdError):
    code = "unknown_silence"

    def __init__(self, silence_id: int) -> None:
        super().__init__(f"no silence {silence_id} (see `deskd silence list`)")


class SilenceOver(DeskdError):
    code = "silence_over"

    def __init__(self, silence_id: int) -> None:
        super().__init__(f"silence {silence_id} is not in force (it ended or expired)")


class AlreadyPaused(DeskdError):
    code = "already_paused"

    def __init__(self, role: str | None) -> None:
        super().__init__(f"{'role ' + role if role else 'the desk'} is already paused")


class UnknownChannel(DeskdError):
    code = "unknown_channel"

    def __init__(self, name: str, known: Iterable[str]) -> None:
        super().__init__(f"unknown channel {name!r} (channels: {_choices(known)})")


class EmptyChannel(DeskdError):
    code = "empty_channel"

    def __init__(self, name: str) -> None:
        super().__init__(f"channel {name!r} has no URL to send to")


class UnknownHook(DeskdError):
    code = "unknown_hook"

    def __init__(self, hook_id: int) -> None:
        super().__init__(f"no hook {hook_id} (see `deskd hook list --all`)")


class NotHookOwner(DeskdError):
    code = "not_owner"

    def __init__(self, hook_id: int, owner: str) -> None:
        super().__init__(f"hook {hook_id} belongs to {owner!r}; only its owner cancels it")


class HookClosed(DeskdError):
    code = "hook_closed"

    def __init__(self, hook_id: int, status: str) -> None:
        super().__init__(f"hook {hook_id} is already {status}")


class NoExecutable(DeskdError):
    code = "no_executable"

    def __init__(self, searched: str) -> None:
        super().__init__(
            f"cannot find the deskd executable of this environment (searched {searched}); "
            "reinstall deskd with pip into this interpreter"
        )


class NoDesk(DeskdError):
    """A schedule asked for a folder without a desk file: it would tick an empty database."""

    code = "no_desk"

    def __init__(self, desk_file: object, home: object, origin: str) -> None:
        super().__init__(
            f"no desk file at {desk_file} (desk folder {home}, from {origin}): "
            "run `deskd init` there first, or set DESKD_HOME to the desk folder"
        )


class UnitPermissionDenied(DeskdError):
    code = "permission_denied"

    def __init__(self, path: object, sudo_hint: str) -> None:
        super().__init__(
            f"cannot write {path}: permission denied (use --user for a timer of "
            f"your own, or run it as root: {sudo_hint})"
        )


class UnitNotWritten(DeskdError):
    """A schedule unit file could not be written. Exit 1 like any refusal (not 3): the
    database is fine, the operator picked a folder deskd cannot write."""

    code = "unavailable"

    def __init__(self, path: object, reason: str | None) -> None:
        super().__init__(f"cannot write {path}: {reason}")


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

    def __init__(self) -> None:
        super().__init__(
            "give --for ROLE or --capability NAME, not both (--capability picks the role)"
        )


class NoTarget(DeskdError):
    code = "missing_role"

    def __init__(self) -> None:
        super().__init__(
            "give --for ROLE (the role it is for) or --capability NAME (the most available "
            "role with that capability)"
        )


class WaitTimedOut(DeskdError):
    """``deskd wait`` ran out of time before the role reached the state."""

    code = "timed_out"

    def __init__(self, role: str, state: str, timeout: str, now: str) -> None:
        super().__init__(f"{role} did not reach {state} within {timeout} (now: {now})")


class NotRunning(DeskdError):
    code = "not_running"

    def __init__(self, role: str) -> None:
        super().__init__(
            f"{role} has no running launch (see `deskd wake list --role {role} --open`)"
        )


class NoTranscript(DeskdError):
    code = "no_transcript"

    def __init__(self, role: str, folder: object) -> None:
        super().__init__(f"{role} has no agent transcripts yet (in {folder})")
