"""A small client for the local memory service (``memtui call``, scripts, tests):
``call(method, params)`` returns the decoded response (``{"id", "ok", "result"|"error"}``);
a service that is not running raises ``ServiceUnavailable``, so callers can degrade."""

from __future__ import annotations

import itertools
import json
import os
import socket
import time
from pathlib import Path
from typing import Any

from memtui.engine.paths import default_socket_path
from memtui.errors import MemtuiError
from memtui.service.peers import peer_uid, socket_problem

CLIENT_TIMEOUT_S = 30.0
"""How long a call waits for the whole response by default."""
MAX_RESPONSE_BYTES = 256 * 1024 * 1024
"""A response longer than this is refused (a safety bound, far above any real answer)."""
_ids = itertools.count(1)


class ServiceUnavailable(MemtuiError, code="service_unavailable"):
    """No service answers at the socket path, or one the caller must not trust: a socket or
    folder another user owns or can write to, a service running as another uid."""


class ServiceProtocolError(MemtuiError, code="service_protocol"):
    """The service's answer could not be read (timeout, truncated, not JSON)."""


def _connect(path: Path, timeout: float) -> socket.socket:
    """Connect to the service at ``path`` after checking that nobody but the caller could have
    put the socket there (``socket_problem``) and, once connected, that the caller's own uid
    answers (``peer_uid``, where the system says): nothing is sent to anyone else."""
    if (problem := socket_problem(path)) is not None:
        raise ServiceUnavailable(f"refusing the socket {path}: {problem}")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        sock.connect(str(path))
    except (FileNotFoundError, ConnectionRefusedError, NotADirectoryError):
        problem = f"service not running at {path}"
    except OSError as error:
        problem = f"service not reachable at {path} ({error.strerror or error})"
    else:
        if (uid := peer_uid(sock)) is None or uid == os.getuid():
            return sock
        problem = f"refusing the socket {path}: the service on it runs as uid {uid}, not as you"
    sock.close()
    raise ServiceUnavailable(problem)


def send_raw(payload: bytes, socket_path: str | os.PathLike[str] | None = None,
             timeout: float = CLIENT_TIMEOUT_S) -> bytes:
    """Send raw bytes as one request and return the raw response (up to the end of input)."""
    path = Path(socket_path).expanduser() if socket_path else default_socket_path()
    deadline = time.monotonic() + timeout
    with _connect(path, timeout) as sock:
        try:
            sock.sendall(payload)
            sock.shutdown(socket.SHUT_WR)
            response = bytearray()
            while (left := deadline - time.monotonic()) > 0:
                sock.settimeout(left)
                if not (chunk := sock.recv(65536)):
                    return bytes(response)
                response += chunk
                if len(response) > MAX_RESPONSE_BYTES:
                    raise ServiceProtocolError(f"the response from {path} is larger than "
                                               f"{MAX_RESPONSE_BYTES} bytes")
            raise TimeoutError
        except TimeoutError:
            raise ServiceProtocolError(f"the service at {path} did not answer within "
                                       f"{timeout:g}s") from None
        except (BrokenPipeError, ConnectionResetError) as error:
            raise ServiceProtocolError(f"the service at {path} closed the connection "
                                       f"({error.strerror or error})") from None


def call(method: str, params: dict[str, Any] | None = None,
         socket_path: str | os.PathLike[str] | None = None,
         timeout: float = CLIENT_TIMEOUT_S, request_id: str | int | None = None) -> dict[str, Any]:
    """Call one method; returns the response object (check ``ok``)."""
    request = {"id": next(_ids) if request_id is None else request_id, "method": method,
               "params": {} if params is None else params}
    raw = send_raw((json.dumps(request, ensure_ascii=False) + "\n").encode("utf-8"),
                   socket_path, timeout)
    try:
        response = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise ServiceProtocolError("the service's answer is not a JSON line") from None
    if not isinstance(response, dict):
        raise ServiceProtocolError("the service's answer is not a JSON object")
    return response
