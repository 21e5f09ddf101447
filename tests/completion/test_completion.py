"""Shell completion: the script ``deskd completion`` prints, driven by a real bash, and the
desk's values (roles, capabilities, open meetings and tasks, channels) it offers."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import Desk

DESKD = str(Path(sys.executable).parent / "deskd")

CAPABLE = """\
[desk]
name = "test"
timezone = "America/New_York"
inbox_sources = ["alert", "signal"]

[[roles]]
name = "alpha"
title = "Alpha"
capabilities = ["triage", "review"]

[[roles]]
name = "beta"
title = "Beta"
capabilities = ["triage"]

[[roles]]
name = "gamma"
title = "Gamma"

[[channels]]
name = "oncall"
urls = ["json://127.0.0.1:9/hook"]
"""


def complete(desk: Desk, words: str, shell: str = "bash") -> list[str]:
    """What the deskd process answers the shell for ``words`` (the cursor after the last)."""
    parts = words.split(" ")
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("DESKD_")},
        **desk.env(),
        "_DESKD_COMPLETE": f"{shell}_complete",
        "COMP_WORDS": words,
        # fish sends the word being completed itself, bash and zsh its index.
        "COMP_CWORD": parts[-1] if shell == "fish" else str(len(parts) - 1),
    }
    done = subprocess.run(
        [DESKD], env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    return done.stdout.splitlines()


def values(lines: list[str]) -> list[str]:
    """bash's protocol: ``type,value`` per line."""
    return [line.split(",", 1)[1] for line in lines if line.startswith("plain,")]


def test_it_prints_a_script_for_each_shell(desk: Desk) -> None:
    for shell, marker in (
        ("bash", "complete -o nosort -F"),
        ("zsh", "#compdef deskd"),
        ("fish", "complete --no-files --command deskd"),
    ):
        out = desk.ok("completion", shell)
        assert marker in out.stdout
        assert "_DESKD_COMPLETE" in out.stdout


def test_it_refuses_an_unknown_shell_naming_the_choices(desk: Desk) -> None:
    out = desk.run("completion", "tcsh")
    assert out.exit_code == 2
    assert "bash" in out.stderr and "zsh" in out.stderr and "fish" in out.stderr


def test_it_completes_commands_and_options(desk: Desk) -> None:
    assert {"tick", "timer"} <= set(values(complete(desk, "deskd ti")))
    assert "--capability" in values(complete(desk, "deskd inbox enqueue --cap"))


def test_it_completes_role_names_from_the_desk(desk: Desk) -> None:
    assert values(complete(desk, "deskd inbox list --for ")) == ["alpha", "beta", "gamma"]
    assert values(complete(desk, "deskd send --to b")) == ["beta"]
    assert values(complete(desk, "deskd pause --role g")) == ["gamma"]


def test_it_completes_capabilities_sources_and_channels(desk: Desk) -> None:
    desk.write_desk(CAPABLE)
    assert values(complete(desk, "deskd inbox enqueue --capability ")) == ["review", "triage"]
    assert values(complete(desk, "deskd inbox enqueue --source ")) == ["alert", "signal"]
    assert values(complete(desk, "deskd channels test ")) == ["oncall"]


def test_it_completes_open_task_and_meeting_ids(desk: Desk) -> None:
    task = desk.json("task", "add", "ship it", "--for", "alpha")["id"]
    closed = desk.json("task", "add", "old", "--for", "beta")["id"]
    desk.ok("task", "update", str(closed), "--status", "done")
    meeting = desk.json(
        "meeting", "call", "--agenda", "release", "--attendees", "alpha,beta", role="gamma"
    )["meeting_id"]
    assert values(complete(desk, "deskd task update ")) == [str(task)]
    assert values(complete(desk, "deskd meeting status ")) == [str(meeting)]


def test_it_completes_the_last_name_of_a_comma_list(desk: Desk) -> None:
    assert values(complete(desk, "deskd meeting call --attendees alpha,b")) == ["alpha,beta"]


def test_a_broken_desk_offers_nothing_and_prints_no_error(desk: Desk) -> None:
    desk.write_desk("[desk\nname =")
    assert values(complete(desk, "deskd inbox list --for ")) == []


def test_zsh_and_fish_get_the_values_with_their_help(desk: Desk) -> None:
    zsh = complete(desk, "deskd inbox list --for a", shell="zsh")
    assert zsh[:3] == ["plain", "alpha", "Alpha"]
    fish = complete(desk, "deskd inbox list --for a", shell="fish")
    assert fish == ["plain,alpha\tAlpha"]


@pytest.mark.skipif(shutil.which("bash") is None, reason="completion: bash is not installed")
def test_a_real_bash_fills_compreply_from_the_installed_script(desk: Desk, tmp_path: Path) -> None:
    script = tmp_path / "deskd.bash"
    script.write_text(desk.ok("completion", "bash").stdout, encoding="utf-8")
    driver = (
        f"source {script}\n"
        "COMP_WORDS=(deskd inbox list --for al); COMP_CWORD=4\n"
        f"_deskd_completion {DESKD}\n"
        'printf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("DESKD_")},
        **desk.env(),
        "PATH": f"{Path(DESKD).parent}:{os.environ['PATH']}",
    }
    done = subprocess.run(
        ["bash", "--norc", "--noprofile", "-c", driver],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["alpha"]
