"""``deskd budget``: each budget's use, limit and reserve, and whether it holds launches."""

from __future__ import annotations

import click

from deskd.cli.common import Command, on_desk
from deskd.cli.output import emit, table
from deskd.service.engine.budgets import budget_report


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
