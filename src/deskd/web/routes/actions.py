"""Supervisor actions: each a POST through the same services as the CLI, acting as
``supervisor`` (every service records its event with that actor). A refusal changes
nothing and comes back as the service's own sentence with a 4xx status."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import quote

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse, RedirectResponse, Response

from deskd.core.values import SUPERVISOR
from deskd.service.desk import pauses
from deskd.service.desk.context import DeskContext
from deskd.service.engine import hooks, questions, wake
from deskd.service.ops import supervisor
from deskd.service.paging import silences
from deskd.service.paging.channels import send_test
from deskd.service.work import tasks
from deskd.web.auth.guard import Principal, actor, desk_of, safe_next, wants_json
from deskd.web.console import as_int

router = APIRouter(prefix="/actions")
Action = Callable[[DeskContext, dict[str, str]], tuple[str, Any]]


def _run(request: Request, action: Action, who: Principal) -> Response:
    """Run one action for the supervisor; answer JSON or send the browser back. Its events
    say how the supervisor was authenticated (stamped in each write's own transaction)."""
    form: dict[str, str] = request.state.form
    with desk_of(request) as ctx:
        ctx.auth = who.auth
        sentence, result = action(ctx, form)
    if wants_json(request):
        return JSONResponse({"ok": True, "message": sentence, "result": result})
    back = safe_next(form.get("back"))
    joiner = "&" if "?" in back else "?"
    return RedirectResponse(f"{back}{joiner}done={quote(sentence)}", status_code=303)


def _send(ctx: DeskContext, form: dict[str, str]) -> tuple[str, Any]:
    to = [r.strip() for r in form.get("to", "").replace(" ", ",").split(",") if r.strip()]
    result = supervisor.send(
        ctx,
        to=to,
        title=form.get("title", ""),
        body=form.get("body", ""),
        priority=form.get("priority") or "normal",
    )
    items = ", ".join(f"item {i['id']} to {i['to']}" for i in result["items"])
    return f"sent {items}", result


def _ack(ctx: DeskContext, form: dict[str, str]) -> tuple[str, Any]:
    attempt = as_int(form.get("attempt"), "attempt")
    result = wake.ack(ctx, attempt, note=form.get("note", ""))
    return f"acknowledged attempt {attempt} until {result['ack_until']}", result


def _answer(ctx: DeskContext, form: dict[str, str]) -> tuple[str, Any]:
    question = as_int(form.get("question"), "question")
    result = questions.answer(ctx, question, form.get("answer", ""), how="from the console")
    return f"answered question {question}: {result['answer']}", result


def _pause(ctx: DeskContext, form: dict[str, str]) -> tuple[str, Any]:
    role = form.get("role") or None
    pause_id = pauses.pause(ctx, role=role, reason=form.get("reason", ""))
    return f"paused {'role ' + role if role else 'the desk'}", {"id": pause_id}


def _resume(ctx: DeskContext, form: dict[str, str]) -> tuple[str, Any]:
    role = form.get("role") or None
    ended = pauses.resume(ctx, role=role)
    who = "role " + role if role else "the desk"
    return (f"resumed {who}" if ended else f"{who} was not paused"), {"ended": ended}


def _silence(ctx: DeskContext, form: dict[str, str]) -> tuple[str, Any]:
    result = silences.add(
        ctx,
        role=form.get("role", ""),
        duration=form.get("duration", ""),
        reason=form.get("reason", ""),
    )
    return f"silenced {result['role']} until {result['until_local']}", result


def _silence_end(ctx: DeskContext, form: dict[str, str]) -> tuple[str, Any]:
    result = silences.end(ctx, as_int(form.get("id"), "silence"))
    return f"ended silence {result['id']}", result


def _hook_cancel(ctx: DeskContext, form: dict[str, str]) -> tuple[str, Any]:
    result = hooks.cancel_hook(ctx, as_int(form.get("id"), "hook"), by=SUPERVISOR)
    return f"cancelled hook {result['id']}", result


def _task_reassign(ctx: DeskContext, form: dict[str, str]) -> tuple[str, Any]:
    task_id = as_int(form.get("id"), "task")
    update = tasks.TaskUpdate(role=form.get("role") or None, note=form.get("note") or None)
    result = tasks.update_task(ctx, task_id, update, by=None)
    return f"task {task_id} is now {result['role']}'s", result


def _task_cancel(ctx: DeskContext, form: dict[str, str]) -> tuple[str, Any]:
    task_id = as_int(form.get("id"), "task")
    update = tasks.TaskUpdate(status="cancelled", note=form.get("note") or None)
    result = tasks.update_task(ctx, task_id, update, by=None)
    return f"cancelled task {task_id}", result


def _meeting_post(ctx: DeskContext, form: dict[str, str]) -> tuple[str, Any]:
    meeting = as_int(form.get("meeting"), "meeting")
    result = supervisor.meeting_post(ctx, meeting, form.get("body", ""))
    return f"said message {result['message_id']} in meeting {meeting}", result


def _meeting_close(ctx: DeskContext, form: dict[str, str]) -> tuple[str, Any]:
    meeting = as_int(form.get("meeting"), "meeting")
    result = supervisor.meeting_close(ctx, meeting, form.get("resolution", ""))
    return f"closed meeting {meeting}", result


def _channel_test(ctx: DeskContext, form: dict[str, str]) -> tuple[str, Any]:
    result = send_test(ctx.settings, ctx.desk, form.get("name", ""))
    return f"test on {result['name']}: {result['status']}", result


ACTIONS: dict[str, Action] = {
    "send": _send,
    "wake-ack": _ack,
    "answer": _answer,
    "pause": _pause,
    "resume": _resume,
    "silence": _silence,
    "silence-end": _silence_end,
    "hook-cancel": _hook_cancel,
    "task-reassign": _task_reassign,
    "task-cancel": _task_cancel,
    "meeting-post": _meeting_post,
    "meeting-close": _meeting_close,
    "channel-test": _channel_test,
}


def _route(name: str, action: Action) -> None:
    def endpoint(request: Request, who: Principal = Depends(actor)) -> Response:
        return _run(request, action, who)

    endpoint.__name__ = "action_" + name.replace("-", "_")
    router.add_api_route(f"/{name}", endpoint, methods=["POST"])


for _name, _action in ACTIONS.items():
    _route(_name, _action)
