"""Noise control: silences and quiet hours hold only non-urgent pages, visibly, until they end."""

from __future__ import annotations

from pager_helpers import desk_with, enqueue, http_receiver, page_rows

from conftest import Desk


def test_a_silence_holds_non_urgent_pages_and_lets_urgent_ones_through(desk: Desk) -> None:
    with http_receiver() as rx:
        desk.write_desk(desk_with({"ops": [rx.url()]}, default=["ops"]))
        silence = desk.json(
            "silence", "add", "--role", "alpha", "--for", "2h", "--reason", "deploy window"
        )
        enqueue(desk, "alpha", priority="high", title="slow queries")
        enqueue(desk, "beta", priority="high", title="other role")
        desk.advance(minutes=4)
        desk.json("tick", "--execute")
        assert rx.got and all("beta" in t for t in rx.titles)  # beta is not silenced
        held = next(p for p in desk.json("pages") if p["role"] == "alpha")
        assert held["status"] == "held"
        assert held["why"] == f"silenced (silence {silence['id']}): deploy window"
        assert held["held_until"] == silence["until"]
        human = desk.ok("pages").stdout
        assert "held" in human and "deploy window until" in human

        enqueue(desk, "alpha", priority="urgent", title="site down")
        desk.advance(minutes=1)
        desk.json("tick", "--execute")
        follow = [p for p in desk.json("pages") if p["kind"] == "follow_up"]
        assert [p["status"] for p in follow] == ["sent"]  # urgent goes out despite the silence
        assert any(t.startswith("follow-up: deskd: alpha") for t in rx.titles)


def test_a_held_page_goes_out_when_the_silence_ends_early_or_expires(desk: Desk) -> None:
    with http_receiver() as rx:
        desk.write_desk(desk_with({"ops": [rx.url()]}, default=["ops"]))
        first = desk.json("silence", "add", "--role", "alpha", "--for", "1h", "--reason", "r1")
        desk.json("silence", "add", "--role", "gamma", "--for", "1h", "--reason", "r2")
        enqueue(desk, "alpha", priority="normal")
        enqueue(desk, "gamma", priority="normal")
        desk.advance(minutes=4)
        desk.json("tick", "--execute")
        assert rx.got == []
        assert [s["role"] for s in desk.json("silence", "list")] == ["alpha", "gamma"]
        ended = desk.json("silence", "end", str(first["id"]))
        assert ended["live"] is False and ended["pages_released"] == 1
        desk.advance(minutes=1)
        desk.json("tick", "--execute")
        assert len(rx.got) == 1 and "alpha" in rx.titles[0]
        desk.advance(minutes=56)
        desk.json("tick", "--execute")
        assert len(rx.got) == 2 and "gamma" in rx.titles[1]
    assert [s["role"] for s in desk.json("silence", "list")] == []
    assert len(desk.json("silence", "list", "--all")) == 2


def test_quiet_hours_hold_non_urgent_pages_on_that_channel_only(desk: Desk) -> None:
    # 09:00 in America/New_York: inside "08:00-10:00" for the pager channel only.
    with http_receiver() as rx:
        desk.write_desk(
            desk_with(
                {"pager": [rx.url("pager")], "chat": [rx.url("chat")]},
                default=["pager", "chat"],
                extra={"pager.quiet": '"08:00-10:00"'},
            )
        )
        enqueue(desk, "alpha", priority="high")
        enqueue(desk, "beta", priority="urgent")
        desk.advance(minutes=4)
        desk.json("tick", "--execute")
        assert sorted(rx.paths) == ["/chat", "/chat", "/pager"]  # beta's urgent page: both
        alpha = next(p for p in desk.json("pages") if p["role"] == "alpha")
        assert alpha["status"] == "partial"
        pager = next(c for c in alpha["channels"] if c["name"] == "pager")
        assert pager["status"] == "held" and pager["why"] == "quiet hours on pager (08:00-10:00)"
        assert pager["until"] == "2026-12-01T15:00:00Z" == alpha["held_until"]
        desk.advance(minutes=30)
        desk.json("tick", "--execute")
        assert len(rx.got) == 3
        desk.advance(minutes=30)
        desk.json("tick", "--execute")
        assert sorted(rx.paths) == ["/chat", "/chat", "/pager", "/pager"]
    alpha = next(p for p in desk.json("pages") if p["role"] == "alpha")
    assert alpha["status"] == "sent"


def test_silences_are_for_people_and_refuse_bad_values(desk: Desk) -> None:
    out = desk.run(
        "silence", "add", "--role", "alpha", "--for", "1h", "--reason", "x", role="alpha"
    )
    assert out.exit_code == 1 and "for people" in out.stderr
    out = desk.run("silence", "add", "--role", "alpha", "--for", "soon", "--reason", "x")
    assert out.exit_code == 1 and "--for" in out.stderr
    out = desk.run("silence", "add", "--role", "nobody", "--for", "1h", "--reason", "x")
    assert out.exit_code == 1 and "unknown role" in out.stderr
    out = desk.run("silence", "end", "99")
    assert out.exit_code == 1 and "no silence 99" in out.stderr
    assert page_rows(desk) == []
