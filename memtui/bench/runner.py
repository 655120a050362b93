"""The benchmark: every speed bar, measured against a reference in the same run.

``python -m memtui.bench``; the rows and their budgets are listed in docs/performance.md. A
table of sections (``--only`` name, what it says, its row function) drives the run; each row's
measuring lives in its own module (``app_start``, ``extraction``, ``redaction``, ``recall``,
``recall_quality``, ``codex_rollouts``, ``mcp``, ``agents``, ``postgres``) or, for the app's
start and Pilot timings, here.
"""
from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any
from unittest.mock import patch

from memtui.bench import agents, codex_rollouts, extraction, recall_quality
from memtui.bench import mcp as agent_ways
from memtui.bench import recall as recall_bench
from memtui.bench import redaction as redaction_bench
from memtui.bench.app_start import headless_environment
from memtui.bench.generate import (
    BENCH_PROJECT,
    BENCH_USER,
    DEFAULT_SEED,
    cached_store,
    generate_store,
)
from memtui.bench.timing import best_prefix_times, compile_package, interleaved, seconds
from memtui.store.database import open_store
from memtui.store.models import MemoryFilter, PageCursor

if TYPE_CHECKING:
    from rich.segment import Segment
    from rich.text import Text

    from memtui.store.backend import StoreBackend
    from memtui.store.models import Memory

APP_START = Path(__file__).with_name("app_start.py")
START_RUNS = 11
"""Fresh starts of each side, interleaved; the row compares their medians."""
QUICK_SETTINGS_MB = 20
"""The ~/.claude.json of a --quick run (a smoke run, not the number)."""
SCREEN_SIZE = (120, 40)
PAGE_ROWS = 100
"""Rows per page query (the app's ``PagedSource.PAGE_SIZE``)."""
FRAME_BAR_MS = 50.0
"""No scroll frame takes longer (key to frame, and to every row drawn)."""
SEARCH_BAR_MS = 50.0
"""No key takes longer from keystroke to its rows on screen."""
START_BAR = 1.5
"""Start to first paint of the list, over the empty Textual app's."""
RSS_BAR = 2.0
PAGE_FLAT_BAR = 2.0
PG_PREFIX = "PostgreSQL: "
"""How the PostgreSQL rows' names begin."""
PG_RECALL_BAR_MS = 10.0
"""Service recall median on PostgreSQL under this many milliseconds."""
SECTIONS = ("start", "search", "pages", "extraction", "redaction", "recall", "codex", "mcp",
            "agents", "hook-gate", "recall-quality", "model-extraction")
"""Every section ``--only`` may name; all but ``recall-quality`` run by default."""
TYPED = ("pytest fixtures", "staging cluster", "migrate invoice", "prefers small")
"""What the search benchmark types, one key at a time (each word is in the generated text)."""
APP_REPEATS = 5
"""Each typed search and each scroll pass runs this many times; per key the best counts."""
START_TIMEOUT_S = 120
"""A start that has not painted the list after this long is killed (and the row fails)."""
TYPE_GAP_S = 0.12
"""Pause after the list followed a key before the next one (about 8 keys a second)."""
STORE_REPS = 5
"""Each key's store query runs this many times; the best is the key's reference."""


@dataclass
class Row:
    """One line of the table."""

    what: str
    reference: str
    measured: str
    ratio: float | None
    bar: str
    ok: bool | None
    detail: dict[str, Any] = field(default_factory=dict)

    @property
    def verdict(self) -> str:
        """PASS / FAIL / n/a."""
        return "n/a" if self.ok is None else ("PASS" if self.ok else "FAIL")


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def _median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def _start_once(mode: str, db: Path | str | None, user: str) -> dict[str, float]:
    """One fresh start: seconds from spawn to imports done, app built and first paint, and
    peak RSS in MiB."""
    args = [sys.executable, str(APP_START), mode, "--width", str(SCREEN_SIZE[0]),
            "--height", str(SCREEN_SIZE[1])]
    if mode == "app":
        args += ["--db", str(db), "--user", user]
    env = {**os.environ, **headless_environment(*SCREEN_SIZE)}
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        spawned = time.time()
        process = subprocess.Popen(args, stdout=out, stderr=err, env=env)
        killer = threading.Timer(START_TIMEOUT_S, process.kill)  # a start that never paints
        killer.start()
        try:
            _pid, status, usage = os.wait4(process.pid, 0)
        finally:
            killer.cancel()
        code = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        lines = out.read().decode(errors="replace").strip().splitlines()
        if code != 0 or not lines:
            raise RuntimeError(f"{mode} start failed ({code}): "
                               f"{err.read().decode(errors='replace')[-2000:]}")
    info = json.loads(lines[-1])
    return {"imported": info["imported_at"] - spawned, "built": info["built_at"] - spawned,
            "painted": info["painted_at"] - spawned,
            "rss_mib": (info.get("peak_rss_kib") or usage.ru_maxrss) / 1024}



@dataclass
class Options:
    """What to run."""

    size: int = 1_000_000
    seed: int = DEFAULT_SEED
    db: Path | None = None
    quick: bool = False
    only: tuple[str, ...] = ()
    codex_rollouts: int = 5_000
    """Rollouts in the generated sessions folder of the ``codex`` row."""
    pg: str | None = None
    """A PostgreSQL server URL (``--pg``): the PostgreSQL rows run on it; None: skipped."""
    pg_only: bool = False
    """Only the PostgreSQL rows (no SQLite store is built)."""
    progress: Callable[[str], None] = field(default=lambda text: None)


