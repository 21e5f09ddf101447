"""The scale bench's small version (bench/scale.py, bench/harness/scale.py): two hosts, a
few roles, simulated agents calling their session hook, through PgBouncer in transaction
pooling on a server with few connection slots. Every role runs once, nothing is refused,
no hook fails, and the server never sees more connections than the pool holds."""

from __future__ import annotations

import pytest
from test_pgbouncer import bouncer_root  # noqa: F401  (skips with the tier's reason)


@pytest.mark.slow
def test_a_small_desk_through_the_pooler_runs_every_role_once(
    bouncer_root: str,  # noqa: F811
) -> None:
    from harness.scale import Scale, run

    report = run(
        Scale(
            hosts=2,
            roles=4,
            max_connections=12,
            pooler="transaction",
            pool_size=3,
            tools=2,
            tool_every_s=0.5,
            tick_every_s=1.0,
            give_up_s=600,
        )
    )
    assert report.roles_run == 4, report
    assert report.launches == 4, report
    assert report.duplicates == 0, report
    assert report.refused == 0, report.refusals
    assert report.hook_failures == 0, report
    assert 0 < report.peak_connections <= 3, report
