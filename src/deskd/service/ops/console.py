"""The supervisor console's access settings: the access code (kept only as a hash), the
session secret, the signed-mode key file, and the start-up and doctor checks.

Stdlib only, so ``deskd doctor`` checks the console without importing FastAPI.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import ipaddress
import json
import os
import secrets
import stat
from pathlib import Path

from deskd.adapters.private import open_private, private_key_file
from deskd.config.settings import Settings
from deskd.errors import ConsoleRefused, DeskdError
from deskd.service.desk.context import DeskContext
from deskd.service.ops.doctor_db import Check
from deskd.store import console as console_rows

CODE_MODES = frozenset({"simple", "hybrid"})
"""The ``DESKD_SUPERVISOR_AUTH_MODE`` values under which the console takes the access code."""
KEY_MODES = frozenset({"signed", "hybrid"})
"""The ``DESKD_SUPERVISOR_AUTH_MODE`` values under which it takes signed requests."""
ACCESS_FILE = "supervisor-access.json"
SECRET_FILE = "console-session.key"
KEY_BYTES = 32  # a raw Ed25519 public key
# Off loopback anyone on the network can guess; a generated code has 20 characters.
MIN_CODE_OFF_LOOPBACK = 16
MIN_DISTINCT_OFF_LOOPBACK = 8
# scrypt parameters: about 16 MiB and a few tens of milliseconds per check, which is
# what makes a leaked hash file slow to guess against while a login stays instant.
SCRYPT = {"n": 2**14, "r": 8, "p": 1}


def data_dir(settings: Settings) -> Path:
    return settings.home / "data"


def is_loopback(host: str) -> bool:
    """True for 127.0.0.0/8, ::1 and ``localhost``; anything else is reachable from outside."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


# -- the access code -------------------------------------------------------------------------


def _scrypt(code: str, salt: bytes) -> bytes:
    return hashlib.scrypt(code.encode(), salt=salt, dklen=32, **SCRYPT)


def access_file(settings: Settings) -> Path:
    return data_dir(settings) / ACCESS_FILE