@dataclass
class Context:
    """What a section measures: the options, the big and the 1,000-memory store (SQLite files
    or PostgreSQL URLs), how row names begin, the PostgreSQL server and the size of the
    ``codex`` row's folder."""

    options: Options
    db: Path | str = ""
    small: Path | str = ""
    prefix: str = ""
    server: str = ""
    rollouts: int = 0

    @property
    def quick(self) -> bool:
        """A smoke run: fewer runs and smaller workloads."""
        return self.options.quick



def start_rows(c: Context) -> list[Row]:
    """Start to first paint: wall time and peak RSS, app vs empty app (interleaved medians)."""
    db, user, runs = c.db, BENCH_USER, 3 if c.quick else START_RUNS
    compile_package()  # both sides start from bytecode (Textual's is compiled already)
    if hasattr(os, "sync"):
        os.sync()  # start from a quiet disk: no writeback left over from earlier work
    _start_once("empty", None, user)  # warm the OS caches (files, the store) for both
    _start_once("app", db, user)
    runs_of = interleaved(runs, {mode: partial(_start_once, mode, db, user)
                                 for mode in ("empty", "app")})
    med = {mode: {key: _median([run[key] for run in samples]) for key in samples[0]}
           for mode, samples in runs_of.items()}
    empty, app = med["empty"], med["app"]
    t_ratio = app["painted"] / empty["painted"]
    m_ratio = app["rss_mib"] / empty["rss_mib"]
    detail = {"runs": runs, "size": list(SCREEN_SIZE), "median": med, "samples": runs_of}
    phases = (f"imports {_ms(app['imported'])}, built {_ms(app['built'])}; "
              f"empty: imports {_ms(empty['imported'])}")
    return [
        Row("start to first paint of the list (wall)", f"empty app {_ms(empty['painted'])}",
            f"{_ms(app['painted'])} ({phases})", t_ratio, f"<= {START_BAR}x",
            t_ratio <= START_BAR, detail),
        Row("start to first paint of the list (peak RSS)",
            f"empty app {empty['rss_mib']:.0f} MiB", f"{app['rss_mib']:.0f} MiB", m_ratio,
            f"<= {RSS_BAR}x", m_ratio <= RSS_BAR, {}),
    ]


@dataclass
class Frame:
    """One compositor refresh of the screen."""

    start: float
    end: float
    rows: int
    placeholders: int
    search: str | None
    count: int | None


class FrameRecorder:
    """Records every frame (the Screen method ``textual_compat.SCREEN_FRAME_METHOD``) and the
    memory rows drawn in it; ``frame_where`` waits for a frame without polling."""

    def __init__(self) -> None:
        self.frames: list[Frame] = []
        self.memory_list: Any = None
        self._rows = 0
        self._placeholders = 0
        self.fetches = 0
        self.narrowed: dict[str, bool] = {}
        """Per search shown: whether a key's rows were worked out from the rows on screen
        (``ListLoading.ahead``) rather than waiting for its query (the last time)."""
        self._waiting: tuple[Callable[[Frame], bool], asyncio.Event] | None = None

    async def frame_where(self, wanted: Callable[[Frame], bool], since: float,
                          timeout: float) -> Frame | None:
        """The first frame since ``since`` for which ``wanted`` holds, waiting up to ``timeout``
        seconds (None then), woken by the frame itself: a poll would take the GIL from the app."""
        if not any(wanted(f) for f in self.since(since)):
            event = asyncio.Event()
            self._waiting = (wanted, event)
            try:
                async with asyncio.timeout(timeout):  # (no task made, unlike wait_for)
                    await event.wait()
            except TimeoutError:
                return None
            finally:
                self._waiting = None
        return next((f for f in self.since(since) if wanted(f)), None)

    def _recorded(self, frame: Frame) -> None:
        self.frames.append(frame)
        waiting = self._waiting
        if waiting is not None and waiting[0](frame):
            waiting[1].set()

    @contextlib.contextmanager
    def installed(self) -> Iterator[FrameRecorder]:
        """Patch the hooks for the block."""
        from textual.screen import Screen

        from memtui.app.textual_compat import SCREEN_FRAME_METHOD
        from memtui.app.widgets.list_loading import ListLoading, LoadRequest
        from memtui.app.widgets.memory_list import MemoryList
        from memtui.app.widgets.paged_source import PagedSource, PagePlan

        recorder = self
        original_refresh = getattr(Screen, SCREEN_FRAME_METHOD)
        original_row_text = MemoryList.row_text
        original_row_segments = MemoryList.row_segments
        original_fetch = PagedSource.fetch
        original_ahead = ListLoading.ahead

        def compositor_refresh(screen: Screen) -> None:
            recorder._rows = recorder._placeholders = 0
            start = time.perf_counter()
            original_refresh(screen)
            end = time.perf_counter()
            ml = recorder.memory_list
            source = getattr(ml, "source", None) if ml is not None else None
            recorder._recorded(Frame(
                start, end, recorder._rows, recorder._placeholders,
                source.filter.search if source is not None else None,
                source.count if source is not None else None))

        def row_text(ml: MemoryList, index: int, width: int) -> Text | None:
            text = original_row_text(ml, index, width)
            if ml is recorder.memory_list:
                if text is None:
                    recorder._placeholders += 1
                else:
                    recorder._rows += 1
            return text

        def row_segments(ml: MemoryList, index: int, width: int,
                         ) -> tuple[list[Segment], int] | None:
            drawn = original_row_segments(ml, index, width)
            if drawn is not None and ml is recorder.memory_list:
                recorder._rows += 1  # else the row is drawn by row_text, counted there
            return drawn

        def fetch(source: PagedSource, plan: PagePlan) -> list[Memory]:
            recorder.fetches += 1
            return original_fetch(source, plan)

        def ahead(loading: ListLoading, request: LoadRequest, shown: PagedSource | None,
                  height: int) -> Any:
            found = original_ahead(loading, request, shown, height)
            ml = recorder.memory_list
            if ml is not None and loading is ml._loading and request.flt.search:
                recorder.narrowed[request.flt.search] = found is not None
            return found

        with (patch.object(Screen, SCREEN_FRAME_METHOD, compositor_refresh),
              patch.object(ListLoading, "ahead", ahead),
              patch.object(MemoryList, "row_text", row_text),
              patch.object(MemoryList, "row_segments", row_segments),
              patch.object(PagedSource, "fetch", fetch)):
            yield self

    def since(self, moment: float) -> list[Frame]:
        """Frames that started after ``moment``."""
        return [frame for frame in self.frames if frame.start >= moment]


