"""The wire protocol: one JSON object a line, one request per connection. A request is
``{"id", "method", "params"}``; a response ``{"id", "ok": true, "result"}`` or ``{"id",
"ok": false, "error": {"code", "message", ...}}``. A request is read without ever holding
more than ``MAX_REQUEST_BYTES + 1`` bytes."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from memtui.engine.validation import MAX_JSON_DEPTH, json_depth
from memtui.errors import Conflict, InvalidInput, MemtuiError, NotFound, PermissionDenied

MAX_REQUEST_BYTES = 1024 * 1024
"""Largest request accepted (1 MiB, the line without its newline)."""
READ_CHUNK_BYTES = 64 * 1024
"""Bytes asked of the socket per read."""
MAX_ID_CHARS = 256
"""Longest request id (a string id; integer ids are any JSON integer)."""

ERROR_CODES = ("invalid_json", "invalid_request", "unknown_method", "invalid_params",
               "not_found", "permission_denied", "conflict", "too_large", "internal")
"""Every error code a response may carry."""
(INVALID_JSON, INVALID_REQUEST, UNKNOWN_METHOD, INVALID_PARAMS, NOT_FOUND, PERMISSION_DENIED,
 CONFLICT, TOO_LARGE, INTERNAL) = ERROR_CODES

ENGINE_ERROR_CODES: dict[type[MemtuiError], str] = {
    NotFound: NOT_FOUND,
    PermissionDenied: PERMISSION_DENIED,
    InvalidInput: INVALID_PARAMS,
    Conflict: CONFLICT,
}
"""The engine's errors as service error codes; any other error is ``internal``."""

EXIT_CODES = {code: kind.exit_code for kind, code in ENGINE_ERROR_CODES.items()}
"""``memtui call``'s exit status per error code (1 for any other)."""
OTHER_ERROR_EXIT = 1


class ProtocolError(Exception):
    """A request the service refuses before or instead of running it: a code of
    ``ERROR_CODES``, a message and the request id when parsing could read it."""

    def __init__(self, code: str, message: str, request_id: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.request_id = request_id


@dataclass(frozen=True)
class Request:
    """A request whose envelope passed the checks (params not yet checked)."""

    id: str | int
    method: str
    params: dict[str, Any]


class RequestBuffer:
    """The bytes of one request as they arrive, for a reader that does not block; never more
    than ``limit + 1`` of them (a longer line raises ``too_large``)."""

    def __init__(self, limit: int = MAX_REQUEST_BYTES) -> None:
        self.limit = limit
        self._buffer = bytearray()

    def room(self) -> int:
        """How many bytes the next read may ask for."""
        return min(READ_CHUNK_BYTES, self.limit + 1 - len(self._buffer))

    def feed(self, chunk: bytes) -> bytes | None:
        """Add what arrived; the complete request line, or None while it is incomplete."""
        newline = chunk.find(b"\n")
        self._buffer += chunk if newline < 0 else chunk[:newline]
        if len(self._buffer) > self.limit:
            raise ProtocolError(TOO_LARGE, f"the request is larger than {self.limit} bytes")
        return bytes(self._buffer) if newline >= 0 else None

    def end(self) -> bytes:
        """The client closed its side: what arrived is the whole request."""
        return bytes(self._buffer)


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def parse_request(raw: bytes) -> Request:
    """Parse and check one request line. Raises ``ProtocolError`` (``invalid_json``,
    ``invalid_request`` or ``invalid_params``) with the request id when it could be read."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ProtocolError(INVALID_JSON, "the request is not valid UTF-8") from None
    if not text.strip():
        raise ProtocolError(INVALID_REQUEST, "the request is empty: send one JSON object "
                                             '{"id", "method", "params"} on one line')
    try:
        value = json.loads(text, parse_constant=_refuse_constant)
    except RecursionError:
        raise ProtocolError(INVALID_JSON, f"the request is nested too deeply (the limit is "
                                          f"{MAX_JSON_DEPTH} levels)") from None
    except ValueError as error:
        raise ProtocolError(INVALID_JSON, f"the request is not valid JSON ({error})") from None
    if not isinstance(value, dict):
        raise ProtocolError(INVALID_REQUEST, "the request must be a JSON object "
                                             '{"id", "method", "params"}')
    request_id = value.get("id")
    if isinstance(request_id, bool) or not isinstance(request_id, str | int) or (
            isinstance(request_id, str) and len(request_id) > MAX_ID_CHARS):
        raise ProtocolError(INVALID_REQUEST, "the request needs an id: a string (at most "
                                             f"{MAX_ID_CHARS} characters) or an integer")
    if json_depth(value) > MAX_JSON_DEPTH:
        raise ProtocolError(INVALID_REQUEST, f"the request is nested deeper than "
                                             f"{MAX_JSON_DEPTH} levels", request_id)
    method = value.get("method")
    if not isinstance(method, str) or not method:
        raise ProtocolError(INVALID_REQUEST, "the request needs a method (a string)",
                            request_id)
    params = {} if value.get("params") is None else value["params"]
    if not isinstance(params, dict):
        raise ProtocolError(INVALID_PARAMS, "params must be a JSON object", request_id)
    return Request(id=request_id, method=method, params=params)


def error_from_exception(error: BaseException) -> tuple[str, str, dict[str, Any]]:
    """(code, message, extra fields) for an error raised while running a method."""
    if isinstance(error, ProtocolError):
        return error.code, error.message, {}
    if isinstance(error, MemtuiError):
        for kind, code in ENGINE_ERROR_CODES.items():
            if isinstance(error, kind):
                return code, error.message, dict(error.detail)
        return INTERNAL, error.message, {}
    return INTERNAL, "internal error (see the service's log)", {}


def _encode(message: dict[str, Any]) -> bytes:
    try:
        return (json.dumps(message, ensure_ascii=False, allow_nan=False) + "\n").encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates echoed from the request: escape them
        return (json.dumps(message, ensure_ascii=True, allow_nan=False) + "\n").encode("ascii")


def ok_response(request_id: Any, result: Any) -> bytes:
    """The encoded success line."""
    return _encode({"id": request_id, "ok": True, "result": result})


def error_response(request_id: Any, code: str, message: str, **detail: Any) -> bytes:
    """The encoded error line (``detail`` adds fields such as ``current_revision``)."""
    body: dict[str, Any] = {"code": code, "message": message}
    body.update({key: value for key, value in detail.items() if key not in body})
    return _encode({"id": request_id, "ok": False, "error": body})


def exit_code_for(response: dict[str, Any]) -> int:
    """The command-line exit status for a decoded response (0 when ok)."""
    if response.get("ok") is True:
        return 0
    error = response.get("error")
    code = error.get("code") if isinstance(error, dict) else None
    return EXIT_CODES.get(str(code), OTHER_ERROR_EXIT)
