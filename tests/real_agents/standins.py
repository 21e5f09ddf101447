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

Each request served a scripted failure (``401`` … ``hang``) sets ``failed_call``
and creates the file ``gate`` names, if any: the event a test that waits for deskd's timeout
ends the run on (tests/real_agents/gate/sitecustomize.py), not a guess at how long the CLI
takes to get there.

Every answer reports ``use`` (tokens by kind, wires.Use) and is kept in ``reported``, so a
test can compare what deskd recorded with what the "model" said. Every request is kept (``requests``), so a test can assert a resumed session sent the earlier
turns. Anything else (a WebSocket upgrade, a model list, telemetry) gets a 404.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from wires import Anthropic, Chat, Gemini, Responses, Use, Wire, structured

MODES = ("text", "tool", "401", "429", "529", "hang")


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
        self.use = Use()
        self.reported: list[tuple[Seen, Use]] = []  # every answer served, with its usage
        self.gate: Path | None = None
        self.failed_call = threading.Event()
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

    def fail_call(self) -> None:
        """A model call is being served a scripted failure: tell the test, open the gate."""
        if self.gate is not None:
            self.gate.touch()
        self.failed_call.set()

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
            if wire is Gemini and structured(body) is not None:
                mode = "text"  # Gemini CLI's model router is not the conversation under test
            if mode == "hang":
                api.fail_call()
                api.wait_released()
                self.close_connection = True
                return
            if mode in ("401", "429", "529"):
                status, headers, doc = wire.error(int(mode), api.reset_at)
                self._json(status, doc, headers)
                api.fail_call()  # after the answer: the CLI has been refused
                return
            tool = wire.tool_name(body) if mode == "tool" and not wire.has_result(body) else None
            stream = stream and body.get("stream", True) is not False
            with api._lock:
                api.reported.append((Seen("POST", self.path, body), api.use))
            if not stream:
                self._json(200, wire.whole(body, api.answer, tool, api.use))
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Connection", "close")
            self.end_headers()
            for chunk in wire.events(body, api.answer, tool, api.use):
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
