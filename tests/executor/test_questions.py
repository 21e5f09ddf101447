"""`deskd ask` / `deskd answer`: an agent asks, a person answers (by a page's link, or the
shell), and the same session is resumed with the answer within one tick; a question nobody
answers goes back as "no answer"; a bad answer changes nothing."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from fastapi.testclient import TestClient

from conftest import Desk, urgent

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "web"))
from web_helpers import make_app

from pager_helpers import desk_with, http_receiver  # isort: skip
from test_executor import fake, launches  # noqa: F401  # isort: skip  (``fake``: a fixture)

URL = "https://deskd.example.com"


def parked_session(desk: Desk, channel: str) -> str:
    """alpha worked once (a spawn) and rests: its session is the one to resume."""
    desk.extra["DESKD_CONSOLE_URL"] = URL
    desk.write_desk(desk_with({"ops": [channel]}, default=["ops"], short_ladder=False))
    urgent(desk, title="first")
    out = desk.json("tick", "--execute", "--wait")
    (launched,) = out["launched"]
    desk.ok("inbox", "ack", "--for", "alpha", "--seen")
    desk.advance(minutes=1)
    desk.json("tick", "--execute", "--wait")
    with desk.db() as conn:
        row = conn.execute(
            "SELECT session_id FROM attempts WHERE id = ?", (launched["attempt_id"],)
        ).fetchone()
    return str(row[0])


def task_in_progress(desk: Desk) -> int:
    task = desk.json("task", "add", "ship v2", "--for", "alpha", role="alpha")
    desk.ok("task", "update", str(task["id"]), "--status", "in_progress", role="alpha")
    return int(task["id"])


def test_an_answer_by_link_resumes_the_same_session_with_it_within_one_tick(
    desk: Desk,
    fake: Path,  # noqa: F811  (the fixture imported above)
) -> None:
    with http_receiver() as rx:
        sid = parked_session(desk, rx.url())
        task_id = task_in_progress(desk)
        asked = desk.json("ask", "deploy v2 to production?", "--options", "yes,no", role="alpha")
        (_, body) = rx.got[-1]
    qid = asked["id"]
    assert asked["task_id"] == task_id
    (task,) = desk.json("task", "list", "--for", "alpha")
    assert (task["status"], task["blocked_on"]) == ("blocked", f"question {qid}")
    assert f"deskd answer {qid} yes|no" in body["message"]
    links = dict(
        re.findall(r"^Answer '(\w+)': https://deskd\.example\.com(/\S+)$", body["message"], re.M)
    )
    assert sorted(links) == ["no", "yes"]
    with TestClient(make_app(desk, clock=lambda: desk.now_ms)) as http:
        assert "Answer &#39;yes&#39;" in http.get(links["yes"]).text  # a preview: nothing acts
        assert desk.json("questions")[0]["state"] == "open"
        done = http.post(links["yes"])
        assert done.status_code == 200 and f"answered question {qid}: yes" in done.text
        assert http.post(links["no"]).status_code == 409  # answered once, for good
    out = desk.json("tick", "--execute", "--wait")
    assert [(a["rung"], a["session_id"]) for a in out["actions"]] == [("resume", sid)]
    argv = launches(fake)[-1]
    assert f"answer to question {qid}: yes" in argv[argv.index("-p") + 1]
    (question,) = desk.json("questions")
    assert (question["state"], question["answer"], question["answered_by"]) == (
        "answered", "yes", "supervisor",
    )  # fmt: skip
    (task,) = desk.json("task", "list", "--for", "alpha")
    assert (task["status"], task["blocked_on"]) == ("in_progress", None)


def test_a_bad_or_second_answer_changes_nothing_and_an_agent_cannot_answer(desk: Desk) -> None:
    desk.write_desk(desk_with({}))
    qid = desk.json("ask", "merge #12?", "--options", "yes,no", role="alpha")["id"]
    before = desk.dump()
    bad = desk.run("answer", str(qid), "maybe")
    assert bad.exit_code == 1 and "choose one of: yes, no" in bad.stderr
    agent = desk.run("answer", str(qid), "yes", role="alpha")
    assert agent.exit_code == 1 and "for people" in agent.stderr
    missing = desk.run("answer", "999", "yes")
    assert missing.exit_code == 1 and "no question 999" in missing.stderr
    refused = desk.run("ask", "which?", "--options", "a", role="alpha")
    assert refused.exit_code == 1 and "2 to 10 different choices" in refused.stderr
    assert desk.dump() == before
    desk.ok("answer", str(qid), "YES")
    after = desk.dump()
    again = desk.run("answer", str(qid), "no")
    assert again.exit_code == 1 and "answered already" in again.stderr
    assert desk.dump() == after
    item = desk.json("inbox", "list", "--for", "alpha")[0]
    assert (item["title"], item["priority"], item["source"]) == (
        f"answer to question {qid}: yes", "urgent", "operator",
    )  # fmt: skip


def test_an_unanswered_question_goes_back_as_no_answer(desk: Desk) -> None:
    desk.write_desk(desk_with({}))
    qid = desk.json("ask", "rotate the keys?", role="alpha")["id"]
    desk.advance(hours=23, minutes=59)
    desk.json("tick", "--execute")
    assert desk.json("questions")[0]["state"] == "open"
    desk.advance(minutes=1)
    desk.json("tick", "--execute")
    (question,) = desk.json("questions")
    assert (question["state"], question["answer"]) == ("expired", "no answer")
    titles = [i["title"] for i in desk.json("inbox", "list", "--for", "alpha")]
    assert f"answer to question {qid}: no answer" in titles
