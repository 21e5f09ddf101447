"""``deskd metrics``: the desk's Prometheus metrics, printed once (for node_exporter)."""

from __future__ import annotations

import click

from deskd.cli.common import on_desk


@click.command()
def metrics() -> None:
    """Print the desk's metrics in Prometheus' text format, read from the database now.

    The same text `deskd serve` answers on /metrics, for hosts that run only the cron tick:
    node_exporter's textfile collector reads a file this command writes. Write it to a
    temporary name and rename it, so the collector never reads half a file.

    \b
    Examples:
      deskd metrics
      deskd metrics > /var/lib/node_exporter/textfile/deskd.prom.$$ &&
        mv /var/lib/node_exporter/textfile/deskd.prom.$$ /var/lib/node_exporter/textfile/deskd.prom
    """
    from deskd.service.ops.metrics import render

    text = on_desk(render)
    click.echo(text.decode("utf-8"), nl=False)
