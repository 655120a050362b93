"""The second recall signal (docs/recall.md): static word embeddings of WordLlama's
``l2_supercat``, read from the ``wordllama`` wheel's files (the ``embeddings`` extra); a text's
vector is the unit-length mean of its tokens' vectors.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from memtui.store.models import Memory

MODULE = "wordllama"
PACKAGED_FILES = ("weights/l2_supercat_256.safetensors",
                  "tokenizers/l2_supercat_tokenizer_config.json")
"""The model's weights and tokenizer inside the package (``wordllama==0.4.0.post1``)."""
WEIGHTS_KEY = "embedding.weight"
VECTORS_ENV = "MEMTUI_RECALL_VECTORS"
"""Set to ``0`` to rank by full text alone although the extra is installed."""
VECTOR_WINDOW = 100
"""Newest visible memories compared by vector besides the full-text candidates."""
CACHE_SIZE = 50_000
"""Memories whose vectors a process keeps (least recently used dropped first)."""
VECTOR_WEIGHT = 0.5
"""The share of a memory's recall score that is its similarity to the question (the rest
is its full-text score; measured with ``python -m memtui.bench --only recall-quality``)."""
MIN_SIMILARITY = 0.2
"""A memory that matches no word of the question is recalled only when its cosine
similarity to it is at least this (unrelated texts score about -0.1 to 0.15 with this model)."""

Embedder = Callable[[list[str]], Any]


def _package_folder() -> Path | None:
    spec = importlib.util.find_spec(MODULE)
    return None if spec is None or spec.origin is None else Path(spec.origin).parent


def vectors_available() -> bool:
    """Whether the ``embeddings`` extra is installed with its model files."""
    folder = _package_folder()
    return folder is not None and all((folder / name).is_file() for name in PACKAGED_FILES)


def vectors_wanted() -> bool:
    """Whether recall uses the vectors: the extra is there and ``$MEMTUI_RECALL_VECTORS`` not 0."""
    return os.environ.get(VECTORS_ENV, "1") != "0" and vectors_available()


_MODEL: list[Embedder] = []
_MODEL_LOCK = threading.Lock()


def _embedder() -> Embedder:
    """The model, loaded once per process from the package's two files (not its code: it
    configures the process's logging when imported)."""
    with _MODEL_LOCK:
        if not _MODEL:
            _MODEL.append(_load())
        return _MODEL[0]


def _load() -> Embedder:
    import numpy
    from safetensors import safe_open
    from tokenizers import Tokenizer

    folder = _package_folder()
    if folder is None:
        raise RuntimeError(f"the {MODULE} package is not installed")
    weights, tokenizer_file = (str(folder / name) for name in PACKAGED_FILES)
    with safe_open(weights, framework="np", device="cpu") as tensors:
        table = tensors.get_tensor(WEIGHTS_KEY)
    tokenizer = Tokenizer.from_file(tokenizer_file)
    tokenizer.no_padding()
    tokenizer.no_truncation()

    def mean_of_tokens(texts: list[str]) -> Any:
        out = numpy.zeros((len(texts), table.shape[1]), dtype=numpy.float32)
        encoded = tokenizer.encode_batch(texts, add_special_tokens=False)
        for row, encoding in enumerate(encoded):
            ids = [token for token in encoding.ids if token < len(table)]
            if ids:
                vector = table[ids].astype(numpy.float32).mean(axis=0)
                length = float(numpy.linalg.norm(vector))
                if length > 0:
                    out[row] = vector / length
        return out

    return mean_of_tokens


def embed(texts: list[str]) -> Any:
    """The unit-length vectors of ``texts``: a ``len(texts)`` x dimensions float32 array."""
    import numpy

    if not texts:
        return numpy.zeros((0, 0), dtype=numpy.float32)
    return numpy.asarray(_embedder()(texts), dtype=numpy.float32)


class VectorCache:
    """Vectors of memories' texts by the text's SHA-256; safe to share between threads."""

    def __init__(self, size: int = CACHE_SIZE) -> None:
        self._size = size
        self._vectors: OrderedDict[bytes, Any] = OrderedDict()
        self._lock = threading.Lock()

    def vectors(self, memories: Sequence[Memory]) -> Any:
        """One vector per memory (rows of an array), embedding only those not cached."""
        import numpy

        if not memories:
            return numpy.zeros((0, 0), dtype=numpy.float32)
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
        return numpy.stack([found[key] for key in keys])


CACHE = VectorCache()


def blend(question: str, scored: Sequence[tuple[Memory, float]], more: Sequence[Memory],
          cache: VectorCache, more_vectors: Any = None) -> list[tuple[Memory, float]]:
    """The full-text candidates ``scored`` and the memories ``more`` (their vectors
    ``more_vectors`` when known) at least ``MIN_SIMILARITY`` like the question, scored by a
    ``VECTOR_WEIGHT`` blend of their share of the best full-text score and their cosine
    similarity to the question, best first (ties in the order given)."""
    import numpy

    candidates = [memory for memory, _score in scored]
    if not candidates and not more:
        return []
    best = max((score for _m, score in scored), default=0.0)
    shares = {memory.id: score / best if best > 0 else 1.0 for memory, score in scored}
    if more_vectors is None:
        more_vectors = cache.vectors(more)
    parts = [part for part in (cache.vectors(candidates), more_vectors) if len(part)]
    similarity = (numpy.concatenate(parts) @ embed([question])[0]).tolist()
    seen: set[str] = set()
    blended = []
    for memory, alike in zip([*candidates, *more], similarity, strict=True):
        if memory.id in seen:
            continue
        seen.add(memory.id)
        value = (1 - VECTOR_WEIGHT) * shares.get(memory.id, 0.0) + VECTOR_WEIGHT * alike
        if memory.id in shares or value >= VECTOR_WEIGHT * MIN_SIMILARITY:
            blended.append((memory, value))
    return sorted(blended, key=lambda item: -item[1])
