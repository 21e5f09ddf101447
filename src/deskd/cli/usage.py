"""``deskd usage``: what the desk's launches used, as their agent CLIs reported it; ``deskd
budget``: each budget's use, limit and reserve, and whether it holds launches."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import click

from deskd.cli.common import Command, on_desk
from deskd.cli.output import emit, emit_table, table
from deskd.service.engine.budgets import budget_report


@click.command(cls=Command)
@click.option(
    "--by", default="role", show_default=True, help="Sum by role, day (the desk's) or model."
)
@click.option(
    "--since",
    default=None,
    metavar="WHEN",
    help="From this long ago (24h, 30d) or this time (2026-12-01); default: the last 7 days.",
)
def usage(by: str, since: str | None, as_json: bool) -> None:
    """Tokens and cost of the launches that finished since WHEN, summed by role, day or model.

    The figures are what each agent CLI reported on its launch: input, output, cache-read
    and cache-write tokens, the model, and the cost where the CLI gives one (docs/contract.md
    "Usage"). A "-" is a figure no launch reported, not zero. Days follow the desk's time
    zone; `--by day` has a row per day and role.

    Examples:
      deskd usage
      deskd usage --by day --since 30d
      deskd usage --by model --since 2026-12-01 --json
    """
    from deskd.service.ops.usage import usage_report

    out = on_desk(usage_report, by=by, since=since)
    keys = ["day", "role"] if out["by"] == "day" else [out["by"]]
    rows = [_row(r, keys) for r in out["rows"]]
    if rows:
        rows.append(_row({**dict.fromkeys(keys, ""), keys[0]: "total"} | out["total"], keys))
    emit_table(
        out,
        as_json,
        rows,
        [*keys, "launches", "input", "output", "cache read", "cache write", "tokens", "cost"],
        empty=f"no launch finished since {out['since']}",
    )


def _row(r: Mapping[str, Any], keys: list[str]) -> tuple[Any, ...]:
    figures = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")
    cost = "-" if r["cost_usd"] is None else f"${r['cost_usd']:.4f}"
    return (
        *("-" if r[k] is None else r[k] for k in keys),
        r["launches"],
        *("-" if r[f] is None else f"{r[f]:,}" for f in figures),
        f"{r['tokens']:,}",
        cost,
    )


@click.command(cls=Command)
def budget(as_json: bool) -> None:
    """Show each budget of the desk file: used (with what running launches are expected to
    use), limit, reserve, whether it is holding launches, and when it frees.

    Raise a limit by editing deskd.toml: the next tick launches what it held.

    Examples:
      deskd budget
      deskd budget --json
    """
    rows = on_desk(budget_report)

    def human() -> None:
        table(
            [
                (
                    r["budget"],
                    f"{r['used'] + r['running']:,.2f}"
                    if r["unit"] == "usd"
                    else f"{r['used'] + r['running']:,.0f}",
                    f"{r['limit']:,.2f} $" if r["unit"] == "usd" else f"{r['limit']:,.0f} tokens",
                    f"+{r['reserve']:.0%}",
                    (f"holding {r['held']}", "red") if r["holding"] else "no",
                    r["frees"],
                )
                for r in rows
            ],
            ["BUDGET", "USED", "LIMIT", "RESERVE", "HOLDING", "FREES AT"],
            empty="no budgets: add [budget] or budget = {…} on a role in deskd.toml",
        )

    emit(rows, as_json, human)
