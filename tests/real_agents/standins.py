"""Loopback stand-ins for the four model APIs the real agent CLIs call.

One ``ThreadingHTTPServer`` on 127.0.0.1 (an ephemeral port) answers all four wire formats,
told apart by path: Anthropic Messages (``/v1/messages``, Claude Code), OpenAI Responses
(``/v1/responses``, Codex), Gemini ``:streamGenerateContent``/``:generateContent`` (Gemini
CLI) and OpenAI chat completions (``/v1/chat/completions``, OpenCode). Each test scripts what
the "model" does with ``mode``:

- ``text``: answer with ``answer`` (streamed the way the API streams);
- ``tool``: ask for one shell tool call, then (once the request carries its result) answer;
- ``401``: refuse the key; ``429``: a usage limit, with the provider's reset header/field set to
  ``reset_at`` (Unix seconds); ``529``: overloaded (503 for the Google and OpenAI formats);
- ``hang``: accept the request and never answer until the server stops.

Every request is kept (``requests``), so a test can assert a resumed session sent the earlier
turns. Anything else (a WebSocket upgrade, a model list, telemetry) gets a 404.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MODES = ("text", "tool", "401", "429", "529", "hang")
SHELL_TOOLS = ("Bash", "shell", "exec_command", "shell_command", "run_shell_command", "bash")
PROBE = "echo deskd-probe"


@dataclass(frozen=True)
class Seen:
    method: str
    path: str
    body: dict[str, Any]

    @property
    def text(self) -> str:
        return json.dumps(self.body)


class StandIn:
    """A scripted model API; ``with StandIn() as api:`` starts and stops it."""

    def __init__(self, port: int = 0) -> None:
        self.mode = "text"
        self.answer = "deskd-standin-answer"
        self.reset_at = int(time.time()) + 3600
        self.requests: list[Seen] = []
        self._release = threading.Event()
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", port), _handler(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> StandIn:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._release.set()  # a hanging answer ends, so its thread does not outlive the test
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def model_calls(self) -> list[Seen]:
        with self._lock:
            return [r for r in self.requests if r.method == "POST" and _is_model_path(r.path)]

    def saw(self, text: str) -> bool:
        """Whether any model call carried ``text`` (a prompt, an earlier answer)."""
        return any(text in r.text for r in self.model_calls())

    def record(self, seen: Seen) -> None:
        with self._lock:
            self.requests.append(seen)

    def wait_released(self) -> None:
        self._release.wait(timeout=300)


def _is_model_path(path: str) -> bool:
    return (
        any(
            p in path
            for p in (
                "/messages",
                "/responses",
                "GenerateContent",
                "generateContent",
                "/completions",
            )
        )
        and "count_tokens" not in path
    )


def _handler(api: StandIn) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            api.record(Seen("GET", self.path, {}))
            self._json(404, {"error": {"message": "not served by the stand-in"}})

        def do_POST(self) -> None:
            body = self._body()
            api.record(Seen("POST", self.path, body))
            path = self.path.split("?")[0]
            if path.endswith("/messages/count_tokens"):
                self._json(200, {"input_tokens": 10})
            elif path.endswith("/messages"):
                self._answer(Anthropic, body)
            elif path.endswith("/responses"):
                self._answer(Responses, body)
            elif "GenerateContent" in path or "generateContent" in path:
                self._answer(Gemini, body, stream="stream" in path)
            elif path.endswith("/chat/completions"):
                self._answer(Chat, body)
            else:
                self._json(404, {"error": {"message": f"{path} is not served by the stand-in"}})

        def _body(self) -> dict[str, Any]:
            if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                raw = b""
                while True:
                    size = int(self.rfile.readline().strip() or b"0", 16)
                    if size == 0:
                        self.rfile.readline()
                        break
                    raw += self.rfile.read(size)
                    self.rfile.readline()
            else:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            try:
                value = json.loads(raw or b"{}")
            except ValueError:
                return {"raw": raw.decode("utf-8", "replace")}
            return value if isinstance(value, dict) else {"value": value}

        def _answer(self, wire: type[Wire], body: dict[str, Any], stream: bool = True) -> None:
            mode = api.mode
            if wire is Gemini and _structured(body) is not None:
                mode = "text"  # Gemini CLI's model router is not the conversation under test
            if mode == "hang":
                api.wait_released()
                self.close_connection = True
                return
            if mode in ("401", "429", "529"):
                status, headers, doc = wire.error(int(mode), api.reset_at)
                self._json(status, doc, headers)
                return
            tool = wire.tool_name(body) if mode == "tool" and not wire.has_result(body) else None
            stream = stream and body.get("stream", True) is not False
            if not stream:
                self._json(200, wire.whole(body, api.answer, tool))
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Connection", "close")
            self.end_headers()
            for chunk in wire.events(body, api.answer, tool):
                self.wfile.write(chunk.encode())
                self.wfile.flush()
            self.close_connection = True

        def _json(self, status: int, doc: object, headers: dict[str, str] | None = None) -> None:
            data = json.dumps(doc).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)

    return Handler


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
    def events(body: dict[str, Any], answer: str, tool: str | None) -> Iterator[str]:
        raise NotImplementedError

    @staticmethod
    def whole(body: dict[str, Any], answer: str, tool: str | None) -> object:
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
    def events(body: dict[str, Any], answer: str, tool: str | None) -> Iterator[str]:
        model = str(body.get("model") or "claude-standin")
        usage = {"input_tokens": 10, "output_tokens": 1}
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
                "usage": {"output_tokens": 5},
            },
        )
        yield sse("message_stop", {"type": "message_stop"})

    @staticmethod
    def whole(body: dict[str, Any], answer: str, tool: str | None) -> object:
        return {
            "id": "msg_standin",
            "type": "message",
            "role": "assistant",
            "model": str(body.get("model") or "claude-standin"),
            "content": [{"type": "text", "text": answer}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 5},
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
    def events(body: dict[str, Any], answer: str, tool: str | None) -> Iterator[str]:
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
            "input_tokens": 10,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 5,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 15,
        }
        done = {**response, "status": "completed", "output": [item], "usage": usage}
        yield sse("response.completed", {"type": "response.completed", "response": done})

    @staticmethod
    def whole(body: dict[str, Any], answer: str, tool: str | None) -> object:
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
    def _chunk(answer: str, tool: str | None) -> dict[str, Any]:
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
                "promptTokenCount": 10,
                "candidatesTokenCount": 5,
                "totalTokenCount": 15,
            },
            "modelVersion": "gemini-standin",
        }

    @classmethod
    def events(cls, body: dict[str, Any], answer: str, tool: str | None) -> Iterator[str]:
        yield sse(None, cls._chunk(_structured(body) or answer, tool))

    @classmethod
    def whole(cls, body: dict[str, Any], answer: str, tool: str | None) -> object:
        # Gemini CLI's own side calls (its model router, its next-speaker check) ask for JSON
        # matching a schema: answer with an object that has the required fields.
        return cls._chunk(_structured(body) or answer, tool)


def _structured(body: dict[str, Any]) -> str | None:
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
    def events(body: dict[str, Any], answer: str, tool: str | None) -> Iterator[str]:
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
        usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
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
    def whole(body: dict[str, Any], answer: str, tool: str | None) -> object:
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
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
        }


def main(argv: list[str]) -> int:
    """``python tests/real_agents/standins.py [PORT [MODE]]``: serve until Ctrl-C (docs/operations.md
    "Trying a real CLI without an account")."""
    api = StandIn(port=int(argv[1]) if len(argv) > 1 else 0)
    api.mode = argv[2] if len(argv) > 2 else "text"
    with api:
        print(
            f"stand-in model API on {api.url} answering {api.mode!r}; Ctrl-C stops it", flush=True
        )
        try:
            threading.Event().wait()
        except KeyboardInterrupt:
            pass
    return 0


if __name__ == "__main__":
    import sys

    sys.exit(main(sys.argv))
