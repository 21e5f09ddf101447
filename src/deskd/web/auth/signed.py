"""Signed supervisor requests: an Ed25519 assertion over method, path, body hash, timestamp
and nonce. Used by the console to verify and by ``deskd supervisor sign`` to make one.

Loads ``cryptography`` only (no FastAPI), so the CLI can sign without the web stack.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
from dataclasses import dataclass
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

HEADER_KEY = "X-Deskd-Key"
HEADER_TIME = "X-Deskd-Timestamp"
HEADER_NONCE = "X-Deskd-Nonce"
HEADER_SIGNATURE = "X-Deskd-Signature"
HEADERS = (HEADER_KEY, HEADER_TIME, HEADER_NONCE, HEADER_SIGNATURE)
MAX_AGE_MS = 10 * 60 * 1000
# A clock a little ahead of the server's is tolerated; far in the future is refused, or a
# signer could mint assertions that stay "fresh" for as long as it likes.
MAX_SKEW_MS = 60 * 1000
VERSION = "deskd-assertion-v1"


class AssertionRefused(Exception):
    """Why a signed request was refused (shown to the caller; never names a secret)."""


@dataclass(frozen=True, slots=True)
class Assertion:
    key_id: str
    timestamp: int
    nonce: str
    signature: bytes


def canonical(method: str, path: str, body: bytes, timestamp: int, nonce: str) -> bytes:
    """The exact bytes signed: one field per line, the body as its SHA-256."""
    digest = hashlib.sha256(body).hexdigest()
    return "\n".join([VERSION, method.upper(), path, digest, str(timestamp), nonce]).encode()


def sign(
    private_key: Ed25519PrivateKey,
    *,
    key_id: str,
    method: str,
    path: str,
    body: bytes,
    timestamp: int,
    nonce: str | None = None,
) -> dict[str, str]:
    """The four headers that make a request signed."""
    nonce = nonce or secrets.token_hex(16)
    signature = private_key.sign(canonical(method, path, body, timestamp, nonce))
    return {
        HEADER_KEY: key_id,
        HEADER_TIME: str(timestamp),
        HEADER_NONCE: nonce,
        HEADER_SIGNATURE: base64.b64encode(signature).decode(),
    }


def parse(headers: dict[str, str]) -> Assertion | None:
    """The assertion carried by a request's headers; None when it carries none."""
    found = {h: headers.get(h.lower()) for h in HEADERS}
    if not any(found.values()):
        return None
    missing = [h for h, v in found.items() if not v]
    if missing:
        raise AssertionRefused("incomplete assertion: missing " + ", ".join(missing))
    raw_time, nonce = str(found[HEADER_TIME]), str(found[HEADER_NONCE])
    # ASCII digits only (``²`` is a digit to Python) and short enough to be a time at all.
    if not (raw_time.isascii() and raw_time.isdigit()) or len(raw_time) > 16:
        raise AssertionRefused(f"{HEADER_TIME} must be Unix milliseconds (up to 16 digits)")
    if len(str(found[HEADER_KEY])) > 64:
        raise AssertionRefused(f"{HEADER_KEY} is longer than 64 characters")
    if not 16 <= len(nonce) <= 128 or not nonce.isascii() or not nonce.isalnum():
        raise AssertionRefused(f"{HEADER_NONCE} must be 16-128 letters or digits")
    try:
        signature = base64.b64decode(str(found[HEADER_SIGNATURE]), validate=True)
    except ValueError:
        raise AssertionRefused(f"{HEADER_SIGNATURE} is not base64") from None
    return Assertion(str(found[HEADER_KEY]), int(raw_time), nonce, signature)


def verify(
    assertion: Assertion,
    keys: dict[str, bytes],
    *,
    method: str,
    path: str,
    body: bytes,
    now: int,
) -> None:
    """Refuse an unknown key, a stale or future timestamp, or a bad signature.

    The nonce is burned by the caller after this passes and before the action runs."""
    raw = keys.get(assertion.key_id)
    if raw is None:
        raise AssertionRefused(f"unknown key {assertion.key_id!r}")
    if assertion.timestamp < now - MAX_AGE_MS:
        raise AssertionRefused("stale assertion: signed more than 10 minutes ago")
    if assertion.timestamp > now + MAX_SKEW_MS:
        raise AssertionRefused("assertion timestamp is in the future")
    message = canonical(method, path, body, assertion.timestamp, assertion.nonce)
    try:
        Ed25519PublicKey.from_public_bytes(raw).verify(assertion.signature, message)
    except (InvalidSignature, ValueError):
        raise AssertionRefused("bad signature") from None


def new_key_pair() -> tuple[bytes, str]:
    """A fresh private key as PEM and its public key as base64 (for the keys file)."""
    key = Ed25519PrivateKey.generate()
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    return pem, public_text(key)


def public_text(key: Ed25519PrivateKey) -> str:
    raw = key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return base64.b64encode(raw).decode()


def load_private_key(path: Path) -> Ed25519PrivateKey:
    key = serialization.load_pem_private_key(path.read_bytes(), password=None)
    if not isinstance(key, Ed25519PrivateKey):
        raise ValueError(f"{path} is not an Ed25519 private key")
    return key
