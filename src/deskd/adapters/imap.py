"""The reply mailbox (``DESKD_REPLY_IMAP_URL``): new mail read without marking it, and
marked seen once deskd has acted on it. Standard library ``imaplib`` only."""

from __future__ import annotations

import imaplib
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import unquote, urlsplit

ERRORS = (OSError, imaplib.IMAP4.error)
"""What reading the mailbox may raise: the network's errors and the server's refusals."""
TIMEOUT_S = 30
MAX_MESSAGES = 50
"""Mail read per tick; the rest waits for the next one (a tick is a list of bounded steps)."""


class Mailbox:
    def __init__(self, imap: imaplib.IMAP4) -> None:
        self.imap = imap

    def unseen(self) -> list[tuple[str, bytes]]:
        """(uid, raw message) of unseen mail, oldest first, left unseen (``BODY.PEEK``)."""
        _, found = self.imap.uid("SEARCH", "UNSEEN")
        uids = (found[0] or b"").decode().split()[:MAX_MESSAGES]
        out = []
        for uid in uids:
            _, data = self.imap.uid("FETCH", uid, "(BODY.PEEK[])")
            raw = next((part[1] for part in data if isinstance(part, tuple)), None)
            if raw is not None:
                out.append((uid, raw))
        return out

    def mark_seen(self, uid: str) -> None:
        self.imap.uid("STORE", uid, "+FLAGS", "(\\Seen)")


@contextmanager
def mailbox(url: str) -> Iterator[Mailbox]:
    """The mailbox ``url`` names, logged in and its folder (default INBOX) selected."""
    parts = urlsplit(url)
    secure = parts.scheme == "imaps"
    port = parts.port or (993 if secure else 143)
    host = parts.hostname or ""
    imap = (imaplib.IMAP4_SSL if secure else imaplib.IMAP4)(host, port, timeout=TIMEOUT_S)
    try:
        try:
            imap.login(unquote(parts.username or ""), unquote(parts.password or ""))
        except imaplib.IMAP4.error as exc:  # its text is the server's bytes: b'[AUTH…] …'
            said = exc.args[0] if exc.args else ""
            text = said.decode(errors="replace") if isinstance(said, bytes) else str(said)
            raise imaplib.IMAP4.error(f"login refused: {text}") from None
        folder = unquote(parts.path.strip("/")) or "INBOX"
        status, said = imap.select(folder)
        if status != "OK":  # imaplib returns a refused SELECT: say the server's reason
            reason = said[0].decode(errors="replace") if said and said[0] else status
            raise imaplib.IMAP4.error(f"cannot select folder {folder!r}: {reason}")
        yield Mailbox(imap)
    finally:
        try:
            imap.logout()
        except (OSError, imaplib.IMAP4.error):
            pass
