"""Scheduling the tick: the crontab line and the systemd units, rendered for *this* install.

Cron and systemd start ``deskd tick`` with a bare environment, so everything they run is
named by absolute path (lessons 32, 47): the ``deskd`` console script beside this
interpreter (never a bare ``python3``, which may be a Python without deskd), the driver
script shipped inside the package (``deskd/templates/wake_orchestrator.sh``) and the desk
folder (lesson 46: a driver must never tick whatever folder it was started in).

The package's ``templates/`` folder holds the three files that are also in the repository's
``scripts/`` folder; a test keeps the copies identical. Nothing here runs ``crontab`` or
``systemctl``: the operator does, with the commands this module prints.
"""

from __future__ import annotations

import getpass
import os
import shlex
import shutil
import sys
import sysconfig
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from deskd import paths
from deskd.config.settings import database_problem
from deskd.errors import InvalidValue, name_refusals, refusal_class
from deskd.store.db import is_url, redact

TEMPLATES = Path(__file__).resolve().parents[1] / "templates"
DRIVER = "wake_orchestrator.sh"
SERVICE = "deskd-tick.service"
TIMER = "deskd-tick.timer"
SCHEDULE = "* * * * *"

# Path variables that travel with the line when set in the caller's environment (made
# absolute), so cron's tick opens the same desk file, database and logs as this shell. A
# PostgreSQL URL never does: it holds a password, so the tick reads it from the desk's .env.
_PATH_VARIABLES = ("DESKD_DESK", "DESKD_DB", "DESKD_LOG_DIR")
_PLAIN_VARIABLES = ("DESKD_CONFIG_MODULE",)


NoExecutable = refusal_class(
    "no_executable",
    "cannot find the deskd executable of this environment (searched {searched}); "
    "reinstall deskd with pip into this interpreter",
)
# A schedule for a folder without a desk file would tick an empty database.
NoDesk = refusal_class(
    "no_desk",
    "no desk file at {desk_file} (desk folder {home}, from {origin}): "
    "run `deskd init` there first, or set DESKD_HOME to the desk folder",
)
UnitPermissionDenied = refusal_class(
    "permission_denied",
    "cannot write {path}: permission denied (use --user for a timer of "
    "your own, or run it as root: {sudo_hint})",
)
# Exit 1 like any refusal (not 3): the database is fine, the operator picked a folder deskd
# cannot write.
UnitNotWritten = refusal_class("unavailable", "cannot write {path}: {reason}")


def template_path(name: str) -> Path:
    """A file shipped in ``deskd/templates`` (the driver script or a systemd unit)."""
    return TEMPLATES / name


def deskd_executable() -> Path:
    """This environment's ``deskd`` console script, by absolute path: beside
    ``sys.executable`` (not resolved: a venv's symlinked ``python`` would lead to ``/usr/bin``),
    else in the interpreter's scripts folders (``pip install --user``: ``~/.local/bin``)."""
    folders = [Path(sys.executable).parent]
    for scheme in (sysconfig.get_default_scheme(), sysconfig.get_preferred_scheme("user")):
        try:
            folders.append(Path(sysconfig.get_path("scripts", scheme)))
        except KeyError:
            continue
    candidates = [folder / "deskd" for folder in folders]
    for candidate in candidates:
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate.absolute()
    searched = ", ".join(str(c.parent) for c in candidates)
    raise NoExecutable(searched)


@dataclass(frozen=True)
class Target:
    """One desk, and the deskd that should tick it."""

    home: Path
    deskd: Path
    execute: bool
    env: dict[str, str] = field(default_factory=dict)

    @property
    def bin_dir(self) -> Path:
        return self.deskd.parent

    @property
    def log_file(self) -> Path:
        logs = self.env.get("DESKD_LOG_DIR")
        return (Path(logs) if logs else self.home / "logs") / "tick.log"


def desk_target(environ: Mapping[str, str], *, execute: bool, deskd: Path | None = None) -> Target:
    """The desk this shell resolves (``DESKD_HOME``, else the current folder), which must
    hold a desk file: a schedule for a folder without a desk would tick an empty database."""
    env = dict(environ)
    home = paths.home(env).absolute()
    desk_file = paths.desk_file(env)
    if not desk_file.is_file():
        origin = "DESKD_HOME" if env.get("DESKD_HOME") else "the current folder; DESKD_HOME unset"
        raise NoDesk(desk_file, home, origin)
    extra: dict[str, str] = {}
    url = next((env[n] for n in paths.DB_VARIABLES if env.get(n)), None)
    problem = database_problem(url) if url is not None else None
    if problem:  # a URL typed wrong is refused, never written into a crontab as a path
        raise InvalidValue("DESKD_DB", "(not shown: it may hold a password)", problem)
    if url is not None and is_url(url):
        require_url_in_env_file(home, url, what="a schedule")
    for name in _PATH_VARIABLES:
        if env.get(name) and not (name == "DESKD_DB" and is_url(env[name])):
            extra[name] = str(Path(env[name]).expanduser().absolute())
    for name in _PLAIN_VARIABLES:
        if env.get(name):
            extra[name] = env[name]
    return Target(home=home, deskd=deskd or deskd_executable(), execute=execute, env=extra)


