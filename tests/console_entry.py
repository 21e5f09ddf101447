"""`deskd ARGS` through the console script's entry, in-process, for tests where the
process boundary is not what they check (tests/faults/procs.py runs it as a process)."""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Mapping
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from unittest import mock

from conftest import Desk, Outcome


def console(desk: Desk, *args: str, role: str | None = None, **extra: str) -> Outcome:
    """`deskd ARGS` through the console script's entry (``deskd.cli.main.main``) in this
    process, with the desk's environment: what ``deskd`` runs, without a fresh interpreter
    (~0.15 CPU-s) per call."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("DESKD_")}
    env.update(desk.env(role, **extra))
    return console_with(env, *args)


def console_with(
    env: Mapping[str, str], *args: str, cwd: Path | None = None, stdin: str = ""
) -> Outcome:
    """`deskd ARGS` as ``console`` runs it, with exactly ``env`` as the environment, in
    ``cwd`` (default: here), and ``stdin`` as its input: not a terminal, like a script's
    ``stdin=subprocess.DEVNULL``."""
    from deskd.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    code: object = 0
    here = os.getcwd()
    with (
        mock.patch.dict(os.environ, dict(env), clear=True),
        mock.patch.object(sys, "argv", ["deskd", *args]),
        mock.patch.object(sys, "stdin", io.StringIO(stdin)),
        redirect_stdout(out),
        redirect_stderr(err),
    ):
        if cwd is not None:
            os.chdir(cwd)
        try:
            main()
        except SystemExit as exc:
            code = exc.code
        finally:
            os.chdir(here)
    exit_code = code if isinstance(code, int) else (0 if code is None else 1)
    return Outcome(exit_code, out.getvalue(), err.getvalue())
