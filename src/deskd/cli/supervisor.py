"""``deskd supervisor keygen|sign``: Ed25519 keys and signed requests for the console's
signed mode, from a shell."""

from __future__ import annotations

import os
from pathlib import Path

import click

from deskd.cli.common import emit, json_option
from deskd.errors import InvalidValue, KeyFileExists, KeyUnreadable

KEY_ID = r"^[A-Za-z0-9_.@-]{1,64}$"


@click.group()
def supervisor() -> None:
    """Keys and signed requests for the supervisor console (DESKD_SUPERVISOR_AUTH_MODE
    signed or hybrid).

    \b
    Examples:
      deskd supervisor keygen --out ~/.config/deskd/alice.pem --id alice
      deskd supervisor sign --key ~/.config/deskd/alice.pem --id alice \\
          --method POST --path /actions/pause --data 'reason=deploy'
    """


@supervisor.command()
@click.option(
    "--out",
    "out",
    required=True,
    type=click.Path(path_type=Path),
    help="Private key file to write (0600).",
)
@click.option("--id", "key_id", required=True, help="The key's name in the keys file.")
@click.option(
    "--keys",
    type=click.Path(path_type=Path),
    default=None,
    help="Append the public key to this keys file (default: print the line only).",
)
@json_option
def keygen(out: Path, key_id: str, keys: Path | None, as_json: bool) -> None:
    """Make an Ed25519 key pair: the private key to --out (0600, never overwritten) and the
    public line `ID BASE64` for the keys file DESKD_SUPERVISOR_KEYS names.

    \b
    Examples:
      deskd supervisor keygen --out alice.pem --id alice
      deskd supervisor keygen --out alice.pem --id alice --keys /etc/deskd/supervisor.keys
    """
    import re

    from deskd.web.auth.signed import new_key_pair

    if not re.match(KEY_ID, key_id):
        raise InvalidValue("--id", key_id, "letters, digits and _ . @ - (at most 64)")
    if out.exists():
        raise KeyFileExists(out)
    pem, public = new_key_pair()
    out.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as fh:
        fh.write(pem)
    line = f"{key_id} {public}"
    if keys is not None:
        fd = os.open(keys, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        with os.fdopen(fd, "a", encoding="utf-8") as fh:
            fh.write(line + "\n")
    data = {
        "private_key": str(out),
        "key_id": key_id,
        "public_key": public,
        "line": line,
        "keys_file": str(keys) if keys else None,
    }
    where = (
        f"appended to {keys}" if keys else "add this line to the file DESKD_SUPERVISOR_KEYS names"
    )
    emit(data, as_json, f"private key: {out} (0600)\n{where}:\n{line}")


@supervisor.command()
@click.option(
    "--key",
    "key_file",
    required=True,
    type=click.Path(path_type=Path, exists=True),
    help="Private key file (from keygen).",
)
@click.option("--id", "key_id", required=True, help="The key's name in the keys file.")
@click.option("--method", default="POST", show_default=True, help="HTTP method.")
@click.option(
    "--path", "path", required=True, help="Request path with its query, e.g. /actions/pause."
)
@click.option(
    "--data", "data", default="", help="The exact request body (form-encoded for actions)."
)
@json_option
def sign(key_file: Path, key_id: str, method: str, path: str, data: str, as_json: bool) -> None:
    """Print the headers that sign one request (valid for 10 minutes, usable once).

    The signature covers the method, the path, the body's SHA-256, the time and a fresh
    nonce; send the body byte for byte as given. The time is now (DESKD_NOW honoured).

    \b
    Examples:
      deskd supervisor sign --key alice.pem --id alice --method GET --path /
      deskd supervisor sign --key alice.pem --id alice --path /actions/pause \\
          --data 'reason=deploy' --json   # the four headers; send the same body
    """
    from deskd.adapters.clock import now_ms
    from deskd.config.settings_model import validate_settings
    from deskd.web.auth.signed import load_private_key
    from deskd.web.auth.signed import sign as make

    if not path.startswith("/"):
        raise InvalidValue("--path", path, "a path on the console starting with /")
    try:
        key = load_private_key(key_file)
    except (ValueError, TypeError) as exc:
        raise KeyUnreadable(key_file, exc) from None
    headers = make(
        key,
        key_id=key_id,
        method=method,
        path=path,
        body=data.encode(),
        timestamp=now_ms(validate_settings().now),
    )
    emit(headers, as_json, "\n".join(f"{k}: {v}" for k, v in headers.items()))