async def _wait_until(condition: Callable[[], bool], timeout: float) -> bool:
    deadline = time.perf_counter() + timeout
    while time.perf_counter() < deadline:
        if condition():
            return True
        await asyncio.sleep(0.002)
    return condition()


async def _cleared(pane: Any) -> bool:
    """Clear the search box; whether the whole list came back."""
    ml = pane.memory_list
    pane.search_box.value = ""
    return await _wait_until(lambda: ml.source is not None and ml.source.filter.search is None
                             and ml.count is not None, 120)


async def _type_search(pilot: Any, pane: Any, recorder: FrameRecorder, text: str,
                       ) -> list[tuple[str, float, bool]]:
    """Type ``text`` into the search box one key at a time; (prefix, ms to list updated,
    whether its rows were worked out from the rows on screen)."""
    from memtui.app.textual_compat import send_key_as_driver

    if not await _cleared(pane):
        raise RuntimeError("the list did not come back after clearing the search")
    await pilot.pause(0.2)
    out: list[tuple[str, float, bool]] = []
    recorder.narrowed.clear()
    for i in range(1, len(text) + 1):
        expected = text[:i].strip() or None
        key = text[i - 1]
        pressed = time.perf_counter()
        send_key_as_driver(pilot.app, "space" if key == " " else key)

        def updated(frame: Frame, expected: str | None = expected) -> bool:
            return frame.search == expected and bool(frame.rows or frame.count == 0)

        frame = await recorder.frame_where(updated, pressed, 30)
        if frame is None:
            raise RuntimeError(f"the list never showed the search {expected!r}")
        out.append((text[:i], (frame.end - pressed) * 1000,
                    recorder.narrowed.pop(expected, False) if expected else False))
        await asyncio.sleep(TYPE_GAP_S)
    return out


async def _scroll(pilot: Any, ml: Any, recorder: FrameRecorder, keys: list[str],
                  ) -> list[dict[str, Any]]:
    """Press each key; per key: ms to the first frame, ms to a frame with every row drawn."""
    from memtui.app.textual_compat import send_key_as_driver

    out: list[dict[str, Any]] = []
    for key in keys:
        pressed = time.perf_counter()
        send_key_as_driver(pilot.app, key)

        settled = await recorder.frame_where(lambda f: bool(f.rows and not f.placeholders),
                                             pressed, 10)
        await asyncio.sleep(0.03)
        frames = recorder.since(pressed)
        first = frames[0] if frames else None
        out.append({
            "key": key, "cursor": ml.cursor,
            "first_frame_ms": (first.end - pressed) * 1000 if first else None,
            "settled_ms": (settled.end - pressed) * 1000 if settled else None,
            "render_ms": max((f.end - f.start) * 1000 for f in frames) if frames else None})
    return out


