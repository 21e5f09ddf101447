"""DESKD_CONFIG_MODULE: a host module in the desk folder whose configure_deskd() calls
deskd.config.configure(...) extends the desk file; conflicts name both places; a module that
fails is one clear line (lesson 50)."""

from __future__ import annotations

import itertools
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import Desk
from deskd.config.host import load_config_module

_names = itertools.count()


@pytest.fixture(autouse=True)
def _restore_imports(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Each test's host module is new: undo sys.path and sys.modules changes afterwards."""
    monkeypatch.setattr(sys, "path", list(sys.path))
    before = set(sys.modules)
    yield
    for name in set(sys.modules) - before:
        if name.startswith("deskd_host_"):
            del sys.modules[name]
    load_config_module(None, desk_home=Path("."))  # forget what the host module configured


def _host_module(desk: Desk, body: str) -> str:
    name = f"deskd_host_{next(_names)}_{abs(hash(str(desk.home))) % 10**6}"
    (desk.home / f"{name}.py").write_text(textwrap.dedent(body), encoding="utf-8")
    return name


ADDS_DELTA = """
    import deskd.config

    def configure_deskd():
        deskd.config.configure(
            roles=[{"name": "delta", "title": "Delta"}],
            desk={"inbox_batch": "5m"},
        )
"""


def test_it_adds_host_roles_the_cli_can_use(desk: Desk) -> None:
    module = _host_module(desk, ADDS_DELTA)
    out = desk.json(
        "inbox", "enqueue", "--for", "delta", "--source", "alert", "--title", "x",
        DESKD_CONFIG_MODULE=module,
    )  # fmt: skip
    assert out == {"id": 1, "deduped": False}
    listed = desk.json("inbox", "list", role="delta", DESKD_CONFIG_MODULE=module)
    assert [i["id"] for i in listed] == [1]
    conn = desk.db()
    roles = [r[0] for r in conn.execute("SELECT name FROM roles WHERE enabled = 1 ORDER BY name")]
    assert roles == ["alpha", "beta", "delta", "gamma"]


def test_it_forgets_host_roles_when_the_module_is_unset(desk: Desk) -> None:
    module = _host_module(desk, ADDS_DELTA)
    desk.ok("inbox", "list", "--for", "delta", DESKD_CONFIG_MODULE=module)
    out = desk.run("inbox", "list", "--for", "delta")
    assert out.stderr == "deskd: unknown role 'delta' (roles: alpha, beta, gamma)\n"


def test_it_merges_desk_settings_the_file_leaves_out(desk: Desk) -> None:
    from deskd.config.desk_file import load_desk
    from deskd.config.settings_model import validate_settings

    module = _host_module(desk, ADDS_DELTA)
    settings = validate_settings({"DESKD_HOME": str(desk.home), "DESKD_CONFIG_MODULE": module})
    host = load_config_module(settings.config_module, desk_home=settings.home)
    loaded = load_desk(settings.desk_path, host=host)
    assert loaded.section.inbox_batch == 300
    assert loaded.role_names == ["alpha", "beta", "delta", "gamma"]


@pytest.mark.parametrize(
    ("configure", "what"),
    [
        ('roles=[{"name": "alpha"}]', "role 'alpha'"),
        ('desk={"timezone": "UTC"}', "desk.timezone"),
        ('desk={"inbox_sources": ["alert"]}', "desk.inbox_sources"),
    ],
)
def test_it_refuses_what_both_places_define_naming_both(
    desk: Desk, configure: str, what: str
) -> None:
    module = _host_module(
        desk,
        f"""
        import deskd.config

        def configure_deskd():
            deskd.config.configure({configure})
        """,
    )
    out = desk.run("inbox", "list", "--for", "beta", DESKD_CONFIG_MODULE=module)
    assert out.exit_code == 1
    assert out.stderr.startswith(f"deskd: {what} is defined twice")
    assert "deskd.toml" in out.stderr and module in out.stderr
    assert out.stderr.count("\n") == 1


def test_it_validates_host_roles_like_file_roles(desk: Desk) -> None:
    module = _host_module(
        desk,
        """
        import deskd.config

        def configure_deskd():
            deskd.config.configure(roles=[{"name": "supervisor"}])
        """,
    )
    out = desk.run("ledger", DESKD_CONFIG_MODULE=module)
    assert out.exit_code == 1
    assert "'supervisor' is reserved" in out.stderr


FAILING = {
    "missing module": (None, "cannot import"),
    "raises on import": (
        "raise RuntimeError('no database url\\nset MYAPP_DB')\n",
        "no database url",
    ),
    "syntax error": ("def configure_deskd(:\n    pass\n", "cannot import"),
    "no configure_deskd": ("X = 1\n", "has no configure_deskd()"),
    "configure_deskd raises": (
        "def configure_deskd():\n    raise KeyError('MYAPP_HOME')\n",
        "configure_deskd() failed",
    ),
}


@pytest.mark.parametrize(("body", "reason"), FAILING.values(), ids=FAILING.keys())
def test_it_reports_a_failing_module_in_one_line(desk: Desk, body: str | None, reason: str) -> None:
    module = "deskd_host_absent" if body is None else _host_module(desk, body)
    out = desk.run("inbox", "list", "--for", "alpha", DESKD_CONFIG_MODULE=module)
    assert out.exit_code == 1
    assert out.stderr.startswith("deskd: DESKD_CONFIG_MODULE: ")
    assert reason in out.stderr and module in out.stderr
    assert out.stderr.count("\n") == 1, out.stderr
    assert "Traceback" not in out.stderr
    out = desk.run("inbox", "list", "--for", "alpha", "--json", DESKD_CONFIG_MODULE=module)
    assert out.error()["code"] == "invalid_setting"
