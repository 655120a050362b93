"""Benchmark rows for the agents' way in, each a median beside a reference in the same run:
``memory_recall`` through ``memtui mcp`` over stdio vs the Python API; ``memtui hook
session-start`` end to end vs ``python3 -c "import sqlite3, json"``; Claude Code's write gate
for a write outside the memory and into it vs ``python3 -c "import json"``."""

from __future__ import annotations

import contextlib
import json
import os
import statistics
import sys
import tempfile
import time
from functools import partial
from pathlib import Path
from typing import Any

from memtui.bench.recall import make_queries
from memtui.bench.timing import compile_package, interleaved, percentile, run_timed, seconds
from memtui.engine.api import Engine
from memtui.store.database import open_sqlite_store as open_store

RECALL_BAR_MS = 10.0
"""Median ``memory_recall`` round trip through MCP under this many milliseconds."""
HOOK_BAR = 3.0
"""The session-start hook takes at most this many times ``import sqlite3, json``."""
RECALL_LIMIT = 8
BASELINE = [sys.executable, "-c", "import sqlite3, json"]
GATE_BAR = 2.0
"""A write outside the memory: at most this many times ``python3 -c "import json"``."""
GATE_MEMORY_BAR = 4.0
"""A write into a memory folder (held in the inbox): at most this many times."""
GATE_BASELINE = [sys.executable, "-c", "import json"]


def measure_mcp_recall(db: Path | str, user: str, runs: int) -> dict[str, Any]:
    """Median and p95 (ms) of ``memory_recall`` through MCP and of the Python API."""
    import anyio
    import mcp_types as types
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    # the server runs in an empty folder: no project, so every readable one
    with contextlib.closing(open_store(db)) as store, \
            tempfile.TemporaryDirectory(prefix="memtui-bench-mcp-") as folder:
        memories = int(store.execute("SELECT count(*) FROM memories").fetchone()[0])
        queries = make_queries(store, user)
        engine = Engine(store, user)
        api_ms: list[float] = []
        mcp_ms: list[float] = []
        params = StdioServerParameters(
            command=sys.executable, args=["-m", "memtui", "--db", str(db), "--user", user,
                                          "mcp"], cwd=folder, env=dict(os.environ))

        async def session_run() -> None:
            with open(os.devnull, "w") as errlog:
                async with stdio_client(params, errlog=errlog) as streams, ClientSession(
                        streams[0], streams[1], client_info=types.Implementation(
                            name="memtui-bench", version="1")) as client:
                    await client.initialize()
                    for query in queries:  # warm both paths
                        engine.recall.recall_memories(query, RECALL_LIMIT)
                        await client.call_tool("memory_recall", {"query": query,
                                                                 "limit": RECALL_LIMIT})
                    for _ in range(runs):
                        for query in queries:
                            api_ms.append(1000 * seconds(partial(
                                engine.recall.recall_memories, query, RECALL_LIMIT)))
                            began = time.perf_counter()
                            result = await client.call_tool(
                                "memory_recall", {"query": query, "limit": RECALL_LIMIT})
                            mcp_ms.append((time.perf_counter() - began) * 1000.0)
                            if result.is_error:
                                raise RuntimeError(f"memory_recall failed: {result.content[0]}")

        anyio.run(session_run)
    mcp_median, api_median = statistics.median(mcp_ms), statistics.median(api_ms)
    return {"memories": memories, "user": user, "queries": len(queries), "runs": runs,
            "mcp_median_ms": round(mcp_median, 3),
            "mcp_p95_ms": round(percentile(mcp_ms, 0.95), 3),
            "api_median_ms": round(api_median, 3),
            "ratio": round(mcp_median / api_median, 2) if api_median else None,
            "bar_ms": RECALL_BAR_MS, "meets_bar": mcp_median < RECALL_BAR_MS}


