"""The service's wire protocol and method table, without a socket."""

from __future__ import annotations

import json
import time

import pytest

from memtui.engine.validation import json_type
from memtui.errors import Conflict, InvalidInput, NotFound, PermissionDenied, StoreError
from memtui.service import protocol
from memtui.service.methods import METHODS, check_params
from memtui.service.protocol import (
    MAX_REQUEST_BYTES,
    ProtocolError,
    RequestBuffer,
    error_from_exception,
    exit_code_for,
    parse_request,
)

SPEC_METHODS = ("health", "task.complete", "task.list", "interaction.remember",
                "memory.recall", "context.prepare", "transition.assess",
                "consolidation.record", "bundle.list", "bundle.get", "bundle.document.put")
REVIEW_METHODS = ("memory.add", "memory.correct")
"""Agents' memory writes through the service (pending while review is on)."""


class FakeSocket:
    """Delivers the given chunks, then end of input; records the sizes asked for."""

    def __init__(self, *chunks: bytes, stall: bool = False) -> None:
        self.chunks = list(chunks)
        self.asked: list[int] = []
        self.received = 0
        self.stall = stall

    def settimeout(self, value: float | None) -> None:
        """Ignored."""

    def recv(self, size: int) -> bytes:
        """The next chunk, cut to ``size`` (the rest stays queued)."""
        self.asked.append(size)
        if not self.chunks:
            if self.stall:
                raise TimeoutError
            return b""
        chunk = self.chunks.pop(0)
        if len(chunk) > size:
            self.chunks.insert(0, chunk[size:])
            chunk = chunk[:size]
        self.received += len(chunk)
        return chunk


def read_request(sock: FakeSocket, deadline: float, limit: int = MAX_REQUEST_BYTES) -> bytes:
    """One request line read from ``sock`` through a ``RequestBuffer``, as the server reads
    a connection: ``TimeoutError`` when it has not arrived by ``deadline``."""
    buffer = RequestBuffer(limit)
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError("the request did not arrive in time")
        sock.settimeout(remaining)
        chunk = sock.recv(buffer.room())
        if not chunk:
            return buffer.end()
        line = buffer.feed(chunk)
        if line is not None:
            return line


def _later() -> float:
    return time.monotonic() + 5


def test_the_table_has_every_method_of_the_spec() -> None:
    assert set(SPEC_METHODS) | set(REVIEW_METHODS) == set(METHODS)


def test_read_request_stops_at_the_newline_or_the_end() -> None:
    assert read_request(FakeSocket(b'{"id":1}\n{"ignored"'), _later()) == b'{"id":1}'
    assert read_request(FakeSocket(b'{"id"', b':1}'), _later()) == b'{"id":1}'
    assert read_request(FakeSocket(), _later()) == b""


def test_read_request_never_holds_more_than_the_limit() -> None:
    sock = FakeSocket(b"x" * 100, b"y" * 100)
    with pytest.raises(ProtocolError) as caught:
        read_request(sock, _later(), limit=150)
    assert caught.value.code == "too_large"
    assert sock.received == 151 and max(sock.asked) <= 151
    exact = FakeSocket(b"x" * 150 + b"\n")
    assert len(read_request(exact, _later(), limit=150)) == 150


def test_read_request_times_out() -> None:
    with pytest.raises(TimeoutError):
        read_request(FakeSocket(b'{"id"', stall=True), _later())
    with pytest.raises(TimeoutError):
        read_request(FakeSocket(b"{}"), time.monotonic() - 1)


BAD_LINES = [
    (b"not json", "invalid_json"),
    (b"\xff\xfe", "invalid_json"),
    (b'{"id": 1, "method": "health", "params": NaN}', "invalid_json"),
    (b"[" * 100_000, "invalid_json"),
    (b"", "invalid_request"),
    (b"   ", "invalid_request"),
    (b"[1, 2]", "invalid_request"),
    (b'"health"', "invalid_request"),
    (b'{"method": "health"}', "invalid_request"),
    (b'{"id": true, "method": "health"}', "invalid_request"),
    (b'{"id": 1.5, "method": "health"}', "invalid_request"),
    (b'{"id": {"a": 1}, "method": "health"}', "invalid_request"),
    (b'{"id": 1}', "invalid_request"),
    (b'{"id": 1, "method": 7}', "invalid_request"),
    (b'{"id": 1, "method": "health", "params": [1]}', "invalid_params"),
    (b'{"id": 1, "method": "health", "params": ' + b"[" * 40 + b"]" * 40 + b"}",
     "invalid_request"),
]


