"""The four model APIs' wire formats for the stand-ins (standins.py): per provider, its error
documents (with the reset header or field of a usage limit), its stream of server-sent events
for a text answer or one shell tool call, the usage each answer reports, and how a request
shows a tool result came back. It runs past 400 lines because the four providers' formats
belong side by side: a change to one (a field, a usage figure) is checked against the others.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any, NamedTuple

SHELL_TOOLS = ("Bash", "shell", "exec_command", "shell_command", "run_shell_command", "bash")
PROBE = "echo deskd-probe"


class Use(NamedTuple):
    """The usage one answer reports, by kind (apart: ``input`` excludes cache reads); each
    wire writes it its provider's way. Cache writes only the Messages API can say."""

    input: int = 1000
    output: int = 50
    cache_read: int = 200
    cache_write: int = 30


def sse(event: str | None, data: object) -> str:
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {json.dumps(data)}\n\n"


def pick_tool(names: list[str]) -> str | None:
    for wanted in SHELL_TOOLS:
        if wanted in names:
            return wanted
    return None


class Wire:
    """One provider's wire format: its error documents, its stream, its tool calls."""

    @staticmethod
    def error(status: int, reset_at: int) -> tuple[int, dict[str, str], object]:
        raise NotImplementedError

    @staticmethod
    def tool_name(body: dict[str, Any]) -> str | None:
        raise NotImplementedError

    @staticmethod
    def has_result(body: dict[str, Any]) -> bool:
        raise NotImplementedError

    @staticmethod
    def events(body: dict[str, Any], answer: str, tool: str | None, use: Use) -> Iterator[str]:
        raise NotImplementedError

    @staticmethod
    def whole(body: dict[str, Any], answer: str, tool: str | None, use: Use) -> object:
        raise NotImplementedError