def require_url_in_env_file(home: Path, url: str, *, what: str) -> None:
    """Refuse unless the desk's ``.env`` (0600) names ``url``: cron, systemd and hand-started
    sessions read a PostgreSQL URL from there, never from a line or file that embeds it."""
    env_file = home / ".env"
    fix = f"put DESKD_DB={redact(url)} (with its password) in {env_file} and chmod 600 it"
    values = paths.env_file_values(env_file)
    found = next((values[n] for n in paths.DB_VARIABLES if values.get(n)), None)
    if found != url:
        said = "names another database" if found and is_url(found) else "does not name it"
        raise InvalidValue(
            "DESKD_DB",
            redact(url),
            f"{what} reads a PostgreSQL URL from the desk's .env, which {said}: {fix}",
        )
    if env_file.stat().st_mode & 0o077:
        raise InvalidValue(
            "DESKD_DB", redact(url), f"{env_file} holds its password and is not private: {fix}"
        )


# -- cron --------------------------------------------------------------------------------


class CronLine(NamedTuple):
    schedule: str
    command: str
    target: Target
    script: Path

    @property
    def line(self) -> str:
        return f"{self.schedule} {self.command}"

    @property
    def comments(self) -> list[str]:
        t = self.target
        mode = (
            "execute: ticks record wakes and launch agents"
            if t.execute
            else "dry run: ticks log what they would do and change nothing; "
            "once logs/tick.log looks right, use `deskd cron-line --execute`"
        )
        return [
            f"# deskd tick every minute for the desk in {t.home} ({mode})",
            f"# install: `crontab -e` and paste the line below; it appends to {t.log_file}",
        ]

    def to_json(self) -> dict[str, object]:
        t = self.target
        return {
            "line": self.line,
            "schedule": self.schedule,
            "command": self.command,
            "execute": t.execute,
            "home": str(t.home),
            "deskd": str(t.deskd),
            "script": str(self.script),
            "log": str(t.log_file),
        }


def cron_line(target: Target, *, script: Path | None = None) -> CronLine:
    """``* * * * * DESKD_HOME=… [DESKD_WAKE_EXECUTE=1] DESKD_BIN=… …/wake_orchestrator.sh``:
    values shell-quoted (cron runs it with ``sh``), ``%`` escaped (cron makes it a newline)."""
    script = (script or template_path(DRIVER)).absolute()
    words = [f"DESKD_HOME={shlex.quote(str(target.home))}"]
    words += [f"{k}={shlex.quote(v)}" for k, v in target.env.items()]
    if target.execute:
        words.append("DESKD_WAKE_EXECUTE=1")
    words.append(f"DESKD_BIN={shlex.quote(str(target.bin_dir))}")
    if not os.access(script, os.X_OK):
        # Package data installed without its executable bit: run it through bash.
        words.append(shlex.quote(shutil.which("bash") or "/bin/bash"))
    words.append(shlex.quote(str(script)))
    command = " ".join(words).replace("%", "\\%")
    return CronLine(schedule=SCHEDULE, command=command, target=target, script=script)


# -- systemd -----------------------------------------------------------------------------


class Unit(NamedTuple):
    name: str
    path: Path
    text: str


def unit_dir(environ: Mapping[str, str], *, user: bool) -> Path:
    """``$XDG_CONFIG_HOME/systemd/user`` (default ``~/.config``) with ``--user``, else
    ``/etc/systemd/system``."""
    if not user:
        return Path("/etc/systemd/system")
    config = environ.get("XDG_CONFIG_HOME")
    if config:
        return Path(config).expanduser() / "systemd" / "user"
    home = environ.get("HOME")
    base = Path(home) if home else Path.home()
    return base / ".config" / "systemd" / "user"


def run_as_user(environ: Mapping[str, str]) -> str:
    """The account a system-wide unit runs the tick as: the person behind ``sudo``, else
    this process's user."""
    return environ.get("SUDO_USER") or getpass.getuser()


