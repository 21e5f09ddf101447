"""The SQL of every migration after ``migrations.V1`` and ``V2``, one constant each, in
``MIGRATIONS``' order; the comment above each says what its tables and columns are for.

Released text never changes (tests/store keeps its digest of each): a new migration is a new
constant appended here and at the end of ``MIGRATIONS``. It runs past 400 lines on purpose: the
schema reads top to bottom in the order it was built, one place for every table.
"""

from __future__ import annotations

# Tables of the tasks issue.
#
# - ``tasks``: work assigned to a role; ``priority`` is the rank of core/values.py; a stall is
#   never stored (derived from the attempt ledger at read time).
# - ``task_notes``: every change of a task (what changed, by whom, an optional note).
# - ``handoffs``: what a session leaves for the next one (``deskd session handoff``).
# - ``tasks_open`` / ``sessions_live``: the snapshot reads only live rows, through these.
# - ``attempts_key``: a key's history (rollover tries, `wake explain ID`) without a scan.
# - ``attempts_session``: the wakes a session served (`deskd session list`).
TASKS = """
CREATE TABLE tasks (
    id $ID,
    role $TEXT NOT NULL REFERENCES roles(name),
    title $TEXT NOT NULL,
    detail $TEXT NOT NULL DEFAULT '',
    status $TEXT NOT NULL DEFAULT 'pending'
        CHECK (status IN ('pending', 'in_progress', 'blocked', 'done', 'cancelled')),
    priority $INT NOT NULL DEFAULT 1 CHECK (priority BETWEEN 0 AND 3),
    blocked_on $TEXT,
    due_at $INT,
    created_by $TEXT NOT NULL,
    created_at $INT NOT NULL,
    updated_at $INT NOT NULL,
    closed_at $INT,
    CHECK (status != 'blocked' OR blocked_on IS NOT NULL)
);
CREATE INDEX tasks_open ON tasks(role, id) WHERE status IN ('pending', 'in_progress', 'blocked');
CREATE INDEX tasks_role ON tasks(role, id);

CREATE TABLE task_notes (
    id $ID,
    task_id $INT NOT NULL REFERENCES tasks(id),
    at $INT NOT NULL,
    by $TEXT NOT NULL,
    change $TEXT NOT NULL DEFAULT '{}',
    note $TEXT NOT NULL DEFAULT ''
);
CREATE INDEX task_notes_task ON task_notes(task_id, id);

CREATE TABLE handoffs (
    id $ID,
    role $TEXT NOT NULL REFERENCES roles(name),
    session_id $INT REFERENCES sessions(id),
    note $TEXT NOT NULL,
    by $TEXT NOT NULL,
    created_at $INT NOT NULL
);
CREATE INDEX handoffs_role ON handoffs(role, id);

CREATE INDEX sessions_live ON sessions(started_at) WHERE state IN ('working', 'resting');
CREATE INDEX attempts_key ON attempts(key, id);
CREATE INDEX attempts_session ON attempts(session_id) WHERE session_id IS NOT NULL;
"""

# Tables of the pager issue.
#
# - ``silences``: a person holds a role's non-urgent pages until ``until_at`` (or ``ended_at``).
# - ``help_requests``: marks the item an agent created with ``deskd page --from R``; the
#   ``help:<item>`` demand lives while that item is unread.
# - ``pages`` gains why and until when it is held, and the ``settled`` row that retracted it.
PAGER = """
CREATE TABLE silences (
    id $ID,
    role $TEXT NOT NULL,
    reason $TEXT NOT NULL,
    started_at $INT NOT NULL,
    until_at $INT NOT NULL,
    ended_at $INT,
    started_by $TEXT,
    ended_by $TEXT
);
CREATE INDEX silences_live ON silences(role, until_at) WHERE ended_at IS NULL;

CREATE TABLE help_requests (
    item_id $INT PRIMARY KEY REFERENCES items(id) ON DELETE CASCADE,
    role $TEXT NOT NULL,
    created_at $INT NOT NULL
);

ALTER TABLE pages ADD COLUMN held_until $INT;
ALTER TABLE pages ADD COLUMN held_why $TEXT;
ALTER TABLE pages ADD COLUMN settled_id $INT;
CREATE INDEX pages_due ON pages(next_try_at) WHERE resolved_at IS NULL;
CREATE INDEX pages_unsettled ON pages(key)
    WHERE resolved_at IS NOT NULL AND settled_id IS NULL AND status IN ('sent', 'partial')
    AND kind IN ('page', 'follow_up');
"""