def _hook_folder(db: Path | str, user: str) -> str:
    """A project root of the user (so the hook injects project memories too), else a folder
    of no project; switches the user's ``use_memories`` on (a working copy of the store)."""
    with contextlib.closing(open_store(db)) as store:
        engine = Engine(store, user)
        engine.settings.update(use_memories=1)
        for project, _role in engine.identity.list_projects():
            if project.root_path and Path(project.root_path).is_dir():
                return project.root_path
    return tempfile.gettempdir()


def measure_hook_start(db: Path | str, user: str, runs: int) -> dict[str, Any]:
    """Median wall time (ms) of ``memtui hook session-start`` and of the reference."""
    compile_package()
    folder = _hook_folder(db, user)
    payload = json.dumps({"session_id": "bench-session", "transcript_path": "",
                          "cwd": folder, "hook_event_name": "SessionStart",
                          "source": "startup"}).encode()
    hook = [sys.executable, "-m", "memtui", "--db", str(db), "--user", user, "hook",
            "session-start"]
    run_timed(BASELINE)  # warm the OS caches for both
    injected = bool(run_timed(hook, payload)[1].strip())
    samples = interleaved(runs, {"base": lambda: run_timed(BASELINE)[0],
                                 "hook": lambda: run_timed(hook, payload)[0]})
    hook_median, base_median = (statistics.median(samples[key]) for key in ("hook", "base"))
    ratio = hook_median / base_median
    return {"runs": runs, "hook_median_ms": round(hook_median * 1000, 1),
            "reference_median_ms": round(base_median * 1000, 1), "ratio": round(ratio, 2),
            "injected": injected, "bar": HOOK_BAR, "meets_bar": ratio <= HOOK_BAR}


def measure_hook_gate(runs: int) -> dict[str, Any]:
    """Median wall time (ms) of the write gate's two paths and of ``import json``."""
    from memtui.cli import gate_hook

    compile_package()
    with tempfile.TemporaryDirectory(prefix="memtui-bench-gate-") as scratch:
        home = Path(scratch)
        folder = home / ".claude" / "projects" / "-work-shop" / "memory"
        folder.mkdir(parents=True)
        env = {"HOME": str(home), "PATH": os.environ.get("PATH", ""), "MEMTUI_USER": "bench"}
        gate = [sys.executable, "-I", "-S", gate_hook.__file__, "--db", str(home / "m.db")]

        def payload(path: Path, number: int) -> bytes:
            return json.dumps({"session_id": "bench", "cwd": str(home), "tool_name": "Write",
                               "tool_input": {"file_path": str(path), "content": (
                                   f"---\nname: topic-{number}\ndescription: bench topic "
                                   f"{number}\nmetadata:\n  type: project\n---\n\nThe "
                                   f"bench remembers fact number {number}.\n")}}).encode()

        timed = partial(run_timed, env=env, quiet=True)
        timed(gate, payload(folder / "warm.md", -1))  # the store made once, as in use
        samples: dict[str, list[float]] = {"base": [], "outside": [], "memory": []}
        held = 0
        for number in range(runs):  # interleaved: drift in machine load hits all alike
            samples["base"].append(timed(GATE_BASELINE, b"")[0])
            samples["outside"].append(timed(gate, payload(home / "src.py", number))[0])
            elapsed, out = timed(gate, payload(folder / f"t{number}.md", number))
            samples["memory"].append(elapsed)
            held += b'"deny"' in out
    base, outside, memory = (statistics.median(samples[key]) for key in
                             ("base", "outside", "memory"))
    return {"runs": runs, "reference_median_ms": round(base * 1000, 1),
            "outside_median_ms": round(outside * 1000, 1),
            "memory_median_ms": round(memory * 1000, 1), "held": held,
            "outside_ratio": round(outside / base, 2), "memory_ratio": round(memory / base, 2),
            "bars": [GATE_BAR, GATE_MEMORY_BAR],
            "meets_bar": outside / base <= GATE_BAR and memory / base <= GATE_MEMORY_BAR
            and held == runs}

