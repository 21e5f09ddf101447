"""A real IMAP server for the reply tests: Debian's dovecot, started in a temporary folder
on a free loopback port with one mailbox user, and an SMTP server (aiosmtpd) that delivers
what it receives into that mailbox, as a mail host would."""

from __future__ import annotations

import getpass
import imaplib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from server_tiers import find_binary, stop, wait_for

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "web"))
from web_helpers import free_port

USER, PASSWORD = "deskd", "imap-pass-0123"


@dataclass
class Imap:
    port: int

    @property
    def url(self) -> str:
        return f"imap://{USER}:{PASSWORD}@127.0.0.1:{self.port}/INBOX"

    def client(self) -> imaplib.IMAP4:
        imap = imaplib.IMAP4("127.0.0.1", self.port, timeout=60)
        imap.login(USER, PASSWORD)
        imap.select("INBOX")
        return imap

    def unseen(self) -> int:
        imap = self.client()
        try:
            return len((imap.uid("SEARCH", "UNSEEN")[1][0] or b"").split())
        finally:
            imap.logout()

    def mark_all_unseen(self) -> None:
        imap = self.client()
        try:
            imap.store("1:*", "-FLAGS", "(\\Seen)")
        finally:
            imap.logout()


@contextmanager
def imap_server() -> Iterator[Imap]:
    """dovecot on a free loopback port; stopped and its folder removed on the way out."""
    binary = find_binary("imap", "DESKD_DOVECOT", ("dovecot",), "dovecot-imapd")
    # Not under pytest's 0700 temp folder: dovecot's mail process runs as another user.
    root = Path(tempfile.mkdtemp(prefix="deskd-dovecot-"))
    root.chmod(0o755)
    (root / "mail").mkdir(mode=0o777)
    (root / "mail").chmod(0o777)
    (root / "passwd").write_text(f"{USER}:{{PLAIN}}{PASSWORD}\n", encoding="utf-8")
    port = free_port()
    if os.geteuid() == 0:
        users = "default_login_user = dovenull\ndefault_internal_user = dovecot\n"
        uid = gid = 65534  # nobody: dovecot reads no mail as root
    else:
        me = getpass.getuser()
        users = f"default_login_user = {me}\ndefault_internal_user = {me}\n"
        uid, gid = os.getuid(), os.getgid()
    (root / "dovecot.conf").write_text(
        f"base_dir = {root}/run\nstate_dir = {root}/state\nlog_path = {root}/dovecot.log\n"
        "protocols = imap\nlisten = 127.0.0.1\nssl = no\ndisable_plaintext_auth = no\n"
        f"auth_mechanisms = plain login\nfirst_valid_uid = 0\n{users}"
        "passdb {\n  driver = passwd-file\n"
        f"  args = scheme=PLAIN username_format=%u {root}/passwd\n}}\n"
        f"userdb {{\n  driver = static\n  args = uid={uid} gid={gid} home={root}/mail/%u\n}}\n"
        "mail_location = maildir:~/Maildir\n"
        "service imap-login {\n  chroot =\n  inet_listener imap {\n"
        f"    address = 127.0.0.1\n    port = {port}\n  }}\n"
        "  inet_listener imaps {\n    port = 0\n  }\n}\n"
        "service anvil {\n  chroot =\n}\n",
        encoding="utf-8",
    )
    proc = subprocess.Popen(
        [binary, "-F", "-c", str(root / "dovecot.conf")],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.STDOUT,
    )
    try:

        def listening() -> bool:
            if proc.poll() is not None:
                log = root / "dovecot.log"
                raise AssertionError("dovecot exited: " + (log.read_text() if log.exists() else ""))
            with socket.socket() as s:
                return s.connect_ex(("127.0.0.1", port)) == 0

        wait_for("dovecot to listen", listening)
        yield Imap(port)
    finally:
        stop(proc)
        shutil.rmtree(root, ignore_errors=True)


@contextmanager
def smtp_into(imap: Imap) -> Iterator[int]:
    """An SMTP server on a free loopback port that appends each message to ``imap``'s
    INBOX; yields its port."""
    from aiosmtpd.controller import Controller

    class Deliver:
        async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
            client = imap.client()
            try:
                client.append("INBOX", None, None, envelope.original_content)
            finally:
                client.logout()
            return "250 OK"

    port = free_port()
    controller = Controller(Deliver(), hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield port
    finally:
        controller.stop()