# Tables of the meetings issue.
#
# A meeting message is also an item per recipient (source ``meeting``, ``ref`` ``meeting:<id>``,
# ``message_id`` ``meeting:<id>:<message>``), so the session hook surfaces it and the ledger
# shows it; ``meeting_messages`` keeps the meeting's own view (kind, reply-to, dedup key).
# Idempotency comes from unique indexes: one open meeting per agenda, one message per
# (sender, recipients, normalized body), one position per attendee, one open proposal.
MEETINGS = """
CREATE TABLE meetings (
    id $ID,
    agenda $TEXT NOT NULL,
    agenda_key $TEXT NOT NULL,
    caller $TEXT NOT NULL REFERENCES roles(name),
    priority $TEXT NOT NULL DEFAULT 'normal' CHECK (priority IN ('normal', 'urgent')),
    state $TEXT NOT NULL
        CHECK (state IN ('waiting', 'active', 'consensus', 'closing', 'paused', 'closed')),
    max_messages $INT NOT NULL,
    spent $INT NOT NULL DEFAULT 0,
    consensus_at $INT NOT NULL,
    idle_s $INT NOT NULL,
    reply_sla_s $INT NOT NULL,
    called_at $INT NOT NULL,
    last_activity_at $INT NOT NULL,
    wake_gen $INT NOT NULL DEFAULT 1,
    escalated_at $INT,
    paused_kind $TEXT CHECK (paused_kind IN ('idle', 'manual', 'budget')),
    pause_reason $TEXT,
    paused_at $INT,
    paused_by $TEXT,
    closed_at $INT,
    resolution $TEXT
);
CREATE UNIQUE INDEX meetings_open_agenda ON meetings(agenda_key) WHERE state != 'closed';
CREATE INDEX meetings_live ON meetings(id) WHERE state != 'closed';
CREATE INDEX meetings_closed_at ON meetings(closed_at) WHERE closed_at IS NOT NULL;

CREATE TABLE meeting_attendees (
    meeting_id $INT NOT NULL REFERENCES meetings(id),
    role $TEXT NOT NULL REFERENCES roles(name),
    status $TEXT NOT NULL CHECK (status IN ('invited', 'present', 'left')),
    invite_gen $INT NOT NULL DEFAULT 1,
    invited_at $INT NOT NULL,
    invite_item_id $INT,
    checked_in_at $INT,
    left_at $INT,
    left_reason $TEXT,
    events_read_id $INT NOT NULL DEFAULT 0,
    PRIMARY KEY (meeting_id, role)
);
CREATE INDEX meeting_attendees_role ON meeting_attendees(role, meeting_id);

CREATE TABLE meeting_messages (
    id $ID,
    meeting_id $INT NOT NULL REFERENCES meetings(id),
    sender $TEXT NOT NULL,
    kind $TEXT NOT NULL
        CHECK (kind IN ('evidence', 'question', 'answer', 'proposal', 'decision', 'position')),
    body $TEXT NOT NULL,
    body_key $TEXT NOT NULL,
    recipients $TEXT NOT NULL,
    reply_to $INT REFERENCES meeting_messages(id),
    resolves $TEXT NOT NULL DEFAULT '[]',
    spent $INT NOT NULL DEFAULT 1,
    sent_at $INT NOT NULL
);
CREATE UNIQUE INDEX meeting_messages_dedup
    ON meeting_messages(meeting_id, sender, recipients, body_key);
CREATE UNIQUE INDEX meeting_messages_position
    ON meeting_messages(meeting_id, sender) WHERE kind = 'position';
CREATE INDEX meeting_messages_meeting ON meeting_messages(meeting_id, id);

CREATE TABLE meeting_obligations (
    id $ID,
    meeting_id $INT NOT NULL REFERENCES meetings(id),
    message_id $INT NOT NULL REFERENCES meeting_messages(id),
    debtor $TEXT NOT NULL,
    creditor $TEXT NOT NULL,
    created_at $INT NOT NULL,
    due_at $INT NOT NULL,
    status $TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'settled', 'waived')),
    closed_at $INT,
    closed_by $INT REFERENCES meeting_messages(id),
    close_reason $TEXT
);
CREATE UNIQUE INDEX meeting_obligations_one ON meeting_obligations(message_id, debtor);
CREATE INDEX meeting_obligations_open
    ON meeting_obligations(meeting_id, debtor) WHERE status = 'open';

CREATE TABLE meeting_proposals (
    id $ID,
    meeting_id $INT NOT NULL REFERENCES meetings(id),
    proposer $TEXT NOT NULL,
    resolution $TEXT NOT NULL,
    generation $INT NOT NULL,
    status $TEXT NOT NULL DEFAULT 'open'
        CHECK (status IN ('open', 'accepted', 'rejected', 'withdrawn')),
    opened_at $INT NOT NULL,
    closed_at $INT,
    rejected_by $TEXT,
    reject_reason $TEXT,
    reject_gen $INT,
    reject_item_id $INT
);
CREATE UNIQUE INDEX meeting_proposals_open ON meeting_proposals(meeting_id) WHERE status = 'open';
CREATE INDEX meeting_proposals_meeting ON meeting_proposals(meeting_id, id);

CREATE TABLE meeting_votes (
    proposal_id $INT NOT NULL REFERENCES meeting_proposals(id),
    role $TEXT NOT NULL,
    vote $TEXT NOT NULL CHECK (vote IN ('confirm', 'reject')),
    reason $TEXT,
    at $INT NOT NULL,
    PRIMARY KEY (proposal_id, role)
);

CREATE TABLE meeting_events (
    id $ID,
    meeting_id $INT NOT NULL REFERENCES meetings(id),
    at $INT NOT NULL,
    kind $TEXT NOT NULL,
    role $TEXT,
    text $TEXT NOT NULL
);
CREATE INDEX meeting_events_meeting ON meeting_events(meeting_id, id);
"""

