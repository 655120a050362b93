"""Text ids: a short prefix and a time-ordered, random, base32 body (ULID-like)."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable

_ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"
_RANDOM_BITS = 35
_TIME_CHARS = 9
_RANDOM_CHARS = 7

IdFactory = Callable[[str], str]
"""A function ``prefix -> new id``."""


def encode_id(prefix: str, ms: int, random_part: int) -> str:
    """The id ``<prefix>_<body>``: ``ms`` (milliseconds since the epoch) then ``random_part``
    in base32, so ids sort by time (the generated benchmark stores make theirs with it too)."""
    return f"{prefix}_{_encode(ms, _TIME_CHARS)}{_encode(random_part, _RANDOM_CHARS)}"


def _encode(value: int, width: int) -> str:
    return "".join(_ALPHABET[(value >> (5 * place)) & 31] for place in reversed(range(width)))


class MonotonicIds:
    """Ids that sort by creation time within a process (the random part counts up within a ms)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._last_ms = -1
        self._last_random = 0

    def __call__(self, prefix: str) -> str:
        with self._lock:
            now_ms = int(time.time() * 1000)
            if now_ms <= self._last_ms:
                now_ms = self._last_ms
                self._last_random += 1
            else:
                self._last_ms = now_ms
                self._last_random = int.from_bytes(os.urandom(8), "big") >> (64 - _RANDOM_BITS + 1)
            return encode_id(prefix, now_ms, self._last_random)


class SequentialIds:
    """Deterministic ids for tests and the demo store: ``mem_0001``, ``task_0001`` ..."""

    def __init__(self) -> None:
        self._counters: dict[str, int] = {}
        self._lock = threading.Lock()

    def __call__(self, prefix: str) -> str:
        with self._lock:
            value = self._counters.get(prefix, 0) + 1
            self._counters[prefix] = value
        return f"{prefix}_{value:04d}"


default_ids: IdFactory = MonotonicIds()