def render_units(
    target: Target, *, folder: Path, user: bool, run_as: str | None = None
) -> list[Unit]:
    """deskd-tick.service and deskd-tick.timer with their placeholders filled in; a line whose
    placeholder has no value is dropped (``User=`` in a user unit, or root: systemd's default)."""
    who = "" if user or not run_as or run_as == "root" else run_as
    values = {
        "@DESKD_HOME@": str(target.home),
        "@DESKD_BIN@": str(target.bin_dir),
        "@DESKD@": _exec_word(str(target.deskd)),
        "@TICK_ARGS@": "--execute" if target.execute else "",
        "@USER@": who,
    }
    extra = [_environment_line(k, v) for k, v in target.env.items()]
    return [
        Unit(name, folder / name, _fill(template_path(name).read_text("utf-8"), values, extra))
        for name in (SERVICE, TIMER)
    ]


def _fill(template: str, values: Mapping[str, str], extra_env: list[str]) -> str:
    out: list[str] = []
    for line in template.splitlines():
        if line.startswith("#"):
            out.append(line)
            continue
        if any(key in line and not value and key != "@TICK_ARGS@" for key, value in values.items()):
            continue
        for key, value in values.items():
            line = line.replace(key, _unit_escape(value) if key != "@DESKD@" else value)
        out.append(line.rstrip())
        if line.startswith('Environment="DESKD_HOME='):
            out.extend(extra_env)
    return "\n".join(out) + "\n"


def _unit_escape(value: str) -> str:
    """systemd expands ``%`` specifiers in these settings; ``%%`` is a literal percent."""
    return value.replace("%", "%%")


def _environment_line(name: str, value: str) -> str:
    quoted = value.replace("\\", "\\\\").replace('"', '\\"')
    return f'Environment="{name}={_unit_escape(quoted)}"'


def _exec_word(path: str) -> str:
    path = _unit_escape(path)
    if any(c.isspace() or c in "\"'\\" for c in path):
        return '"' + path.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return path


def systemctl_commands(*, user: bool) -> list[str]:
    scope = " --user" if user else ""
    return [
        f"systemctl{scope} daemon-reload && systemctl{scope} enable --now deskd-tick.timer",
        f"systemctl{scope} list-timers deskd-tick.timer",
    ]


class Written(NamedTuple):
    path: Path
    status: str  # "written" (new), "replaced" (different before) or "unchanged"


def install_units(units: list[Unit], *, sudo_hint: str) -> list[Written]:
    """Write the units (creating the folder), each to a temporary name renamed into place;
    refuse with the fix when the folder is not writable."""
    written: list[Written] = []
    for unit in units:
        try:
            unit.path.parent.mkdir(parents=True, exist_ok=True)
            status = "written"
            if unit.path.exists():
                if unit.path.read_text("utf-8") == unit.text:
                    written.append(Written(unit.path, "unchanged"))
                    continue
                status = "replaced"
            tmp = unit.path.with_name(unit.path.name + ".tmp")
            tmp.write_text(unit.text, encoding="utf-8")
            tmp.replace(unit.path)
        except PermissionError:
            raise UnitPermissionDenied(unit.path, sudo_hint) from None
        except OSError as exc:
            raise UnitNotWritten(unit.path, exc.strerror) from None
        written.append(Written(unit.path, status))
    return written


def sudo_command(target: Target) -> str:
    """How to run ``timer install`` as root for this desk (sudo drops DESKD_HOME)."""
    words = ["sudo", "env", f"DESKD_HOME={target.home}"]
    words += [f"{k}={v}" for k, v in target.env.items()]
    words += [str(target.deskd), "timer", "install"]
    if target.execute:
        words.append("--execute")
    return shlex.join(words)


def run_quietly(argv: Sequence[str]) -> str | None:
    """``argv``'s stdout, or None when the program is missing, fails or hangs."""
    import subprocess

    exe = shutil.which(argv[0])
    if exe is None:
        return None
    try:
        done = subprocess.run(
            [exe, *argv[1:]], capture_output=True, text=True, timeout=5, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


def read_crontab() -> str | None:
    return run_quietly(["crontab", "-l"])


def driver_lines(crontab: str | None) -> Iterator[tuple[str, list[str]]]:
    """Each crontab line running the driver, stripped, with its words as the shell splits them."""
    for line in (crontab or "").splitlines():
        stripped = line.strip()
        if stripped.startswith("#") or DRIVER not in stripped:
            continue
        try:
            words = shlex.split(stripped.replace("\\%", "%"))
        except ValueError:
            words = stripped.split()
        yield stripped, words


name_refusals(globals())
