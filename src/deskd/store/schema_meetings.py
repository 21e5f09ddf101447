"""Tables of the meetings issue, applied as one migration (see store/migrations.py).

A meeting message is also an item per recipient (source ``meeting``, ``ref`` ``meeting:<id>``,
``message_id`` ``meeting:<id>:<message>``), so the session hook surfaces it and the ledger
shows it; ``meeting_messages`` keeps the meeting's own view (kind, reply-to, dedup key).
Idempotency comes from unique indexes: one open meeting per agenda, one message per
(sender, recipients, normalized body), one position per attendee, one open proposal.
"""

from __future__ import annotations

SQL = """
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