def stored_access(settings: Settings) -> dict[str, str] | None:
    """The stored hash of a generated access code, or None when none was generated."""
    try:
        data = json.loads(access_file(settings).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and {"salt", "hash"} <= data.keys() else None


def new_access_code(settings: Settings) -> str:
    """Generate a code, store only its scrypt hash (0600), and return it to be shown once."""
    code = secrets.token_urlsafe(15)
    salt = secrets.token_bytes(16)
    record = {"scheme": "scrypt", "salt": salt.hex(), "hash": _scrypt(code, salt).hex()}
    path = access_file(settings)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    with open_private(tmp, "w", encoding="utf-8") as out:  # 0600 from the first byte
        json.dump(record, out)
    os.chmod(tmp, 0o600)  # a leftover .tmp keeps the mode it was made with
    os.replace(tmp, path)
    return code


def access_code_configured(settings: Settings) -> bool:
    return bool(settings.supervisor_access_code) or stored_access(settings) is not None


def check_access_code(settings: Settings, given: str) -> bool:
    """Whether ``given`` is the access code, compared in constant time."""
    if settings.supervisor_access_code:
        want = hashlib.sha256(settings.supervisor_access_code.encode()).digest()
        return hmac.compare_digest(hashlib.sha256(given.encode()).digest(), want)
    stored = stored_access(settings)
    if stored is None:
        return False
    try:
        salt, want = bytes.fromhex(stored["salt"]), bytes.fromhex(stored["hash"])
    except ValueError:
        return False
    return hmac.compare_digest(_scrypt(given, salt), want)


def bearer_matches(authorization: str, token: str) -> bool:
    """Whether an ``Authorization`` header is ``Bearer <token>`` (compared in constant time)."""
    scheme, _, given = authorization.partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(
        given.strip().encode(), token.encode()
    )


def session_secret(settings: Settings) -> bytes:
    """The key that signs session cookies: made once (0600) and kept, so a restart keeps
    people logged in; deleting the file logs everyone out."""
    return private_key_file(data_dir(settings) / SECRET_FILE)


# -- signed mode: the public keys ---------------------------------------------------------------


def keys_file_problem(path: Path | None) -> str | None:
    """Why the public keys file cannot be trusted, or None when it can."""
    if path is None:
        return "DESKD_SUPERVISOR_KEYS is not set (signed mode needs a public keys file)"
    try:
        real = path.resolve(strict=True)
        info = real.stat()
    except (OSError, RuntimeError) as exc:
        return f"DESKD_SUPERVISOR_KEYS {path}: {getattr(exc, 'strerror', None) or exc}"
    if not stat.S_ISREG(info.st_mode):
        return f"DESKD_SUPERVISOR_KEYS {path}: not a regular file"
    # Whoever can write the file, or replace it or any folder above it, can add their own
    # key and act as the supervisor: so, as ssh does for authorized_keys, every one of them
    # must belong to this user or root and be writable by nobody else.
    problem = _untrusted(real, info, what="the file")
    if problem:
        return f"DESKD_SUPERVISOR_KEYS {path}: {problem}"
    for folder in real.parents:
        try:
            problem = _untrusted(folder, folder.stat(), what="folder")
        except OSError as exc:
            problem = f"folder {folder}: {exc.strerror}"
        if problem:
            return f"DESKD_SUPERVISOR_KEYS {path}: {problem}"
    return None


def _untrusted(path: Path, info: os.stat_result, *, what: str) -> str | None:
    me = os.geteuid()
    label = "the file" if what == "the file" else f"{what} {path}"
    if info.st_uid not in (0, me):
        return (
            f"{label} is owned by uid {info.st_uid}, not by this user ({me}) or root; "
            f"run `chown {me} {path}`"
        )
    if not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return None
    # A sticky folder owned by root (/tmp) lets nobody else rename or remove what is in it.
    if what != "the file" and info.st_mode & stat.S_ISVTX and info.st_uid == 0:
        return None
    return (
        f"{label} is writable by group or others (mode {stat.S_IMODE(info.st_mode):o}); "
        f"run `chmod go-w {path}`"
    )


def read_public_keys(path: Path | None) -> dict[str, bytes]:
    """``key-id base64-public-key`` per line (``#`` comments); refused when untrustworthy."""
    problem = keys_file_problem(path)
    if problem:
        raise ConsoleRefused(problem)
    assert path is not None
    keys: dict[str, bytes] = {}
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split()
        if len(parts) != 2:
            raise ConsoleRefused(f"{path}:{number}: expected `KEY-ID BASE64-PUBLIC-KEY`")
        try:
            key = base64.b64decode(parts[1], validate=True)
        except (binascii.Error, ValueError):
            key = b""
        if len(key) != KEY_BYTES:
            raise ConsoleRefused(f"{path}:{number}: not a base64 Ed25519 public key (32 bytes)")
        keys[parts[0]] = key
    return keys


# -- start-up and doctor ----------------------------------------------------------------------


def access_checks(settings: Settings, *, host: str | None = None) -> list[Check]:
    """What ``deskd serve`` would refuse, and what ``deskd doctor`` reports."""
    host = host or settings.host
    mode = settings.supervisor_auth_mode
    checks: list[Check] = []
    if mode in KEY_MODES:
        problem = keys_file_problem(settings.supervisor_keys)
        count = 0
        if problem is None:
            try:
                count = len(read_public_keys(settings.supervisor_keys))
            except DeskdError as exc:
                problem = exc.message
        if problem is None and count == 0:
            problem = f"DESKD_SUPERVISOR_KEYS {settings.supervisor_keys}: no keys in it"
        checks.append(Check.unless("console keys", problem, f"{count} supervisor key(s)"))
    if mode in CODE_MODES:
        configured = access_code_configured(settings)
        if settings.supervisor_access_code:
            detail = "access code from DESKD_SUPERVISOR_ACCESS_CODE"
        elif configured:
            detail = f"generated access code (hash in {access_file(settings)})"
        else:
            detail = "no access code yet: `deskd serve` generates one and prints it once"
        ok = configured or is_loopback(host)
        if not ok:
            detail = (
                f"{host} is not a loopback address and no access code is configured: "
                "set DESKD_SUPERVISOR_ACCESS_CODE (or run `deskd serve` once on 127.0.0.1)"
            )
        weak = weak_code(settings, host=host)
        if weak:
            ok, detail = False, weak
        checks.append(Check("console access code", "ok" if ok else "fail", detail))
    where = "loopback only" if is_loopback(host) else "reachable from the network"
    bind = f"{host}:{settings.port} ({where}; auth mode {mode})"
    checks.append(Check("console bind", "ok", bind))
    return checks


def weak_code(settings: Settings, *, host: str) -> str | None:
    """Why the configured access code is too weak for ``host`` (too short, or too few
    different characters: 16 x ``a`` is long, not strong), or None."""
    code = settings.supervisor_access_code or ""
    if not code or is_loopback(host):
        return None
    if len(code) < MIN_CODE_OFF_LOOPBACK:
        said = f"has {len(code)} characters; off loopback ({host}) it needs at least {MIN_CODE_OFF_LOOPBACK}"
    elif len(set(code)) < MIN_DISTINCT_OFF_LOOPBACK:
        said = (
            f"has {len(set(code))} different characters; off loopback ({host}) it needs at "
            f"least {MIN_DISTINCT_OFF_LOOPBACK}"
        )
    else:
        return None
    return (
        f"DESKD_SUPERVISOR_ACCESS_CODE {said}, or unset it and let `deskd serve` generate one "
        "on 127.0.0.1"
    )


def startup_refusal(settings: Settings, *, host: str) -> str | None:
    """Why ``deskd serve`` must not start (a non-loopback bind without auth, a weak code, a
    bad key file)."""
    if settings.role:
        return "deskd serve is for the supervisor, not an agent (DESKD_ROLE is set)"
    weak = weak_code(settings, host=host)
    if weak and settings.supervisor_auth_mode in CODE_MODES:
        return weak  # a weak code stays guessable even when signed requests work too
    checks = [c for c in access_checks(settings, host=host) if c.name != "console bind"]
    failed = [c for c in checks if not c.ok]
    if settings.supervisor_auth_mode == "hybrid" and len(failed) < len(checks):
        return None  # hybrid accepts either method: one that works is enough
    return failed[0].detail if failed else None


def burn_nonce(ctx: DeskContext, nonce: str, *, key_id: str, keep_ms: int) -> bool:
    """Record a signed request's nonce before its action runs; False for a replay.

    Nonces older than ``keep_ms`` are forgotten on the way: their assertions are stale."""
    with ctx.write() as conn:
        console_rows.forget_nonces(conn, before=ctx.now - keep_ms)
        return console_rows.burn_nonce(conn, nonce, key_id=key_id, now=ctx.now)
