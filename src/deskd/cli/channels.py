"""``deskd channels [test NAME]``: where pages go, whether each URL looks reachable."""

from __future__ import annotations

import click

from deskd.cli.common import desk_context, emit, json_option, table


@click.group(invoke_without_command=True)
@click.option("--no-check", is_flag=True, help="Skip the reachability probe (no network).")
@json_option
@click.pass_context
def channels(ctx: click.Context, no_check: bool, as_json: bool) -> None:
    """Configured channels (URLs masked), the roles they serve, and a reachability check.

    Channels come from [[channels]] in deskd.toml and DESKD_NOTIFY_URLS (paged for every
    role). The check asks apprise whether it can read each URL and whether the service's
    host answers on TCP; `deskd channels test NAME` really sends.

    \b
    Examples:
      deskd channels
      deskd channels --no-check --json
      deskd channels test ops
    """
    if ctx.invoked_subcommand is not None:
        return
    from deskd.service.paging.channels import channel_views

    with desk_context() as dctx:
        rows = channel_views(dctx.settings, dctx.desk, check=not no_check)

    def human() -> None:
        if not rows:
            click.echo(
                "no channels: pages wait in the outbox (`deskd pages`); add [[channels]] to "
                "deskd.toml or set DESKD_NOTIFY_URLS"
            )
            return
        lines = []
        for r in rows:
            for u in r["urls"] or [{"url": f"config {r['apprise_config']}", "missing": []}]:
                check = u.get("check") or r.get("config_check") or ""
                if u["missing"]:
                    check = "not set: " + ", ".join(u["missing"])
                url = u["url"] or "(not shown to agents)"
                lines.append((r["name"], url, ",".join(r["roles"]) or "-", check))
        table(lines, ["channel", "url", "roles", "check"])

    emit(rows, as_json, human)


@channels.command("test")
@click.argument("name")
@json_option
def test(name: str, as_json: bool) -> None:
    """Send a test message on channel NAME and show each URL's result.

    \b
    Examples:
      deskd channels test ops
      deskd channels test DESKD_NOTIFY_URLS --json
    """
    from deskd.service.paging.channels import send_test

    with desk_context() as dctx:
        if dctx.settings.role:  # a real page reaches people: an agent asks with `deskd page`
            from deskd.errors import PeopleCommand

            raise PeopleCommand("deskd channels test", "an agent asks a person with `deskd page`")
        out = send_test(dctx.settings, dctx.desk, name)

    def human() -> None:
        click.echo(f"test page on {name}: {out['status']}")
        table(
            [(c["url"] or "-", c["status"], c["error"] or "") for c in out["channels"]],
            ["url", "status", "error"],
        )

    emit(out, as_json, human)
    if out["status"] == "failed":
        raise SystemExit(1)
