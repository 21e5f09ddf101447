"""CPU and wall time of one run of each real agent CLI, as the real-agent test tier runs it.

Each form is one CLI (installed by ``make real-agents`` into .cache/real-agents) answering one
prompt from the loopback stand-in (tests/real_agents/standins.py, mode ``text``), launched with
the argv deskd's adapter builds and aimed by tests/real_agents/aim.py in a scratch ``$HOME``,
in a scratch git workdir with ``$PWD`` naming it (as deskd launches an agent). Runs are
interleaved by bench/interleave.py; the CPU figure (user + system from ``wait4``) counts what
the CLI's own children cost (git, a relaunched Node), and holds on a busy machine where wall
time does not.

``--first-call`` instead times, per CLI, how long after its start the stand-in (mode ``hang``)
gets its first model call, then kills it: how long the tier's timeout tests take at least
(they end on that call, tests/real_agents/gate/, not on a timeout sized from this figure).

``--before REV`` adds, for each CLI, a form aimed by the aim.py of git revision ``REV`` and
launched with ``$PWD`` naming this checkout instead of the workdir (what deskd passed before
it set ``$PWD``): the same run before and after, side by side.

    .venv/bin/python bench/real_agent_cpu.py --runs 5 --before 78b49be
    .venv/bin/python bench/real_agent_cpu.py --runs 5 --first-call
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import types
from pathlib import Path

from interleave import Form, interleave, print_table, report

ROOT = Path(__file__).resolve().parent.parent
TIER = ROOT / "tests" / "real_agents"
sys.path.insert(0, str(TIER))

from standins import StandIn  # noqa: E402

from deskd.adapters.agents import adapter_for  # noqa: E402
from deskd.adapters.agents.base import LaunchSpec  # noqa: E402

KINDS = ("claude", "codex", "gemini", "opencode")
MODEL = {"gemini": "gemini-2.5-flash"}  # as tests/real_agents/tier.py configures the desk


def aim_module(rev: str | None) -> types.ModuleType:
    """tests/real_agents/aim.py of this checkout, or of git revision ``rev``."""
    if rev is None:
        source = (TIER / "aim.py").read_text(encoding="utf-8")
    else:
        source = subprocess.run(
            ["git", "-C", str(ROOT), "show", f"{rev}:tests/real_agents/aim.py"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    module = types.ModuleType(f"aim_{rev or 'here'}")
    exec(compile(source, f"aim.py@{rev or 'here'}", "exec"), module.__dict__)
    return module


def form(
    kind: str, name: str, aim: types.ModuleType, scratch: Path, url: str, *, pwd: Path | None
) -> Form:
    home = scratch / name / "home"
    work = scratch / name / "work"
    home.mkdir(parents=True)
    work.mkdir()
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("XDG_")}
    env.update(HOME=str(home), GEMINI_CLI_TRUST_WORKSPACE="true", PWD=str(pwd or work))
    env.update({**aim.QUIET, **aim.aim(kind, home, url)})
    command = str(ROOT / ".cache" / "real-agents" / "node_modules" / ".bin" / kind)
    spec = LaunchSpec(
        kind=kind,
        command=command,
        args=(),
        mode="spawn",
        prompt="Urgent: disk 91% on db-1",
        session_id=None,
        model=MODEL.get(kind, ""),
        allowed_tools=(),
        settings_path=None,
        role="alpha",
    )
    # The CLI runs in its workdir: a shell wrapper keeps interleave's fresh-process timing.
    argv = ["/bin/sh", "-c", 'cd "$0" && exec "$@"', str(work), *adapter_for(kind).argv(spec)]
    return Form(name, argv, env)


def first_call(forms: list[Form], api: StandIn, runs: int) -> None:
    """Seconds from each CLI's start to its first model call, ``runs`` times in turn."""
    api.mode = "hang"
    seen: dict[str, list[float]] = {f.name: [] for f in forms}
    for _ in range(runs):
        for f in forms:
            before = len(api.model_calls())
            start = time.perf_counter()
            proc = subprocess.Popen(
                f.argv,
                env=dict(f.env),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
            while len(api.model_calls()) == before and time.perf_counter() - start < 60:
                time.sleep(0.02)
            seen[f.name].append(time.perf_counter() - start)
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    for name, values in seen.items():
        low, high = min(values), max(values)
        print(
            f"{name:<10} first model call {statistics.median(values):.2f} s ({low:.2f}-{high:.2f})"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--kinds", default=",".join(KINDS))
    parser.add_argument("--before", metavar="REV", help="also time aim.py of this revision")
    parser.add_argument("--first-call", action="store_true", help="time start to model call")
    args = parser.parse_args()
    if importlib.util.find_spec("deskd") is None:
        raise SystemExit("run with the project's .venv/bin/python")
    now = aim_module(None)
    then = aim_module(args.before) if args.before else None
    with tempfile.TemporaryDirectory() as tmp, StandIn() as api:
        if args.first_call:
            kinds = args.kinds.split(",")
            first_call(
                [form(k, k, now, Path(tmp), api.url, pwd=None) for k in kinds], api, args.runs
            )
            return
        forms: list[Form] = [Form("sh (floor)", ["/bin/sh", "-c", ":"], dict(os.environ))]
        for kind in args.kinds.split(","):
            if then is not None:
                forms.append(form(kind, f"{kind} before", then, Path(tmp), api.url, pwd=ROOT))
            forms.append(form(kind, kind, now, Path(tmp), api.url, pwd=None))
        samples = interleave(forms, args.runs)
        print_table(report(samples, "sh (floor)"), "sh (floor)")


if __name__ == "__main__":
    main()