async def _drive_app(db: Path | str, user: str, typed: tuple[str, ...], scroll_steps: int,
                     repeats: int) -> dict[str, Any]:
    """Open the real app under Pilot; type searches and scroll, ``repeats`` times each."""
    from memtui.app.main import create_app
    from memtui.app.panes.memories import MemoriesPane

    store = open_store(db)
    app = create_app(store, user)
    recorder = FrameRecorder()
    out: dict[str, Any] = {"keys": [], "scroll": []}
    with recorder.installed():
        # with its tooltip and notification widgets, as in a terminal (Pilot leaves them
        # out by default, and Textual then looks for the tooltip on every key in vain)
        async with app.run_test(size=SCREEN_SIZE, tooltips=True, notifications=True) as pilot:
            pane = app.current_pane()
            assert isinstance(pane, MemoriesPane), "the app must open on a memory list"
            ml = pane.memory_list
            recorder.memory_list = ml
            if not await _wait_until(lambda: ml.count is not None and any(
                    f.rows for f in recorder.frames), 120):
                raise RuntimeError("the memory list never showed its rows and count")
            out["list_count"] = ml.count
            await pilot.press("slash")
            for repeat in range(repeats):
                for text in typed:
                    for prefix, ms, from_screen in await _type_search(pilot, pane, recorder,
                                                                      text):
                        out["keys"].append({"text": prefix, "ms": ms, "repeat": repeat,
                                            "from_screen": from_screen})
            assert pane.search_box is not None, "the search box was opened above"
            await _cleared(pane)
            ml.focus()
            await pilot.pause(0.3)
            keys = (["pagedown"] * scroll_steps + ["end"] + ["pageup"] * scroll_steps
                    + ["home", "end", "home"])
            fetches = recorder.fetches
            for repeat in range(repeats):
                for step, result in enumerate(await _scroll(pilot, ml, recorder, keys)):
                    out["scroll"].append(result | {"step": step, "repeat": repeat})
            out["scroll_fetches"] = recorder.fetches - fetches
            out["cached_pages"] = len(ml.source.cached_pages()) if ml.source else None
            out["reached_row"] = max(s["cursor"] for s in out["scroll"])
    store.close()
    return out


def _best_of(samples: list[dict[str, Any]], key: str, value: str) -> dict[Any, float]:
    """Per ``key``, the smallest ``value`` over the repeats (noise on a shared machine only
    ever adds time)."""
    best: dict[Any, float] = {}
    for sample in samples:
        if sample[value] is None:
            continue
        best[sample[key]] = min(best.get(sample[key], float("inf")), sample[value])
    return best


def bare_fts_times(db: Path, typed: tuple[str, ...], reps: int = 5) -> list[float]:
    """The reference: the bare FTS5 query in sqlite3 for every prefix typed (a page of
    rowids), best of ``reps`` seconds per prefix."""
    from memtui.store.search_terms import fts_query

    with contextlib.closing(sqlite3.connect(str(db))) as conn:
        return best_prefix_times(typed, fts_query, lambda query: conn.execute(
            "SELECT rowid FROM memories_fts WHERE memories_fts MATCH ? LIMIT ?",
            (query, PAGE_ROWS)).fetchall(), reps)


def store_search_times(db: Path | str, user: str, typed: tuple[str, ...],
                       reps: int = STORE_REPS) -> dict[str, float]:
    """The store's part of each keystroke: the first page of the searched list
    (``memories.page``), best of ``reps`` seconds per prefix typed, each query a typing
    pause (``TYPE_GAP_S``) after the one before, as a typed key's query is (a query straight
    after another finds the processor's caches warm)."""
    times: dict[str, float] = {}
    with contextlib.closing(open_store(db)) as store:
        for text in typed:
            for i in range(1, len(text) + 1):
                flt = MemoryFilter(scope="user", owner=user, search=text[:i].strip() or None)
                times[text[:i]] = min(_paced_page(store, flt) for _ in range(reps))
    return times


def _paced_page(store: Any, flt: MemoryFilter) -> float:
    """Seconds of one first-page query, run a typing pause after the one before."""
    time.sleep(TYPE_GAP_S)
    return seconds(lambda: store.memories.page(flt, PAGE_ROWS))


def key_ratios(keys: dict[str, float], in_store: dict[str, float]) -> dict[str, float]:
    """Per key typed: keystroke-to-list time over the store's own first-page query for
    the same search (both in ms)."""
    return {key: ms / in_store[key] for key, ms in keys.items()
            if in_store.get(key, 0) > 0}


