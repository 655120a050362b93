"""A fake OpenAI-compatible model endpoint on 127.0.0.1 that records every request (the
model-extraction tests and bench row ask it). ``FakeModel(answer)`` serves ``GET /v1/models``
and ``POST /v1/chat/completions`` in a thread; ``answer(body)`` returns a ``Reply``, by default
one project fact: the first line of the task text."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MODEL_NAME = "fake-extractor"
CHARS_PER_TOKEN = 4


@dataclass(frozen=True)
class Reply:
    """What the fake sends back: HTTP status, a JSON body (or raw text), after a delay."""

    status: int = 200
    body: Any = None
    delay_s: float = 0.0


@dataclass(frozen=True)
class Recorded:
    """One request the fake received."""

    path: str
    headers: dict[str, str]
    body: Any
    raw: bytes


def chat_reply(content: str | None, request: dict[str, Any], finish_reason: str = "stop",
               refusal: str | None = None, usage: bool = True) -> Reply:
    """A chat completion answering ``content``, with usage counted at CHARS_PER_TOKEN."""
    sent = sum(len(str(m.get("content", ""))) for m in request.get("messages", []))
    body: dict[str, Any] = {
        "id": "chatcmpl-fake", "object": "chat.completion", "created": 0, "model": MODEL_NAME,
        "choices": [{"index": 0, "finish_reason": finish_reason,
                     "message": {"role": "assistant", "content": content,
                                 "refusal": refusal}}]}
    if usage:
        body["usage"] = {"prompt_tokens": sent // CHARS_PER_TOKEN,
                         "completion_tokens": len(content or "") // CHARS_PER_TOKEN,
                         "total_tokens": 0}
    return Reply(200, body)


def one_fact(request: dict[str, Any]) -> Reply:
    """The default answer: one project fact, the first line of the task text sent."""
    text = str(request["messages"][-1]["content"])
    first = text.splitlines()[0].removeprefix("Goal: ")[:200] or "nothing"
    return chat_reply(json.dumps({"memories": [{"kind": "fact", "scope": "project",
                                                "text": first, "evidence": first}]}), request)


@dataclass
class FakeModel:
    """The fake endpoint (see the module doc); ``url`` once started."""

    answer: Callable[[dict[str, Any]], Reply] = one_fact
    requests: list[Recorded] = field(default_factory=list)
    url: str = ""

    @contextmanager
    def running(self) -> Iterator[FakeModel]:
        """Serve on a free loopback port while the block runs."""
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive: one connection for a whole round
            disable_nagle_algorithm = True  # no 40 ms wait between headers and body

            def log_message(self, *_args: Any) -> None:
                return

            def _send(self, reply: Reply) -> None:
                if reply.delay_s:
                    time.sleep(reply.delay_s)
                data = reply.body if isinstance(reply.body, bytes) else (
                    reply.body.encode() if isinstance(reply.body, str)
                    else json.dumps(reply.body).encode())
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                try:
                    self.wfile.write(data)
                except OSError:
                    return  # the client gave up (a timeout test)

            def do_GET(self) -> None:  # noqa: N802 - the http.server name
                fake.requests.append(Recorded(self.path, dict(self.headers), None, b""))
                self._send(Reply(200, {"object": "list", "data": [
                    {"id": MODEL_NAME, "object": "model", "created": 0, "owned_by": "fake"}]}))

            def do_POST(self) -> None:  # noqa: N802 - the http.server name
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                body = json.loads(raw)
                fake.requests.append(Recorded(self.path, dict(self.headers), body, raw))
                self._send(fake.answer(body))

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        self.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
        try:
            yield self
        finally:
            server.shutdown()
            server.server_close()
            thread.join()
