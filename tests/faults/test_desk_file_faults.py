"""A desk file that is not UTF-8, is UTF-16, or nests 100,000 deep is refused with the file and
the reason (exit 1) — by every command and by `deskd doctor` — never a traceback."""

from __future__ import annotations

import json

import pytest

from conftest import DESK_TOML, Desk

BAD = {
    "latin-1": ("# caf\xe9\n" + DESK_TOML).encode("latin-1"),
    "utf-16": DESK_TOML.encode("utf-16"),
    "deep-array": b"x = " + b"[" * 100_000 + b"]" * 100_000 + b"\n",
    "deep-table": b"x = " + b"{a = " * 100_000 + b"1" + b"}" * 100_000 + b"\n",
    "nul": DESK_TOML.encode() + b"\x00\n",
}
REASONS = {
    "latin-1": "not UTF-8",
    "utf-16": "UTF-16",
    "deep-array": "nested too deeply",
    "deep-table": "nested too deeply",
    "nul": "not valid TOML",
}


@pytest.mark.parametrize("kind", sorted(BAD))
def test_a_broken_desk_file_is_refused_with_the_file_and_reason(desk: Desk, kind: str) -> None:
    (desk.home / "deskd.toml").write_bytes(BAD[kind])
    for args in (("status",), ("inbox", "list", "--for", "alpha")):
        out = desk.run(*args)
        assert out.exit_code == 1, (out.exit_code, out.stderr[-2000:])
        assert out.stderr.startswith("deskd: deskd.toml: "), out.stderr[:500]
        assert REASONS[kind] in out.stderr
        assert "Traceback" not in out.stderr
    doctor = desk.run("doctor", "--json")
    assert doctor.exit_code == 1
    checks = {c["name"]: c for c in json.loads(doctor.stdout)["checks"]}
    assert checks["desk file"]["ok"] is False
    assert REASONS[kind] in checks["desk file"]["detail"]