def search_rows(c: Context) -> list[Row]:
    """Search as you type and scrolling in the real app under Pilot (each key's ratio to its
    own store query is information)."""
    db, user, prefix = c.db, BENCH_USER, c.prefix
    typed = TYPED[:2] if c.quick else TYPED
    repeats = 1 if c.quick else APP_REPEATS
    raw = asyncio.run(_drive_app(db, user, typed, 5 if c.quick else 15, repeats))
    keys = _best_of(raw["keys"], "text", "ms")
    key_ms = list(keys.values())
    if prefix:
        from memtui.bench.postgres import bare_search_times

        bare = [b * 1000 for b in bare_search_times(str(db), typed, PAGE_ROWS)]
        bare_what = "bare tsvector query"
    else:
        bare = [b * 1000 for b in bare_fts_times(Path(db), typed)]
        bare_what = "bare FTS5 query"
    key_med, key_max = _median(key_ms), max(key_ms)
    worst_key = max(keys, key=keys.__getitem__)
    bare_med, bare_max = _median(bare), max(bare)
    in_store = {key: t * 1000 for key, t in store_search_times(db, user, typed).items()}
    ratios = key_ratios(keys, in_store)
    highest = max(ratios, key=ratios.__getitem__) if ratios else None
    store_ms = list(in_store.values())
    from_screen = sorted({sample["text"] for sample in raw["keys"] if sample["from_screen"]})
    search = Row(
        f"{prefix}search as you type: keystroke to list updated",
        f"{bare_what} median {bare_med:.2f} ms, max {bare_max:.2f} ms; the store's page "
        f"query, each a typing pause after the last: median {_median(store_ms):.1f} ms, max "
        f"{max(store_ms):.1f} ms",
        f"median {key_med:.1f} ms, max {key_max:.1f} ms ({worst_key!r}, "
        f"{ratios.get(worst_key, 0):.2f}x its store query of {in_store.get(worst_key, 0):.1f} ms); "
        f"highest ratio {ratios.get(highest, 0) if highest else 0:.2f}x ({highest!r}); "
        f"{len(from_screen)} of {len(keys)} keys shown from the rows on screen before their query",
        key_med / bare_med if bare_med else None, f"every key <= {SEARCH_BAR_MS:.0f} ms",
        key_max <= SEARCH_BAR_MS,
        {"best_ms": keys, "samples": raw["keys"], "bare_ms": bare, "store_ms": in_store,
         "ratio_to_store": ratios, "slowest_key": worst_key, "highest_ratio_key": highest,
         "repeats": repeats, "list_rows": raw["list_count"], "keys_from_screen": from_screen})
    first = _best_of(raw["scroll"], "step", "first_frame_ms")
    settled = _best_of(raw["scroll"], "step", "settled_ms")
    render = _best_of(raw["scroll"], "step", "render_ms")
    worst_first = max(first.values()) if first else float("inf")
    worst_settled = max(settled.values()) if settled else float("inf")
    scroll = Row(
        f"{prefix}scroll to the end and back: slowest frame",
        f"{raw['list_count']:,} rows; frame render max {max(render.values()):.1f} ms",
        f"key to frame max {worst_first:.1f} ms (median {_median(list(first.values())):.1f}); "
        f"to all rows drawn max {worst_settled:.1f} ms", None,
        f"<= {FRAME_BAR_MS:.0f} ms", max(worst_first, worst_settled) <= FRAME_BAR_MS,
        {"samples": raw["scroll"], "page_fetches": raw["scroll_fetches"],
         "cached_pages": raw["cached_pages"], "reached_row": raw["reached_row"],
         "repeats": repeats})
    return [search, scroll]


def extraction_rows(c: Context) -> list[Row]:
    """An extraction round over eligible tasks vs a read-only loop."""
    result = extraction.measure_extraction(n_tasks := 2_000 if c.quick else 10_000)
    rate = result["extraction_tasks_per_s"]
    return [Row(f"extraction round, {n_tasks:,} eligible tasks",
                f"read-only loop {result['read_only_tasks_per_s']:,.0f} tasks/s",
                f"{rate:,.0f} tasks/s", result["extraction_vs_read_time"],
                f">= {extraction.BAR_TASKS_PER_S:,.0f} tasks/s",
                rate >= extraction.BAR_TASKS_PER_S, result)]


def codex_rows(c: Context) -> list[Row]:
    """``codex import-rollouts`` first run vs ``json.loads``; an unchanged second run."""
    result = codex_rollouts.measure_codex_import(c.rollouts)
    first_bar, second_bar = codex_rollouts.FIRST_RUN_BAR, codex_rollouts.SECOND_RUN_BAR
    return [
        Row(f"codex import-rollouts, {c.rollouts:,} rollouts ({result['megabytes']:,.0f} MB)",
            f"json.loads of the same lines {result['json_loads_mbps']:,.0f} MB/s",
            f"{result['first_mbps']:,.0f} MB/s ({result['imported']:,} tasks)",
            result["first_vs_loads"], f">= {first_bar:.0%} of json.loads",
            result["first_vs_loads"] >= first_bar, result),
        Row("codex import-rollouts again, folder unchanged",
            f"first run {result['first_s']:.2f} s", f"{result['second_s']:.3f} s",
            result["second_vs_first"], f"< {second_bar:.0%} of the first run",
            result["second_vs_first"] < second_bar, result)]


def redaction_rows(c: Context) -> list[Row]:
    """Redaction throughput vs ``re`` scanning the same text for one literal."""
    result = redaction_bench.measure_throughput(2.0 if c.quick else 6.0)
    rate, bar = result["redact_mbps"], redaction_bench.THROUGHPUT_BAR_MBPS
    return [Row("redaction throughput (ordinary text)",
                f"re one-literal {result['re_literal_mbps']:,.0f} MB/s", f"{rate:,.1f} MB/s",
                result["ratio_to_re_literal"], f">= {bar:.0f} MB/s", rate >= bar, result)]


def recall_rows(c: Context) -> list[Row]:
    """Recall through the service vs the Python API (on PostgreSQL: ``PG_RECALL_BAR_MS``)."""
    result = recall_bench.measure_recall(c.db, runs=2 if c.quick else 5, user=BENCH_USER,
                                         bar_ms=PG_RECALL_BAR_MS if c.prefix
                                         else recall_bench.BAR_MS)
    return [Row(f"{c.prefix}recall through the service ({result['memories']:,} memories)",
                f"Python API median {result['api_median_ms']:.2f} ms",
                f"median {result['service_median_ms']:.2f} ms "
                f"(p95 {result['service_p95_ms']:.2f})", result["ratio_service_to_api"],
                f"median < {result['bar_ms']:g} ms", bool(result["meets_bar"]), result)]


def _recall_scores(found: dict[str, Any]) -> str:
    return (f"recall@1 {found['recall_at_1']:.3f}, recall@5 {found['recall_at_5']:.3f}, "
            f"MRR {found['mrr']:.3f}")


