"""Model extraction against the fake endpoint: one round of N eligible tasks beside the
deterministic round of a copy of the same store. The bar is correctness, not speed: one
request per task, none over the input budget, every task extracted."""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from pathlib import Path
from typing import Any

from memtui.bench.extraction import BENCH_NOW, BENCH_USER, build_bench_store
from memtui.bench.fake_model import FakeModel
from memtui.bench.timing import timed
from memtui.engine.api import Engine
from memtui.engine.model_extraction import INPUT_BUDGET_CHARS
from memtui.store.database import open_store
from memtui.store.timeutil import FixedClock

NO_CAP = 10**9
"""The bench's token caps: high enough that they never stop the round."""


def _round(path: Path, n_tasks: int) -> tuple[float, Any]:
    with contextlib.closing(open_store(path, clock=FixedClock(BENCH_NOW))) as store:
        engine = Engine(store, BENCH_USER)
        took, summary = timed(lambda: engine.extraction.run_round(force=True, limit=n_tasks))
        return took, (summary, engine.extraction.cost(1))


def measure_model_extraction(n_tasks: int) -> dict[str, Any]:
    """The reference round and the model round over the same ``n_tasks`` tasks."""
    with tempfile.TemporaryDirectory(prefix="memtui-bench-model-") as folder:
        base = Path(folder) / "deterministic.db"
        build_bench_store(base, n_tasks).close()
        model_db = Path(folder) / "model.db"
        shutil.copyfile(base, model_db)
        reference_s, (reference, _ledger) = _round(base, n_tasks)
        with FakeModel().running() as fake:
            store = open_store(model_db, clock=FixedClock(BENCH_NOW))
            Engine(store, BENCH_USER).settings.update(
                extraction_mode="model", model_base_url=fake.url, extract_model="fake",
                model_daily_token_cap=NO_CAP, model_monthly_token_cap=NO_CAP)
            store.close()
            model_s, (summary, ledger) = _round(model_db, n_tasks)
            sent = [len(str(r.body["messages"][-1]["content"])) for r in fake.requests
                    if r.body is not None]
    today = ledger["today"]
    return {"tasks": n_tasks, "reference_s": round(reference_s, 3),
            "reference_extracted": reference.extracted, "model_s": round(model_s, 3),
            "model_extracted": summary.extracted, "requests": len(sent),
            "tokens_in": today["tokens_in"], "tokens_out": today["tokens_out"],
            "longest_text_sent": max(sent, default=0), "budget": INPUT_BUDGET_CHARS,
            "errors": summary.errors}