# Columns of capability routing.
#
# - ``items.capability`` / ``tasks.capability``: the capability the work was asked of
#   (``--capability``), NULL when a role was named.
# - ``items.routed_why`` / ``tasks.routed_why``: why that role was chosen, as written at
#   routing time (the board and ``wake explain`` show it; presence changes afterwards).
ROUTING = """
ALTER TABLE items ADD COLUMN capability $TEXT;
ALTER TABLE items ADD COLUMN routed_why $TEXT;
ALTER TABLE tasks ADD COLUMN capability $TEXT;
ALTER TABLE tasks ADD COLUMN routed_why $TEXT;
"""

# Tables of the supervisor console.
#
# - ``console_nonces``: every nonce a signed supervisor request carried, burned (inserted)
#   before its action runs; the primary key makes a replay fail on insert. Rows older than the
#   assertion window are useless (a replay that old is refused as stale) and are deleted.
CONSOLE = """
CREATE TABLE console_nonces (
    nonce $TEXT PRIMARY KEY,
    key_id $TEXT NOT NULL,
    seen_at $INT NOT NULL
);
CREATE INDEX console_nonces_seen ON console_nonces(seen_at);
"""

# The role's current session as one indexed row.
#
# A role's current session is its live one (``working``/``resting``; ``record_heartbeat``
# keeps at most one) or else its newest row. ``sessions_role_live`` finds the live one by
# role without reading the role's history; the newest row comes from ``sessions_role``.
SESSIONS_CURRENT = """
CREATE INDEX sessions_role_live ON sessions(role, id) WHERE state IN ('working', 'resting');
"""

# Launch bookkeeping from running the real agent CLIs.
#
# - ``launch_runs``: how many times the executor ran the agent CLI for this launch (in-rung
#   retries included); each run counts against ``max_launches_per_day``.
# - ``agent_pgid``: the process group of the agent CLI while it runs, so a healing tick can end
#   an agent whose executor died before it marks the launch ``executor died``.
LAUNCHES = """
ALTER TABLE attempts ADD COLUMN launch_runs $INT NOT NULL DEFAULT 0;
ALTER TABLE attempts ADD COLUMN agent_pgid $INT;
"""

# Tables of desks that span hosts.
#
# - ``hosts``: every host whose tick ran against this database (``DESKD_HOST_NAME``), when it
#   first and last ticked; the board shows a host that stopped ticking.
# - ``attempts.launch_host``: the host whose executor runs the launch (the role's ``host``, or
#   the planning host for a role bound to none); ``attempts.dispatched_at``: when that host's
#   tick started the executor, so a launch is handed out once.
# - ``attempts_handed``: each host's tick finds the launches handed to it without a scan.
HOSTS = """
CREATE TABLE hosts (
    name $TEXT PRIMARY KEY,
    first_tick_at $INT NOT NULL,
    last_tick_at $INT NOT NULL,
    ticks $INT NOT NULL DEFAULT 0
);

ALTER TABLE attempts ADD COLUMN launch_host $TEXT;
ALTER TABLE attempts ADD COLUMN dispatched_at $INT;
CREATE INDEX attempts_handed ON attempts(launch_host)
    WHERE launch_status = 'planned' AND dispatched_at IS NULL;
"""

