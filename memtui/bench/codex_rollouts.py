"""Bench row: ``codex import-rollouts`` over a generated sessions folder, imported twice
into a fresh store: the first run's MB/s beside ``json.loads`` of the same lines, the second,
unchanged run beside the first."""

from __future__ import annotations

import json
import random
import tempfile
import time
from pathlib import Path
from typing import Any

from memtui.bench.timing import seconds, timed
from memtui.engine.api import Engine
from memtui.store.database import open_store

DEFAULT_ROLLOUTS = 5_000
"""The full row's folder size (about 500 MB)."""
FIRST_RUN_BAR = 0.25
"""The first import must reach this share of ``json.loads``' MB/s over the same lines."""
SECOND_RUN_BAR = 0.05
"""The second, unchanged import must take less than this share of the first's time."""
TOOL_CALLS_PER_ROLLOUT = 24
OUTPUT_BYTES = 3_600
"""Bytes of one tool output line: with the rest, about 100 kB per rollout."""
BENCH_USER = "bench"
BASE_TIME = 1_790_000_000


def _record(stamp: str, kind: str, payload: dict[str, Any]) -> str:
    return json.dumps({"timestamp": stamp, "type": kind, "payload": payload},
                      separators=(",", ":"))


def _rollout(index: int, rng: random.Random) -> tuple[str, str, str]:
    """(relative folder, file name, text) of one generated rollout."""
    moment = time.gmtime(BASE_TIME + index * 97)
    day = time.strftime("%Y/%m/%d", moment)
    thread = f"0199a5c4-{index // 65536:04x}-7{index % 4096:03x}-8000-{index:012x}"
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", moment)
    words = " ".join(rng.choice(("cache", "parser", "retry", "index", "schema", "test"))
                     for _ in range(12))
    lines = [_record(stamp, "session_meta", {"id": thread, "timestamp": stamp,
                                             "cwd": f"/home/dev/project{index % 20}",
                                             "originator": "codex_cli_rs", "source": "cli",
                                             "cli_version": "0.130.0",
                                             "git": {"branch": "main"}}),
             _record(stamp, "response_item", {"type": "message", "role": "user", "content": [
                 {"type": "input_text", "text": "<environment_context>\n<cwd>/w</cwd>\n"
                                                "</environment_context>"}]}),
             _record(stamp, "event_msg", {"type": "user_message",
                                          "message": f"Please fix the {words}"}),
             _record(stamp, "turn_context", {"cwd": "/w", "model": "gpt-5-codex"})]
    for call in range(TOOL_CALLS_PER_ROLLOUT):
        output = "".join(rng.choice("abcdefghij klmnop\n") for _ in range(OUTPUT_BYTES))
        lines += [
            _record(stamp, "response_item", {"type": "reasoning", "summary": [],
                                             "encrypted_content": "gAAAA" * 40}),
            _record(stamp, "response_item", {"type": "function_call", "name": "shell",
                                             "arguments": json.dumps({"command": ["ls"]}),
                                             "call_id": f"c{call}"}),
            _record(stamp, "response_item", {"type": "function_call_output",
                                             "call_id": f"c{call}", "output": output}),
            _record(stamp, "event_msg", {"type": "token_count", "info": {"total": call}}),
        ]
    lines.append(_record(stamp, "event_msg", {"type": "agent_message",
                                              "message": f"Fixed the {words}."}))
    name = f"rollout-{time.strftime('%Y-%m-%dT%H-%M-%S', moment)}-{thread}.jsonl"
    return day, name, "\n".join(lines) + "\n"


def generate_sessions(home: Path, n: int, seed: int = 15) -> int:
    """Write ``n`` rollouts under ``home/sessions``; returns the bytes written."""
    rng = random.Random(seed)
    total = 0
    for index in range(n):
        day, name, text = _rollout(index, rng)
        folder = home / "sessions" / day
        folder.mkdir(parents=True, exist_ok=True)
        data = text.encode("utf-8")
        (folder / name).write_bytes(data)
        total += len(data)
    return total


def _json_loads(home: Path) -> None:
    for path in sorted((home / "sessions").rglob("rollout-*.jsonl")):
        with path.open("rb") as handle:
            for line in handle:
                json.loads(line)


def measure_codex_import(n: int = DEFAULT_ROLLOUTS) -> dict[str, Any]:
    """Generate, then time ``json.loads`` and two imports; the numbers of the row."""
    with tempfile.TemporaryDirectory(prefix="memtui-bench-codex-",
                                     ignore_cleanup_errors=True) as name:
        folder = Path(name)
        home = folder / ".codex"
        size = generate_sessions(home, n)
        loads_s = seconds(lambda: _json_loads(home))
        engine = Engine(open_store(folder / "store.db"), BENCH_USER)
        first_s, first = timed(lambda: engine.codex.import_rollouts(home))
        second_s, second = timed(lambda: engine.codex.import_rollouts(home))
        megabytes = size / 1e6
        return {"rollouts": n, "megabytes": megabytes, "json_loads_s": loads_s,
                "json_loads_mbps": megabytes / loads_s, "first_s": first_s,
                "first_mbps": megabytes / first_s, "imported": first.imported,
                "second_s": second_s, "second_unchanged": second.unchanged,
                "first_vs_loads": (megabytes / first_s) / (megabytes / loads_s),
                "second_vs_first": second_s / first_s}
