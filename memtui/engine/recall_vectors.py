"""The second recall signal: small static embeddings (the ``embeddings`` extra).

The model is ``tokenlearn-static-model``'s: a Model2Vec-style static embedding (64
dimensions, int8, a 10,000-word vocabulary) whose weights ship inside its wheel, so it works
offline from what pip installs and never downloads anything. Without the package, recall
ranks by full text alone (``vectors_available`` is False).

Rules decided here:
- A memory's vector is computed from its content when recall first meets it and cached in
  the process (``VectorCache``: at most ``CACHE_SIZE`` texts), so a long-lived server (MCP,
  the service) embeds each text once. The model loads on the first recall that needs it
  (about 3 seconds, holding the interpreter: loading it as a server starts delayed the MCP
  handshake past the agent's first request).
- The memories compared are the full-text candidates and the ``VECTOR_WINDOW`` newest
  visible ones (a bounded scan: recall's cost does not grow with the store).
- The two signals are fused by score (``blend``): a weighted sum of the full-text score
  (as a share of the best candidate's) and the cosine similarity. Reciprocal rank fusion
  was measured too and ranked worse: it flattens the full-text scores to ranks, so the
  weak vectors reorder close full-text matches.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

from memtui.store.models import Memory

MODULE = "static_model"
"""The import name of the ``tokenlearn-static-model`` package."""
VECTORS_ENV = "MEMTUI_RECALL_VECTORS"
"""Set to ``0`` to rank by full text alone although the extra is installed."""
VECTOR_WINDOW = 50
"""Newest visible memories compared by vector besides the full-text candidates."""
CACHE_SIZE = 50_000
"""Memories whose vectors a process keeps."""
VECTOR_WEIGHT = 0.4
"""The share of a memory's recall score that is its similarity to the question (the rest
is its full-text score; measured with ``python -m memtui.bench --only recall-quality``)."""
MIN_SIMILARITY = 0.45
"""A memory that matches no word of the question is recalled only when its cosine
similarity to it is at least this (unrelated texts score about 0.1-0.3)."""

Vector = tuple[float, ...]


def vectors_available() -> bool:
    """Whether the ``embeddings`` extra is installed."""
    return importlib.util.find_spec(MODULE) is not None


def vectors_wanted() -> bool:
    """Whether recall uses the vectors: the extra is installed and ``$MEMTUI_RECALL_VECTORS``
    is not ``0``."""
    return os.environ.get(VECTORS_ENV, "1") != "0" and vectors_available()


def _embedder() -> Callable[[list[str]], list[list[float]]]:
    module: Any = importlib.import_module(MODULE)
    embed: Callable[[list[str]], list[list[float]]] = module.get_embeddings
    return embed


class VectorCache:
    """Vectors of memories' texts (by the text's SHA-256, so a changed memory is embedded
    again, two stores never mix and a key stays small), least recently used dropped first; safe to share
    between threads."""

    def __init__(self, size: int = CACHE_SIZE) -> None:
        self._size = size
        self._vectors: OrderedDict[bytes, Vector] = OrderedDict()
        self._lock = threading.Lock()

    def vectors(self, memories: Sequence[Memory]) -> list[Vector]:
        """One vector per memory, embedding only those not cached."""
        keys = [hashlib.sha256(m.content.encode("utf-8", "surrogatepass")).digest()
                for m in memories]
        texts = dict(zip(keys, (m.content for m in memories), strict=True))
        with self._lock:
            found = {key: self._vectors[key] for key in keys if key in self._vectors}
            for key in found:
                self._vectors.move_to_end(key)
        missing = [key for key in texts if key not in found]
        if missing:
            fresh = embed([texts[key] for key in missing])
            with self._lock:
                for key, vector in zip(missing, fresh, strict=True):
                    found[key] = self._vectors[key] = vector
                while len(self._vectors) > self._size:
                    self._vectors.popitem(last=False)
        return [found[key] for key in keys]


CACHE = VectorCache()
"""The process's vectors (every engine of the process shares them)."""


def embed(texts: list[str]) -> list[Vector]:
    """The unit-length vectors of ``texts``."""
    return [tuple(vector) for vector in _embedder()(texts)] if texts else []


def blend(question: str, scored: Sequence[tuple[Memory, float]], more: Sequence[Memory],
          cache: VectorCache) -> list[tuple[Memory, float]]:
    """The full-text candidates ``scored`` (higher better) and those of the memories
    ``more`` at least ``MIN_SIMILARITY`` like the question, each scored ``(1 -
    VECTOR_WEIGHT) * share of the best full-text score + VECTOR_WEIGHT * cosine similarity
    to the question``, best first (ties in the order given)."""
    pool = {memory.id: memory for memory in [*(m for m, _s in scored), *more]}
    memories = list(pool.values())
    if not memories:
        return []
    best = max((score for _m, score in scored), default=0.0)
    shares = {memory.id: score / best if best > 0 else 1.0 for memory, score in scored}
    wanted = embed([question])[0]
    blended = [(memory, (1 - VECTOR_WEIGHT) * shares.get(memory.id, 0.0)
                + VECTOR_WEIGHT * sum(a * b for a, b in zip(wanted, vector, strict=True)))
               for memory, vector in zip(memories, cache.vectors(memories), strict=True)]
    kept = [(memory, value) for memory, value in blended if memory.id in shares
            or value >= VECTOR_WEIGHT * MIN_SIMILARITY]
    return sorted(kept, key=lambda item: -item[1])


__all__ = ["CACHE", "VECTORS_ENV", "VECTOR_WINDOW", "vectors_wanted", "VectorCache", "blend", "embed", "vectors_available"]