# Leases: the locks of a desk on PostgreSQL, as rows instead of held connections.
#
# - ``leases``: one row per lock held (``tick``, ``role-alpha``): who holds it (``owner``:
#   host, machine, process id and start time), a ``token`` that changes with every holder
#   (the fencing token each write of the holder checks), and when it lapses unless renewed
#   (``expires_at``, the server's clock in Unix milliseconds). Created on SQLite too, where
#   the locks stay files under ``run/``: one schema for both backends.
LEASES = """
CREATE TABLE leases (
    name $TEXT PRIMARY KEY,
    owner $TEXT NOT NULL,
    token $INT NOT NULL,
    expires_at $INT NOT NULL
);
"""

# The console's login state, kept in the database so a restart forgets none of it.
#
# - ``console_sessions``: every access-code session. A cookie is honoured only while its row
#   is unrevoked, unexpired and of the current code generation, so logging out and a new
#   code end sessions for good, restart or not.
# - ``console_meta``: ``code_generation`` (bumped by ``deskd serve --new-code`` and whenever
#   the configured code changes) and ``code_fingerprint`` (a keyed hash of the code, to notice
#   that change).
# - ``console_throttle``: wrong codes per client and until when its next login must wait.
# - ``events.auth``: how the supervisor was authenticated for an action (``session 3``,
#   ``signed alice``); empty for everyone else.
CONSOLE_GUARD = """
CREATE TABLE console_sessions (
    id $ID,
    sid $TEXT NOT NULL UNIQUE,
    generation $INT NOT NULL,
    created_at $INT NOT NULL,
    expires_at $INT NOT NULL,
    revoked_at $INT
);
CREATE INDEX console_sessions_expiry ON console_sessions(expires_at);

CREATE TABLE console_meta (
    name $TEXT PRIMARY KEY,
    value $TEXT NOT NULL
);

CREATE TABLE console_throttle (
    client $TEXT PRIMARY KEY,
    failures $INT NOT NULL,
    last_failure_at $INT NOT NULL,
    wait_until $INT NOT NULL
);

ALTER TABLE events ADD COLUMN auth $TEXT;
"""

# The missed-tick alarm's ledger.
#
# - ``tick_alarms``: one row per message the console's missed-tick check sends: ``stopped``
#   when a host's executing ticks stop, ``settled`` when they resume. Written before the
#   channels are called and completed after, with one result per channel URL in ``results``
#   (the pager's format). A desk-level message belongs to no role and no wake attempt, which
#   every ``pages`` row needs, hence a table of its own.
# - ``tick_alarms_once``: one ``stopped`` (and one ``settled``) per host per silence, named by
#   the host's last tick before it, so two consoles checking at once page once.
TICK_ALARMS = """
CREATE TABLE tick_alarms (
    id $ID,
    host $TEXT NOT NULL,
    kind $TEXT NOT NULL CHECK (kind IN ('stopped', 'settled')),
    last_tick_at $INT NOT NULL,
    title $TEXT NOT NULL,
    body $TEXT NOT NULL DEFAULT '',
    status $TEXT NOT NULL DEFAULT 'queued'
        CHECK (status IN ('queued', 'held', 'sent', 'partial', 'failed', 'resolved')),
    created_at $INT NOT NULL,
    tries $INT NOT NULL DEFAULT 0,
    next_try_at $INT,
    sent_at $INT,
    held_why $TEXT,
    results $TEXT NOT NULL DEFAULT '[]'
);
CREATE UNIQUE INDEX tick_alarms_once ON tick_alarms(host, kind, last_tick_at);
CREATE INDEX tick_alarms_due ON tick_alarms(next_try_at) WHERE next_try_at IS NOT NULL;
"""

# One open silence per role, enforced by the store.
#
# Racing ``deskd silence add`` calls once left a role with dozens of silences in force. A new
# silence now replaces the role's open one (``store.pauses.close_open``), and the unique
# partial index ``silences_one_open`` makes a second open row per role impossible, on SQLite
# and PostgreSQL alike. Before it is built, every role's open rows but the one that holds
# longest (the one ``silence_hold`` already obeyed) are closed at their own ``until_at``: what
# they held is unchanged.
SILENCES = """
UPDATE silences SET ended_at = until_at, ended_by = 'deskd: one silence per role'
WHERE ended_at IS NULL AND EXISTS (
    SELECT 1 FROM silences AS later
    WHERE later.role = silences.role AND later.ended_at IS NULL
    AND (later.until_at > silences.until_at
         OR (later.until_at = silences.until_at AND later.id > silences.id))
);
CREATE UNIQUE INDEX silences_one_open ON silences(role) WHERE ended_at IS NULL;
"""

