"""``deskd ask`` / ``deskd answer`` / ``deskd questions``: decisions agents wait on."""

from __future__ import annotations

import click

from deskd.cli.common import ID, emit, emit_table, json_option, on_desk
from deskd.cli.output import cells


@click.command()
@click.argument("text")
@click.option("--options", help="The choices, comma-separated (e.g. yes,no).")
@click.option("--from", "role", help="The role asking (default: DESKD_ROLE).")
@json_option
def ask(text: str, options: str | None, role: str | None, as_json: bool) -> None:
    """Ask a person to decide, and wait: prints the question's id.

    The question is paged at once like `deskd page` (routing, quiet hours, silences; it climbs
    while unanswered) and blocks your task in progress (`blocked on question N`). The answer
    comes back as an urgent item from the person, and wakes you with it in the prompt; after
    24 h without one it comes back as "no answer".

    \b
    Examples:
      deskd ask "deploy v2 to production?" --options yes,no
      deskd ask "which branch should the fix go to?"          # answered in words
    """
    from deskd.service.engine.questions import ask as do_ask

    out = on_desk(do_ask, text, options=options, role=role)
    blocked = f"; task {out['task_id']} is blocked on it" if out["task_id"] else ""
    emit(
        out, as_json, f"{out['id']}\nquestion {out['id']} asked{blocked}; wait for the answer item"
    )


@click.command()
@click.argument("question_id", type=ID)
@click.argument("answer")
@json_option
def answer(question_id: int, answer: str, as_json: bool) -> None:
    """Answer an agent's question: one of its options, or words when it offered none.

    \b
    Examples:
      deskd answer 7 yes
      deskd answer 8 "the release branch"
    """
    from deskd.service.engine.questions import answer as do_answer

    out = on_desk(do_answer, question_id, answer)
    emit(out, as_json, f"question {question_id} answered: {out['answer']}")


@click.command()
@json_option
def questions(as_json: bool) -> None:
    """Questions agents asked, newest first: open, answered or expired, and the answer.

    \b
    Examples:
      deskd questions
      deskd questions --json
    """
    from deskd.service.engine.questions import questions as list_questions

    rows = on_desk(list_questions)
    emit_table(
        rows,
        as_json,
        cells(rows, "id role state text options answer"),
        ["id", "role", "state", "question", "options", "answer"],
        empty="no questions",
    )