@pytest.mark.parametrize(("raw", "code"), BAD_LINES,
                         ids=[f"{i}-{code}" for i, (_, code) in enumerate(BAD_LINES)])
def test_bad_requests_get_codes(raw: bytes, code: str) -> None:
    with pytest.raises(ProtocolError) as caught:
        parse_request(raw)
    assert caught.value.code == code


def test_request_id_is_kept_when_known() -> None:
    with pytest.raises(ProtocolError) as caught:
        parse_request(b'{"id": "r-1", "params": {}}')
    assert caught.value.request_id == "r-1"
    request = parse_request(b'{"id": "r-2", "method": "health"}')
    assert (request.id, request.method, request.params) == ("r-2", "health", {})
    assert parse_request(b'{"id": 3, "method": "x", "params": null}').params == {}


def test_engine_errors_map_to_codes() -> None:
    assert error_from_exception(NotFound("x"))[0] == "not_found"
    assert error_from_exception(PermissionDenied("x"))[0] == "permission_denied"
    assert error_from_exception(InvalidInput("x"))[0] == "invalid_params"
    assert error_from_exception(Conflict("x", current_revision=4)) == (
        "conflict", "x", {"current_revision": 4})
    assert error_from_exception(StoreError("busy"))[0] == "internal"
    code, message, _ = error_from_exception(RuntimeError("secret detail"))
    assert code == "internal" and "secret detail" not in message
    assert set(protocol.ENGINE_ERROR_CODES.values()) <= set(protocol.ERROR_CODES)


def test_exit_codes() -> None:
    assert exit_code_for({"ok": True}) == 0
    expected = {"not_found": 3, "permission_denied": 4, "invalid_params": 5, "conflict": 1,
                "invalid_json": 1, "internal": 1}
    for code, status in expected.items():
        assert exit_code_for({"ok": False, "error": {"code": code}}) == status
    assert exit_code_for({"weird": 1}) == 1


def test_responses_are_one_line_of_json() -> None:
    line = protocol.error_response("a\ud800", "conflict", "stale", current_revision=2)
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert json.loads(line)["error"] == {"code": "conflict", "message": "stale",
                                         "current_revision": 2}
    assert json.loads(protocol.ok_response(1, {"text": "日程"}))["result"]["text"] == "日程"


@pytest.mark.parametrize(("method", "params", "fragment"), [
    ("memory.recall", {}, "missing parameter 'query'"),
    ("memory.recall", {"query": 5}, "query must be string"),
    ("memory.recall", {"query": "x", "limit": "5"}, "limit must be integer"),
    ("memory.recall", {"query": "x", "limit": 2.5}, "limit must be integer"),
    ("memory.recall", {"query": "x", "limit": True}, "limit must be integer"),
    ("memory.recall", {"query": "x", "user": "bob"}, "unknown parameter 'user'"),
    ("bundle.document.put", {"bundle": "b", "path": "p", "content": "c",
                             "expected_revision": None}, "expected_revision must be"),
    ("task.complete", {"project": "p", "result": "r", "started_at": "t", "finished_at": "t",
                       "cost_usd": "1"}, "cost_usd must be number"),
    ("transition.assess", {"request": "r", "current_task": 5}, "current_task must be"),
    ("health", {"x": 1}, "unknown parameter"),
])
def test_param_types_are_checked(method: str, params: dict, fragment: str) -> None:
    with pytest.raises(ProtocolError) as caught:
        check_params(METHODS[method], params)
    assert caught.value.code == "invalid_params" and fragment in caught.value.message


def test_json_types() -> None:
    assert [json_type(v) for v in (None, True, 1, 1.5, "s", [], {})] == [
        "null", "boolean", "integer", "number", "string", "array", "object"]
    check_params(METHODS["task.complete"], {"project": "p", "result": "r", "started_at": "t",
                                            "finished_at": "t", "cost_usd": 1})


def test_limit_constant() -> None:
    assert MAX_REQUEST_BYTES == 1024 * 1024