def quality_rows(c: Context) -> list[Row]:
    """Recall@1/@5 and MRR of the labelled questions, full text beside the hybrid."""
    rows, bar = [], recall_quality.RECALL_AT_5_BAR
    for result in (recall_quality.measure_quality(size) for size in recall_quality.DISTRACTORS):
        for name in recall_quality.HALVES:
            text, hybrid = result["full_text"][name], result.get("hybrid", {}).get(name)
            rows.append(Row(
                f"recall quality, {name.replace('_', '-')} ({text['questions']} questions, "
                f"{result['distractors']:,} distractors)", f"full text {_recall_scores(text)}",
                f"hybrid {_recall_scores(hybrid)}" if hybrid
                else "hybrid skipped: no embeddings extra",
                None, f"recall@5 >= {bar}", (hybrid or text)["recall_at_5"] >= bar,
                {"full_text": text, "hybrid": hybrid}))
    return rows


def question_latency_rows(c: Context) -> list[Row]:
    """Recall of the labelled questions on the big store (full text, hybrid) vs bare FTS5."""
    from memtui.engine.recall_vectors import vectors_available

    rows = []
    for hybrid in (False, True) if vectors_available() else (False,):
        found = recall_quality.measure_latency(c.db, BENCH_USER, BENCH_PROJECT, hybrid=hybrid)
        rows.append(Row(
            f"recall of natural questions, {'hybrid' if hybrid else 'full text'} "
            f"({found['memories']:,} memories)",
            f"bare FTS5 bm25 median {found['bare_median_ms']:.2f} ms",
            f"median {found['median_ms']:.2f} ms (p95 {found['p95_ms']:.2f})",
            round(found["median_ms"] / found["bare_median_ms"], 2)
            if found["bare_median_ms"] else None,
            f"median <= {found['bar_ms']:g} ms", found["median_ms"] <= found["bar_ms"], found))
    return rows


def mcp_rows(c: Context) -> list[Row]:
    """MCP recall round trips, and the session-start hook's wall time."""
    recall = agent_ways.measure_mcp_recall(c.db, BENCH_USER, runs=2 if c.quick else 5)
    hook = agent_ways.measure_hook_start(c.db, BENCH_USER, runs=5 if c.quick else 11)
    return [
        Row(f"memory_recall through MCP over stdio ({recall['memories']:,} memories)",
            f"Python API median {recall['api_median_ms']:.2f} ms",
            f"median {recall['mcp_median_ms']:.2f} ms (p95 {recall['mcp_p95_ms']:.2f})",
            recall["ratio"], f"median < {recall['bar_ms']:g} ms", bool(recall["meets_bar"]),
            recall),
        Row("memtui hook session-start, end to end (wall)",
            f"python3 -c \"import sqlite3, json\" {hook['reference_median_ms']:.1f} ms",
            f"{hook['hook_median_ms']:.1f} ms"
            f"{'' if hook['injected'] else ' (nothing injected)'}", hook["ratio"],
            f"<= {agent_ways.HOOK_BAR:g}x", bool(hook["meets_bar"]), hook),
    ]


def gate_rows(c: Context) -> list[Row]:
    """The write gate's two paths, each against ``import json`` in the same run."""
    gate = agent_ways.measure_hook_gate(runs=5 if c.quick else 15)
    outside, inside = agent_ways.GATE_BAR, agent_ways.GATE_MEMORY_BAR
    reference = f"python3 -c \"import json\" {gate['reference_median_ms']:.1f} ms"
    return [
        Row("write gate: a file outside the memory (wall)", reference,
            f"{gate['outside_median_ms']:.1f} ms", gate["outside_ratio"], f"<= {outside:g}x",
            gate["outside_ratio"] <= outside, gate),
        Row("write gate: a memory file held in the inbox (wall)", reference,
            f"{gate['memory_median_ms']:.1f} ms ({gate['held']}/{gate['runs']} held)",
            gate["memory_ratio"], f"<= {inside:g}x",
            gate["memory_ratio"] <= inside and gate["held"] == gate["runs"], gate),
    ]


def model_rows(c: Context) -> list[Row]:
    """A model round against the fake endpoint beside the deterministic round."""
    result = extraction.measure_model_extraction(n_tasks := 200 if c.quick else 1_000)
    ok = (result["requests"] == n_tasks == result["model_extracted"]
          and result["longest_text_sent"] <= result["budget"])
    return [Row(f"model extraction round, {n_tasks:,} tasks (fake endpoint on 127.0.0.1)",
                f"deterministic {result['reference_s']:.2f} s",
                f"{result['model_s']:.2f} s, {result['requests']:,} requests, "
                f"{result['tokens_in']:,} tokens in / {result['tokens_out']:,} out",
                result["model_s"] / result["reference_s"],
                "1 request a task, each <= the input budget", ok, result)]


def settings_rows(c: Context) -> list[Row]:
    """``hooks install``'s merge of a large ``~/.claude.json`` vs ``json.load`` + ``dump``."""
    result = agents.measure_settings_merge(QUICK_SETTINGS_MB if c.quick else agents.SETTINGS_MB,
                                           reps=1 if c.quick else 3)
    return [Row(f"~/.claude.json of {result['bytes'] / 1e6:.0f} MB merged by hooks install "
                "(time; peak memory)",
                f"json.load + json.dump {result['reference_s']:.2f} s; "
                f"{result['reference_peak_bytes'] / 1e6:.0f} MB",
                f"{result['merge_s']:.2f} s; {result['merge_peak_bytes'] / 1e6:.0f} MB"
                f"{'' if result['kept_every_other_byte'] else ' (BYTES CHANGED)'}",
                result["time_ratio"],
                f"time <= {agents.MERGE_TIME_BAR:g}x, memory <= {agents.MERGE_MEMORY_BAR:g}x, "
                "bytes kept", bool(result["meets_bar"]), result)]


