"""A desk of many agents on several hosts, on one PostgreSQL: directly, and through PgBouncer.

Each run starts a throwaway cluster with ``--max-connections``, optionally PgBouncer in
transaction pooling in front of it, a desk folder per simulated host, and ``--roles`` roles
(bound to the hosts in turn) served by the simulated ``claude -p`` in its ``long`` mode
(``--tools`` tool calls ``--every`` seconds apart, each calling the session hook); every
role gets an urgent item at once, each host ticks every ``--tick-every`` seconds and runs
``status``/``inbox enqueue`` beside it. Reported (harness.scale): launches, roles run,
duplicates (overlapping launches of one role), refused commands (any non-zero exit), hook
failures (lines in logs/hook.log), the peak of server connections to the desk's database,
tick and hook p50/p99 (ms).

Goals: every role runs, 0 refused, 0 hook failures, 0 duplicates, peak server connections
≤ 30 with ``--max-connections 40``, directly and through the pooler.

    .venv/bin/python bench/scale.py --hosts 3 --roles 200 --max-connections 40 \\
        --pooler none transaction [--json]

``--race`` runs the other goal instead (harness.race): ``--rounds`` rounds of ``--ticks``
executing ticks started at once over the hosts, each round after one more urgent item, the
launched agents still running while later rounds race. Goal: exactly one launch a round, no
lease left behind but the live agents' role leases, no launch ended other than finished.

    .venv/bin/python bench/scale.py --race --hosts 3 --ticks 24 --rounds 5 --pooler transaction
"""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict

from harness.scale import Scale, run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hosts", type=int, default=3)
    parser.add_argument("--roles", type=int, default=50)
    parser.add_argument("--max-connections", type=int, default=40)
    parser.add_argument("--pooler", nargs="+", default=["none", "transaction"])
    parser.add_argument("--pool-size", type=int, default=20)
    # docs/operations.md's PgBouncer configuration ("A large desk behind PgBouncer")
    parser.add_argument("--reserve-pool-size", type=int, default=5)
    parser.add_argument("--query-wait-timeout", type=int, default=30)
    parser.add_argument("--tools", type=int, default=4)
    parser.add_argument("--every", type=float, default=5.0)
    parser.add_argument("--tick-every", type=float, default=10.0)
    parser.add_argument("--give-up", type=float, default=900.0, help="seconds per wave")
    parser.add_argument(
        "--server-nice",
        type=int,
        default=0,
        help="nice value of the server and the pooler (e.g. -10: as on a machine of their own)",
    )
    parser.add_argument(
        "--executor-connections", default="", help="each host's DESKD_EXECUTOR_CONNECTIONS"
    )
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--race", action="store_true", help="racing ticks instead of a wave")
    parser.add_argument("--ticks", type=int, default=24)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    if args.race:
        race(args)
        return
    reports = []
    for pooler in args.pooler:
        scale = Scale(
            hosts=args.hosts,
            roles=args.roles,
            max_connections=args.max_connections,
            pooler=pooler,
            pool_size=args.pool_size,
            reserve_pool_size=args.reserve_pool_size,
            query_wait_timeout=args.query_wait_timeout,
            tools=args.tools,
            tool_every_s=args.every,
            tick_every_s=args.tick_every,
            give_up_s=args.give_up,
            server_nice=args.server_nice,
            executor_connections=args.executor_connections,
        )
        reports.append(asdict(run(scale)))
    if args.json:
        print(json.dumps(reports, indent=2))
        return
    keys = (
        "launches",
        "roles_run",
        "duplicates",
        "refused",
        "hook_failures",
        "peak_connections",
        "tick_ms_p50",
        "tick_ms_p99",
        "hook_ms_p50",
        "hook_ms_p99",
        "seconds",
        "relays",
        "peak_running",
    )
    print("| pooler | " + " | ".join(keys) + " |")
    print("|---" * (len(keys) + 1) + "|")
    for r in reports:
        print(f"| {r['scale']['pooler']} | " + " | ".join(str(r[k]) for k in keys) + " |")
        for line in r["refusals"]:
            print(f"  refused: {line}")
        for line in r["hook_samples"]:
            print(f"  hook: {line}")
        for kind, n in sorted(r["hook_failure_kinds"].items(), key=lambda kv: -kv[1]):
            print(f"  hook failures ({n}): {kind}")
        print(f"  waits: {json.dumps(r['waits'])}")


def race(args: argparse.Namespace) -> None:
    from harness.race import Race
    from harness.race import run as run_race

    for pooler in args.pooler:
        report = run_race(
            Race(
                hosts=args.hosts,
                ticks=args.ticks,
                rounds=args.rounds,
                pooler=pooler,
                pool_size=args.pool_size,
                max_connections=args.max_connections,
                tools=args.tools,
                tool_every_s=args.every,
                give_up_s=args.give_up,
            )
        )
        print(json.dumps(asdict(report), indent=None if args.json else 2))


if __name__ == "__main__":
    main()
