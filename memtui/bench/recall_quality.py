"""Benchmark: how well recall answers questions, and how fast at a million memories
(``python -m memtui.bench --only recall-quality``; docs/recall.md).

Quality: the labelled set ``recall_questions.json`` is written through the engine into a new
store among ``DISTRACTORS`` generated memories, and every question is asked through
``RecallApi.recall_memories``: recall@1, recall@5 and MRR of the full-text ranking and (with
the ``embeddings`` extra) the hybrid, for the dev half, the held-out half and all. Latency:
the same questions on the big generated store beside the bare FTS5 bm25 query.
"""

from __future__ import annotations

import contextlib
import json
import random
import sqlite3
import statistics
import tempfile
from functools import partial
from pathlib import Path
from typing import Any

from memtui.bench.generate import TextModel
from memtui.bench.timing import percentile, seconds
from memtui.engine.api import Engine
from memtui.engine.recall_query import analyse
from memtui.engine.recall_vectors import vectors_available
from memtui.store.database import open_store

QUESTIONS = Path(__file__).with_name("recall_questions.json")
USER = "alice"
PROJECT = "shop"
DISTRACTORS = (0, 2000)
"""Generated memories written around the labelled ones (half user-level, half the
project's): one store of each size."""
SEED = 40
TOP = 5
RECALL_AT_5_BAR = 0.9
LATENCY_BAR_MS = 10.0
HALVES = ("dev", "held_out", "all")
"""The parts of the set reported: even-indexed questions, odd-indexed ones, every one."""
LATENCY_RUNS = 3
"""Passes over the questions when timing recall on the big store."""
BARE_QUERY = "SELECT rowid FROM memories_fts WHERE memories_fts MATCH ? ORDER BY rank LIMIT ?"
"""The reference: FTS5's own bm25 ranking of the question's words."""


def load_set(path: Path = QUESTIONS) -> dict[str, Any]:
    """The labelled set: ``{memories: [{id, scope, kind, content}], questions: [{question,
    memory}]}``."""
    return json.loads(path.read_text(encoding="utf-8"))


def build_store(folder: Path, data: dict[str, Any], distractors: int,
                seed: int = SEED) -> tuple[Engine, dict[str, str]]:
    """A new store in ``folder`` holding the labelled memories among ``distractors``
    generated ones, in a shuffled order (the labelled ones are not simply the newest);
    returns alice's engine and the stored id of each labelled memory."""
    store = open_store(folder / "quality.db")
    engine = Engine(store, USER)
    engine.identity.create_project(PROJECT, "Shop")
    rng = random.Random(seed)
    model = TextModel(rng)
    rows: list[tuple[str | None, str, str, str | None]] = [
        (memory["id"], memory["content"], memory["kind"],
         PROJECT if memory["scope"] == "project" else None) for memory in data["memories"]]
    for index in range(distractors):
        kind, text = model.memory()
        rows.append((None, text, kind, PROJECT if index % 2 else None))
    rng.shuffle(rows)
    ids: dict[str, str] = {}
    for label, text, kind, project in rows:
        memory = engine.identity.add_memory(text, kind, project)
        if label is not None:
            ids[label] = memory.id
    return engine, ids


def half(index: int) -> str:
    """The half of the set the question at ``index`` belongs to: ``dev`` (even) or
    ``held_out`` (odd)."""
    return "held_out" if index % 2 else "dev"


def metrics(ranks: list[int | None]) -> dict[str, Any]:
    """recall@1, recall@5 and MRR (over the top ``TOP``) of the ranks found (None: missed)."""
    count = len(ranks) or 1
    return {"questions": len(ranks),
            "recall_at_1": round(sum(r == 1 for r in ranks) / count, 3),
            "recall_at_5": round(sum(r is not None for r in ranks) / count, 3),
            "mrr": round(sum(1 / r for r in ranks if r) / count, 3)}


def score(engine: Engine, data: dict[str, Any], ids: dict[str, str],
          hybrid: bool) -> dict[str, Any]:
    """``metrics`` of each of ``HALVES``, and the dev half's missed questions."""
    engine.recall.use_vectors = hybrid
    ranks: dict[str, list[int | None]] = {name: [] for name in HALVES}
    misses: list[str] = []
    for index, item in enumerate(data["questions"]):
        found = [m.id for m in engine.recall.recall_memories(item["question"], TOP, PROJECT,
                                                             every_project=False)]
        wanted = ids[item["memory"]]
        rank = found.index(wanted) + 1 if wanted in found else None
        for name in (half(index), "all"):
            ranks[name].append(rank)
        if rank is None and half(index) == "dev":
            misses.append(item["question"])
    return {**{name: metrics(found) for name, found in ranks.items()}, "dev_missed": misses}


def measure_quality(distractors: int) -> dict[str, Any]:
    """Both rankings over the labelled set among ``distractors`` generated memories (the
    hybrid only when vectors are available)."""
    data = load_set()
    with tempfile.TemporaryDirectory(prefix="mtq-") as folder:
        engine, ids = build_store(Path(folder), data, distractors)
        try:
            result = {"memories": len(data["memories"]), "distractors": distractors,
                      "full_text": score(engine, data, ids, hybrid=False)}
            if vectors_available():
                result["hybrid"] = score(engine, data, ids, hybrid=True)
        finally:
            engine.store.close()
    return result


def _bare_query(conn: sqlite3.Connection, match: str) -> list[Any]:
    """The reference query's rows."""
    return conn.execute(BARE_QUERY, (match, TOP)).fetchall()


def measure_latency(db: Path | str, user: str, project: str | None, *, hybrid: bool = False,
                    runs: int = LATENCY_RUNS) -> dict[str, Any]:
    """Median and p95 (ms) of ``recall_memories`` (with the vectors when ``hybrid``) for
    every labelled question on the store ``db``, and of the bare FTS5 bm25 query of the same
    analysed words (sqlite3)."""
    questions = [item["question"] for item in load_set()["questions"]]
    recall_ms: list[float] = []
    bare_ms: list[float] = []
    with contextlib.closing(open_store(db)) as store, \
            contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as bare:
        engine = Engine(store, user)
        engine.recall.use_vectors = hybrid
        memories = int(store.execute("SELECT count(*) FROM memories").fetchone()[0])
        for question in questions:  # warm both paths
            engine.recall.recall_memories(question, TOP, project, every_project=False)
        for _ in range(runs):
            for question in questions:
                recall_ms.append(1000 * seconds(partial(
                    engine.recall.recall_memories, question, TOP, project, every_project=False)))
                match = " OR ".join(f'"{word.rstrip("*")}"' + ("*" if word.endswith("*") else "")
                                    for word in analyse(question).match.split())
                bare_ms.append(1000 * seconds(partial(_bare_query, bare, match)))
    return {"memories": memories, "samples": len(recall_ms),
            "median_ms": round(statistics.median(recall_ms), 3),
            "p95_ms": round(percentile(recall_ms, 0.95), 3),
            "bare_median_ms": round(statistics.median(bare_ms), 3),
            "bar_ms": LATENCY_BAR_MS}