def agents_rows(c: Context) -> list[Row]:
    """``agents_overview`` of Claude Code and Gemini CLI homes vs a bare read of the files."""
    result = agents.measure_agents(agents.DEFAULT_PROJECTS, reps=3 if c.quick else 7)
    return [Row(f"agent homes read ({result['projects']} projects each, {result['rows']} rows)",
                f"bare read {_ms(result['bare_read_s'])}", _ms(result["overview_s"]),
                result["ratio_to_bare_read"], f"< {result['bar_s']:g} s",
                bool(result["meets_bar"]), result)]


def pg_workers_rows(c: Context) -> list[Row]:
    """Two worker processes extracting one round on PostgreSQL vs one (tasks/s)."""
    n_tasks = 2_000 if c.quick else 10_000
    result = extraction.measure_pg_workers(c.server, n_tasks, 1 if c.quick else 3)
    one, two = result["one_worker_tasks_per_s"], result["two_workers_tasks_per_s"]
    ratio = result["ratio"]
    return [Row(f"{PG_PREFIX}two workers extracting one round of {n_tasks:,} tasks",
                f"one worker {one:,.0f} tasks/s", f"{two:,.0f} tasks/s "
                f"(no task twice, none lost)", ratio, f">= {extraction.WORKERS_BAR}x one worker",
                ratio >= extraction.WORKERS_BAR, result)]


def _page_queries(store: StoreBackend, user: str,
                  ) -> tuple[int, dict[str, Callable[[], object]]]:
    """The length of the bench user's list in ``store`` and its three page queries, by name."""
    flt = MemoryFilter(scope="user", owner=user)
    memories = store.memories
    count = memories.count(flt)
    # 90% down the list, with a full page after it (the small store's list is short)
    deep = memories.list_at(flt, max(0, min(int(count * 0.9), count - PAGE_ROWS - 1)), 1)[0]
    return count, {
        "first page": partial(memories.page, flt, PAGE_ROWS),
        "keyset page 90% deep": partial(memories.page, flt, PAGE_ROWS,
                                        after=PageCursor(deep.created_at, deep.id)),
        "positional page from the end": partial(memories.list_at, flt, PAGE_ROWS, PAGE_ROWS,
                                                from_end=True)}


def page_rows(c: Context) -> list[Row]:
    """The same page queries on the big store and on a 1,000-memory store."""
    reps = 30 if c.quick else 200
    rows: list[Row] = []
    with contextlib.closing(open_store(c.db)) as big_store, \
            contextlib.closing(open_store(c.small)) as small_store:
        (big_count, big), (small_count, small) = (_page_queries(store, BENCH_USER)
                                                  for store in (big_store, small_store))
        for name, query in big.items():
            times = interleaved(reps, {"small": partial(seconds, small[name]),
                                       "big": partial(seconds, query)})
            big_t, small_t = _median(times["big"]), _median(times["small"])
            ratio = big_t / small_t
            rows.append(Row(
                f"{c.prefix}list page ({PAGE_ROWS} rows): {name}",
                f"1k store, {small_count:,}-row list: {small_t * 1000:.3f} ms",
                f"{big_count:,}-row list: {big_t * 1000:.3f} ms", ratio,
                f"<= {PAGE_FLAT_BAR}x (flat)", ratio <= PAGE_FLAT_BAR,
                {"reps": reps, "small_ms": small_t * 1000, "big_ms": big_t * 1000}))
    return rows


@contextlib.contextmanager
def working_stores(options: Options) -> Iterator[tuple[Path, Path]]:
    """(the N store, the 1,000-memory store), generating what is missing. The N store is
    ``--db`` itself, or a copy of the cached one (the app may write to what it opens) that is
    on disk before it is used: otherwise the writeback of its ~1 GB runs under the first
    measurements and slows whichever side reads more files."""
    say = options.progress
    if options.db is not None:
        if not options.db.exists():
            say(f"store of {options.size:,} memories (seed {options.seed})…")
            generate_store(options.db, options.size, options.seed)
        yield options.db, cached_store(1000, options.seed)[0]
        return
    say(f"store of {options.size:,} memories (seed {options.seed})…")
    path, was_cached = cached_store(options.size, options.seed,
                                    progress=lambda done, n: say(f"  generated {done:,}/{n:,}"))
    say(f"  {'cached' if was_cached else 'generated'}: {path}")
    small, _ = cached_store(1000, options.seed)
    with tempfile.TemporaryDirectory(prefix="memtui-bench-", ignore_cleanup_errors=True) as folder:
        shutil.copyfile(path, copy := Path(folder) / path.name)
        with copy.open("rb+") as copied:
            os.fsync(copied.fileno())
        yield copy, small


