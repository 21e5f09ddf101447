"""A role's `host` in the desk file: validated, shown on the board, and obeyed by the executor."""

from __future__ import annotations

import pytest

from conftest import DESK_TOML, Desk, urgent


@pytest.mark.sqlite_only  # the desk file alone: no database backend involved
@pytest.mark.parametrize("bad", ['""', '" gpu"'])
def test_a_blank_or_padded_host_is_refused_naming_the_key(desk: Desk, bad: str) -> None:
    desk.write_desk(DESK_TOML.replace('title = "Alpha"', f'title = "Alpha"\nhost = {bad}'))
    out = desk.run("status", "--json")
    assert out.exit_code == 1
    message = out.error()["message"]
    assert "host" in message and "DESKD_HOST_NAME" in message


def test_an_executor_refuses_a_launch_for_a_role_bound_elsewhere(desk: Desk) -> None:
    desk.write_desk(DESK_TOML.replace('title = "Alpha"', 'title = "Alpha"\nhost = "gpu"'))
    urgent(desk, "alpha")
    out = desk.json("tick", "--execute", DESKD_HOST_NAME="build")
    assert out["launched"] == []  # handed to gpu, which is not this host
    (attempt,) = out["actions"]
    refused = desk.run(
        "agent", "run", "--attempt", str(attempt["attempt_id"]), "--json", DESKD_HOST_NAME="build"
    )
    assert refused.exit_code == 1
    assert "bound to host gpu" in refused.error()["message"]
    board = desk.json("status", DESKD_HOST_NAME="build")
    hosts = {h["name"]: h for h in board["hosts"]}
    assert hosts["build"]["ticks"] == 1 and hosts["build"]["stale"] is False
    assert hosts["gpu"]["last_tick_at"] is None and hosts["gpu"]["roles"] == ["alpha"]