class Anthropic(Wire):
    """Messages API server-sent events (Claude Code)."""

    @staticmethod
    def error(status: int, reset_at: int) -> tuple[int, dict[str, str], object]:
        kind = {401: "authentication_error", 429: "rate_limit_error", 529: "overloaded_error"}
        message = {
            401: "invalid x-api-key",
            429: "This request would exceed your account's rate limit.",
            529: "Overloaded",
        }
        headers: dict[str, str] = {}
        if status == 429:
            headers = {
                "retry-after": "3600",
                "anthropic-ratelimit-unified-status": "rejected",
                "anthropic-ratelimit-unified-reset": str(reset_at),
                "anthropic-ratelimit-requests-reset": time.strftime(
                    "%Y-%m-%dT%H:%M:%SZ", time.gmtime(reset_at)
                ),
            }
        doc = {"type": "error", "error": {"type": kind[status], "message": message[status]}}
        return status, headers, doc

    @staticmethod
    def tool_name(body: dict[str, Any]) -> str | None:
        return pick_tool([str(t.get("name")) for t in body.get("tools") or []])

    @staticmethod
    def has_result(body: dict[str, Any]) -> bool:
        return '"tool_result"' in json.dumps(body.get("messages"))

    @staticmethod
    def events(body: dict[str, Any], answer: str, tool: str | None, use: Use) -> Iterator[str]:
        model = str(body.get("model") or "claude-standin")
        usage = {
            "input_tokens": use.input,
            "output_tokens": 1,
            "cache_read_input_tokens": use.cache_read,
            "cache_creation_input_tokens": use.cache_write,
        }
        yield sse(
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": "msg_standin",
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": usage,
                },
            },
        )
        if tool:
            block = {"type": "tool_use", "id": "toolu_standin1", "name": tool, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps({"command": PROBE})}
            stop = "tool_use"
        else:
            block = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": answer}
            stop = "end_turn"
        yield sse(
            "content_block_start",
            {"type": "content_block_start", "index": 0, "content_block": block},
        )
        yield sse(
            "content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}
        )
        yield sse("content_block_stop", {"type": "content_block_stop", "index": 0})
        yield sse(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": use.output},
            },
        )
        yield sse("message_stop", {"type": "message_stop"})

    @staticmethod
    def whole(body: dict[str, Any], answer: str, tool: str | None, use: Use) -> object:
        return {
            "id": "msg_standin",
            "type": "message",
            "role": "assistant",
            "model": str(body.get("model") or "claude-standin"),
            "content": [{"type": "text", "text": answer}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": use.input, "output_tokens": use.output},
        }


class Responses(Wire):
    """OpenAI Responses API streaming (Codex)."""

    @staticmethod
    def error(status: int, reset_at: int) -> tuple[int, dict[str, str], object]:
        if status == 429:
            doc: dict[str, Any] = {
                "error": {
                    "type": "usage_limit_reached",
                    "message": "The usage limit has been reached",
                    "plan_type": "plus",
                    "resets_at": reset_at,
                }
            }
            return 429, {"x-codex-primary-reset-at": str(reset_at)}, doc
        if status == 401:
            doc = {"error": {"type": "invalid_request_error", "code": "invalid_api_key"}}
            doc["error"]["message"] = "Incorrect API key provided"
            return 401, {}, doc
        return 503, {}, {"error": {"type": "server_error", "message": "overloaded"}}

    @staticmethod
    def tool_name(body: dict[str, Any]) -> str | None:
        return pick_tool([str(t.get("name")) for t in body.get("tools") or []])

    @staticmethod
    def has_result(body: dict[str, Any]) -> bool:
        return '"function_call_output"' in json.dumps(body.get("input"))

    @staticmethod
    def events(body: dict[str, Any], answer: str, tool: str | None, use: Use) -> Iterator[str]:
        response = {"id": "resp_standin", "object": "response", "status": "in_progress"}
        yield sse("response.created", {"type": "response.created", "response": response})
        if tool:
            args = {"command": ["bash", "-lc", PROBE]} if tool == "shell" else {"cmd": PROBE}
            if tool in ("shell_command",):
                args = {"command": PROBE}
            item: dict[str, Any] = {
                "type": "function_call",
                "id": "fc_standin",
                "call_id": "call_standin1",
                "name": tool,
                "arguments": json.dumps(args),
                "status": "completed",
            }
        else:
            item = {
                "type": "message",
                "id": "msg_standin",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": answer, "annotations": []}],
            }
            yield sse(
                "response.output_text.delta",
                {
                    "type": "response.output_text.delta",
                    "item_id": "msg_standin",
                    "output_index": 0,
                    "content_index": 0,
                    "delta": answer,
                },
            )
        yield sse(
            "response.output_item.done",
            {"type": "response.output_item.done", "output_index": 0, "item": item},
        )
        usage = {
            "input_tokens": use.input + use.cache_read,  # the Responses API counts both here
            "input_tokens_details": {"cached_tokens": use.cache_read},
            "output_tokens": use.output,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": use.input + use.cache_read + use.output,
        }
        done = {**response, "status": "completed", "output": [item], "usage": usage}
        yield sse("response.completed", {"type": "response.completed", "response": done})

    @staticmethod
    def whole(body: dict[str, Any], answer: str, tool: str | None, use: Use) -> object:
        return {"id": "resp_standin", "output_text": answer}


class Gemini(Wire):
    """Gemini ``streamGenerateContent?alt=sse`` (Gemini CLI)."""

    @staticmethod
    def error(status: int, reset_at: int) -> tuple[int, dict[str, str], object]:
        if status == 429:
            delay = max(1, reset_at - int(time.time()))
            doc = {
                "error": {
                    "code": 429,
                    "message": "Resource has been exhausted (e.g. check quota).",
                    "status": "RESOURCE_EXHAUSTED",
                    "details": [
                        {
                            "@type": "type.googleapis.com/google.rpc.RetryInfo",
                            "retryDelay": f"{delay}s",
                        }
                    ],
                }
            }
            return 429, {}, doc
        if status == 401:
            message = "API key not valid. Please pass a valid API key."
            return (
                401,
                {},
                {"error": {"code": 401, "message": message, "status": "UNAUTHENTICATED"}},
            )
        doc = {
            "error": {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE"}
        }
        return 503, {}, doc

    @staticmethod
    def tool_name(body: dict[str, Any]) -> str | None:
        names = [
            str(f.get("name"))
            for t in body.get("tools") or []
            for f in t.get("functionDeclarations") or []
        ]
        return pick_tool(names)

    @staticmethod
    def has_result(body: dict[str, Any]) -> bool:
        return '"functionResponse"' in json.dumps(body.get("contents"))

    @staticmethod
    def _chunk(answer: str, tool: str | None, use: Use) -> dict[str, Any]:
        part: dict[str, Any] = (
            {"functionCall": {"name": tool, "args": {"command": PROBE}}}
            if tool
            else {"text": answer}
        )
        return {
            "candidates": [
                {"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}
            ],
            "usageMetadata": {
                "promptTokenCount": use.input + use.cache_read,  # cached ones included
                "cachedContentTokenCount": use.cache_read,
                "candidatesTokenCount": use.output,
                "totalTokenCount": use.input + use.cache_read + use.output,
            },
            "modelVersion": "gemini-standin",
        }

    @classmethod
    def events(cls, body: dict[str, Any], answer: str, tool: str | None, use: Use) -> Iterator[str]:
        yield sse(None, cls._chunk(structured(body) or answer, tool, use))

    @classmethod
    def whole(cls, body: dict[str, Any], answer: str, tool: str | None, use: Use) -> object:
        # Gemini CLI's own side calls (its model router, its next-speaker check) ask for JSON
        # matching a schema: answer with an object that has the required fields.
        return cls._chunk(structured(body) or answer, tool, use)


def structured(body: dict[str, Any]) -> str | None:
    config = body.get("generationConfig") or {}
    schema = config.get("responseJsonSchema") or config.get("responseSchema")
    if not isinstance(schema, dict):
        return None
    return json.dumps(_fill(schema))


def _fill(schema: dict[str, Any]) -> object:
    kind = str(schema.get("type") or "OBJECT").upper()
    if kind == "OBJECT":
        props = schema.get("properties") or {}
        return {k: _fill(v) for k, v in props.items() if isinstance(v, dict)}
    if kind == "ARRAY":
        return []
    if kind in ("INTEGER", "NUMBER"):
        return 10
    if kind == "BOOLEAN":
        return False
    if schema.get("enum"):
        return schema["enum"][0]
    return "user"  # a next-speaker check answered "user": the model's turn is over


class Chat(Wire):
    """OpenAI chat completions streaming (OpenCode through its openai-compatible provider)."""

    @staticmethod
    def error(status: int, reset_at: int) -> tuple[int, dict[str, str], object]:
        if status == 429:
            wait = max(1, reset_at - int(time.time()))
            headers = {"retry-after": str(wait), "x-ratelimit-reset-requests": f"{wait}s"}
            doc = {"error": {"message": "Rate limit reached", "type": "rate_limit_exceeded"}}
            return 429, headers, doc
        if status == 401:
            doc = {"error": {"message": "Incorrect API key provided", "type": "invalid_api_key"}}
            return 401, {}, doc
        return 503, {}, {"error": {"message": "The server is overloaded", "type": "server_error"}}

    @staticmethod
    def tool_name(body: dict[str, Any]) -> str | None:
        names = [str((t.get("function") or {}).get("name")) for t in body.get("tools") or []]
        return pick_tool(names)

    @staticmethod
    def has_result(body: dict[str, Any]) -> bool:
        return any(m.get("role") == "tool" for m in body.get("messages") or [])

    @staticmethod
    def events(body: dict[str, Any], answer: str, tool: str | None, use: Use) -> Iterator[str]:
        base = {"id": "chat_standin", "object": "chat.completion.chunk", "created": 1}
        base["model"] = str(body.get("model") or "m1")
        if tool:
            call = {
                "index": 0,
                "id": "call_standin1",
                "type": "function",
                "function": {"name": tool, "arguments": json.dumps({"command": PROBE})},
            }
            delta: dict[str, Any] = {"role": "assistant", "tool_calls": [call]}
            finish = "tool_calls"
        else:
            delta, finish = {"role": "assistant", "content": answer}, "stop"
        yield sse(None, {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]})
        usage = {
            "prompt_tokens": use.input + use.cache_read,  # cached ones included
            "prompt_tokens_details": {"cached_tokens": use.cache_read},
            "completion_tokens": use.output,
            "total_tokens": use.input + use.cache_read + use.output,
        }
        yield sse(
            None,
            {
                **base,
                "choices": [{"index": 0, "delta": {}, "finish_reason": finish}],
                "usage": usage,
            },
        )
        yield "data: [DONE]\n\n"

    @staticmethod
    def whole(body: dict[str, Any], answer: str, tool: str | None, use: Use) -> object:
        return {
            "id": "chat_standin",
            "object": "chat.completion",
            "model": str(body.get("model") or "m1"),
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": answer},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": use.input, "completion_tokens": use.output},
        }
