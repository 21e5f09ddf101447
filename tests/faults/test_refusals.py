"""The refusals errors.py declares as data (``refusal_class``) behave as the classes they
replaced: each is named as it is imported, carries its code and exit code, and builds its
message from its fields."""

from __future__ import annotations

import pickle

import pytest

from deskd import errors


def test_every_refusal_is_named_as_it_is_imported_and_has_a_code() -> None:
    refusals = {
        name: value
        for name, value in vars(errors).items()
        if isinstance(value, type) and issubclass(value, errors.DeskdError)
    }
    assert len(refusals) > 60
    for name, refusal in refusals.items():
        assert (refusal.__name__, refusal.__qualname__, refusal.__module__) == (
            name,
            name,
            "deskd.errors",
        )
        assert refusal.code
    # pickled by reference, as a class statement's class is
    assert pickle.loads(pickle.dumps(errors.UnknownTask)) is errors.UnknownTask


def test_it_builds_the_message_from_the_fields_in_order_by_name_and_by_default() -> None:
    task = errors.UnknownTask(12)
    assert task.message == "no task 12 (see `deskd task list --all`)"
    assert (task.code, task.exit_code, task.task_id) == ("unknown_task", 1, 12)
    moved = errors.BadTransition(3, "done", "pending", allowed={"done"})
    assert moved.message == "task 3: done → pending is not allowed (from done: done)"
    assert errors.UnknownAttempt(4).message == "no attempt 4 (see `deskd wake list`)"
    seen = errors.UnknownAttempt(4, see="deskd wake list --open")
    assert seen.message == "no attempt 4 (see `deskd wake list --open`)"


def test_a_database_refusal_is_unavailable_and_exits_3() -> None:
    damaged = errors.DatabaseDamaged("/desk/data/deskd.db", "malformed")
    assert isinstance(damaged, errors.Unavailable)
    assert (damaged.code, damaged.exit_code) == ("database_damaged", 3)
    assert damaged.message.startswith("database /desk/data/deskd.db is damaged (malformed);")


def test_a_refusal_given_its_message_whole_takes_exactly_that_message() -> None:
    refused = errors.ConsoleRefused("the keys file is group-readable")
    assert (refused.message, refused.code) == ("the keys file is group-readable", "console_refused")
    with pytest.raises(TypeError, match="takes one message"):
        errors.ConsoleRefused("one", "two")
    with pytest.raises(TypeError, match="takes 1 arguments"):
        errors.UnknownTask(1, 2)
