"""The HTTP server: loopback only, every request recorded, answered by a protocol adapter."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Protocol

from .exchange import Exchange, Policy, Say

LOOPBACK = "127.0.0.1"


@dataclass(frozen=True)
class RecordedRequest:
    """A request as it arrived: method, path (with query), headers and the parsed JSON body
    (None when the body was not JSON)."""

    method: str
    path: str
    headers: dict[str, str]
    raw: bytes
    body: Any


@dataclass
class Response:
    """What to send back: a status, headers, and a body given whole or as chunks (SSE)."""

    status: int = 200
    headers: dict[str, str] = field(default_factory=lambda: {"content-type": "application/json"})
    body: bytes | Iterable[bytes] = b"{}"


def json_response(value: Any, status: int = 200) -> Response:
    """A JSON body."""
    return Response(status, {"content-type": "application/json"}, json.dumps(value).encode())


def sse_response(events: Iterable[tuple[str | None, Any]]) -> Response:
    """A ``text/event-stream`` body from ``(event name or None, JSON data)`` pairs."""

    def chunks() -> Iterator[bytes]:
        for name, data in events:
            text = "" if name is None else f"event: {name}\n"
            text += f"data: {json.dumps(data)}\n\n"
            yield text.encode()

    return Response(200, {"content-type": "text/event-stream", "cache-control": "no-cache"},
                    chunks())


class Adapter(Protocol):
    """One model API: which requests it answers, how it reads them, how it replies."""

    protocol: str

    def handles(self, request: RecordedRequest) -> bool:
        """Whether this adapter answers the request."""

    def read(self, request: RecordedRequest) -> Exchange | None:
        """The request as an Exchange, or None for a request that is not a model turn (a
        model list, a token count): ``respond_other`` answers those."""

    def respond(self, request: RecordedRequest, exchange: Exchange, reply: Say | Any) -> Response:
        """The reply in the protocol's shape (streaming when the request asked for it)."""

    def respond_other(self, request: RecordedRequest) -> Response:
        """An answer to a request that is not a model turn."""


class FakeModelServer:
    """A ThreadingHTTPServer on 127.0.0.1 and a free port; use as a context manager.

    ``requests`` holds every request; ``exchanges`` the model turns, read; ``policy`` decides
    every reply and may be replaced between sessions.
    """

    def __init__(self, adapters: list[Adapter], policy: Policy) -> None:
        self.adapters = adapters
        self.policy = policy
        self.requests: list[RecordedRequest] = []
        self.exchanges: list[Exchange] = []
        self.unanswered: list[RecordedRequest] = []
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer((LOOPBACK, 0), self._handler_class())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT`` (no trailing slash)."""
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> FakeModelServer:
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def texts(self) -> str:
        """Every model turn's text so far, joined (for "reached the model" checks)."""
        with self._lock:
            return "\n".join(exchange.text for exchange in self.exchanges)

    def answer(self, request: RecordedRequest) -> Response:
        """Record the request and answer it."""
        with self._lock:
            self.requests.append(request)
        for adapter in self.adapters:
            if adapter.handles(request):
                exchange = adapter.read(request)
                if exchange is None:
                    return adapter.respond_other(request)
                with self._lock:
                    self.exchanges.append(exchange)
                return adapter.respond(request, exchange, self.policy(exchange))
        with self._lock:
            self.unanswered.append(request)
        return json_response({"error": {"message": f"fake model: no route for {request.path}"}},
                             status=404)

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *_args: object) -> None:  # quiet
                return

            def _serve(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw) if raw else None
                except ValueError:
                    body = None
                request = RecordedRequest(self.command, self.path,
                                          {k.lower(): v for k, v in self.headers.items()},
                                          raw, body)
                response = server.answer(request)
                self.send_response(response.status)
                for key, value in response.headers.items():
                    self.send_header(key, value)
                if isinstance(response.body, bytes):
                    self.send_header("content-length", str(len(response.body)))
                    self.end_headers()
                    self.wfile.write(response.body)
                    return
                self.send_header("transfer-encoding", "chunked")
                self.end_headers()
                for chunk in response.body:
                    self.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
                    self.wfile.flush()
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()

            do_GET = do_POST = do_PUT = do_DELETE = _serve

        return Handler