# Work held for a person to route.
#
# - ``help_requests.held_work``: for a help request raised because no enabled role had the
#   capability asked of (``--capability``), the work itself as JSON (an item's source, title,
#   body, priority and ref, or a task's title, detail, priority and due date), so the first
#   tick after a role gains the capability routes it there; NULL for an agent's own request.
HELD_WORK = """
ALTER TABLE help_requests ADD COLUMN held_work $TEXT;
"""

# What each launch used, as its agent CLI reported it.
#
# The columns sit on the launch's primary attempt, beside ``cost_usd`` (which was already there):
# one CLI run reports its usage once, and a launch carrying several attempts is one run. NULL
# means the CLI reported nothing for that figure; 0 means it reported zero (issue: budgets must
# not mistake "unknown" for "free").
#
# - ``input_tokens``, ``output_tokens``: the model's own input and output tokens;
# - ``cache_read_tokens``, ``cache_write_tokens``: prompt-cache reads and writes, where the CLI
#   reports them apart from its input;
# - ``model``: the model the CLI says it ran.
USAGE = """
ALTER TABLE attempts ADD COLUMN input_tokens $INT;
ALTER TABLE attempts ADD COLUMN output_tokens $INT;
ALTER TABLE attempts ADD COLUMN cache_read_tokens $INT;
ALTER TABLE attempts ADD COLUMN cache_write_tokens $INT;
ALTER TABLE attempts ADD COLUMN model $TEXT;
CREATE INDEX attempts_usage ON attempts(finished_at) WHERE primary_id IS NULL AND finished_at IS NOT NULL;
"""

# Deliveries that came in: each event a sender posted to
# ``/events/<source>`` and each emailed reply to a page, by the sender's own id.
#
# The primary key (source, delivery id) is what makes a replayed delivery add nothing: the row
# is claimed in the same transaction as the item it makes, so a replay finds it and stops.
DELIVERIES = """
CREATE TABLE deliveries (
    source $TEXT NOT NULL,
    delivery $TEXT NOT NULL,
    received_at $INT NOT NULL,
    PRIMARY KEY (source, delivery)
);
"""

# Postconditions of tasks (``task add --done-when``).
#
# - ``task_checks``: one check per task. ``spec`` is ``probe:MODULE:FUNC`` or a command line;
#   ``state`` is ``idle`` until the assignee says done, ``due`` until a tick has run it (a check
#   that could not run stays ``due`` with ``retry_at``), ``passed`` once it closed the task.
#   ``started_at`` is the ledger mark written before a run; ``failures`` counts failed runs.
TASK_CHECKS = """
CREATE TABLE task_checks (
    task_id $INT PRIMARY KEY REFERENCES tasks(id),
    spec $TEXT NOT NULL,
    timeout_s $INT NOT NULL,
    state $TEXT NOT NULL DEFAULT 'idle' CHECK (state IN ('idle', 'due', 'passed')),
    claimed_at $INT,
    claimed_by $TEXT,
    started_at $INT,
    finished_at $INT,
    failures $INT NOT NULL DEFAULT 0,
    errors $INT NOT NULL DEFAULT 0,
    retry_at $INT,
    outcome $TEXT,
    output $TEXT
);
CREATE INDEX task_checks_due ON task_checks(task_id) WHERE state = 'due';
"""

# Page action links that were used.
#
# A page's message carries signed links (acknowledge, snooze, resolve, pause the role); each
# works once. ``page_links_used`` holds one row per link that acted, keyed by its signature:
# the row is inserted in the same transaction as the action, so a replayed link fails on the
# primary key and changes nothing, and a crash leaves either both or neither.
PAGE_LINKS = """
CREATE TABLE page_links_used (
    signature $TEXT PRIMARY KEY,
    page_id $INT NOT NULL,
    action $TEXT NOT NULL,
    used_at $INT NOT NULL
);
"""

# Questions an agent asks a person and waits on (``deskd ask``).
#
# A question pages through a help request (``item_id``, one question each) and may block the
# role's current task (``task_id``). ``answered_at`` is set once, by compare-and-set: by a
# person's answer, or by the tick when ``expires_at`` passes ("no answer"); ``answer_item_id``
# is the urgent item that carried the answer back to the role.
QUESTIONS = """
CREATE TABLE questions (
    id $ID,
    role $TEXT NOT NULL,
    item_id $INT NOT NULL UNIQUE,
    text $TEXT NOT NULL,
    options $TEXT,
    task_id $INT,
    asked_at $INT NOT NULL,
    expires_at $INT NOT NULL,
    answer $TEXT,
    answered_by $TEXT,
    answered_at $INT,
    answer_item_id $INT
);
CREATE INDEX questions_open ON questions(expires_at) WHERE answered_at IS NULL;
"""