@dataclass(frozen=True)
class Section:
    """A step of the benchmark: the ``--only`` name it belongs to, what it says it runs, and
    how it measures its rows."""

    name: str
    says: str
    rows: Callable[[Context], list[Row]]


STORELESS = (Section("model-extraction", "model extraction against the fake endpoint…",
                     model_rows),
             Section("hook-gate", "the write gate's two paths…", gate_rows),
             Section("recall-quality", "recall quality of the labelled questions…",
                     quality_rows))
"""The sections run first, on no memory store."""
ON_STORE = (Section("start", "start to first paint…", start_rows),
            Section("search", "search as you type and scrolling (Pilot)…", search_rows),
            Section("extraction", "extraction…", extraction_rows),
            Section("redaction", "redaction…", redaction_rows),
            Section("pages", "list pages…", page_rows),
            Section("recall", "recall…", recall_rows),
            Section("recall-quality", "recall of the labelled questions on the big store…",
                    question_latency_rows),
            Section("mcp", "MCP recall and the session-start hook…", mcp_rows))
"""The sections run on the generated store (a working copy)."""
ON_PG_STORE = tuple(Section(s.name, PG_PREFIX + s.says, s.rows) for s in ON_STORE
                    if s.name in ("search", "pages", "recall"))
"""The sections also run on the generated store on PostgreSQL."""
ON_PG_SERVER = (Section("extraction", "PostgreSQL: one worker and two workers extracting one "
                        "round…", pg_workers_rows),)
"""The sections run on the PostgreSQL server itself (their own databases)."""
AT_HOME = (Section("codex", "codex import-rollouts…", codex_rows),
           Section("agents", "agent homes…", agents_rows),
           Section("agents", "a large ~/.claude.json…", settings_rows))
"""The sections run last, on generated agent homes (no memory store)."""


def _measure(c: Context, wanted: set[str], sections: tuple[Section, ...]) -> list[Row]:
    """The rows of each section that is wanted, in order, saying what runs."""
    rows: list[Row] = []
    for section in sections:
        if section.name in wanted:
            c.options.progress(section.says)
            rows += section.rows(c)
    return rows


def run(options: Options) -> list[Row]:
    """Run the benchmark; returns the rows in table order."""
    wanted = set(options.only) or set(SECTIONS) - {"recall-quality"}
    c = Context(options, rollouts=options.codex_rollouts)
    rows = _measure(c, wanted, STORELESS)
    if not wanted & {section.name for section in ON_STORE}:
        return rows + _measure(c, wanted, AT_HOME)
    if options.pg_only:
        return rows + measure_postgres(options, wanted)
    with working_stores(options) as (c.db, c.small):
        rows += _measure(c, wanted, ON_STORE)
    rows += measure_postgres(options, wanted)
    c.rollouts = 200 if options.quick else options.codex_rollouts
    return rows + _measure(c, wanted, AT_HOME)


def measure_postgres(options: Options, wanted: set[str]) -> list[Row]:
    """The PostgreSQL rows (of the wanted sections) on the server ``options.pg``:
    the generated store of ``options.size`` memories (cached on the server) and of 1,000,
    the same generator rows as SQLite's, loaded with COPY. One ``n/a`` row saying why when
    no server was given; a failing row when the server cannot be used."""
    sections = wanted & {section.name for section in ON_PG_STORE + ON_PG_SERVER}
    if not sections:
        return []
    from memtui.bench import postgres as pg

    if options.pg is None:
        return [Row(f"{PG_PREFIX}every row", "-",
                    f"skipped: no server given (--pg URL or ${pg.BENCH_PG_ENV})", None, "-",
                    None)]
    say, server = options.progress, options.pg
    try:
        info = pg.server_summary(server)
    except pg.BenchServerError as error:
        return [Row(f"{PG_PREFIX}every row", "-", f"not run: {error}", None, "-", False)]
    say(f"PostgreSQL {info['version']} at {info['server']}: store of {options.size:,} "
        f"memories (seed {options.seed})…")
    c = Context(options, prefix=PG_PREFIX, server=server)
    rows: list[Row] = []
    if sections & {section.name for section in ON_PG_STORE}:
        name = pg.cached_database_name(options.size, options.seed)
        _url, was_cached = pg.cached_pg_store(
            server, options.size, options.seed,
            progress=lambda done, n: say(f"  loaded {done:,}/{n:,}"))
        say(f"  {'cached' if was_cached else 'generated'}: {name}")
        c.small, _ = pg.cached_pg_store(server, 1000, options.seed)
        say("  working copy…")
        with pg.working_copy(server, name) as c.db:
            rows += _measure(c, sections, ON_PG_STORE)
    rows += _measure(c, sections, ON_PG_SERVER)
    for row in rows:
        row.detail.setdefault("postgres", info)
    return rows


def format_table(rows: list[Row]) -> str:
    """The rows as a Markdown table."""
    head = ("what", "reference (same run)", "measured", "ratio", "bar", "result")
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in rows:
        ratio = "-" if row.ratio is None else f"{row.ratio:.2f}x"
        lines.append(f"| {row.what} | {row.reference} | {row.measured} | {ratio} | {row.bar} "
                     f"| {row.verdict} |")
    return "\n".join(lines)


def rows_json(rows: list[Row]) -> list[dict[str, Any]]:
    """The rows as JSON objects."""
    return [asdict(row) | {"result": row.verdict} for row in rows]
