"""Codex CLI against the fake model: a throwaway ``CODEX_HOME``, ``codex exec`` turns, the
MCP round trip and Codex's own memory pipeline (stage 1 and the consolidation attempt).

Codex is pointed at the fake server with a custom ``[model_providers.fake]`` entry
(``base_url = "<fake>/v1"``, ``wire_api = "responses"``, ``env_key``); analytics, feedback,
telemetry and update checks are off. Its memory pipeline runs in the background at the start
of a session and claims earlier threads that are idle (``min_rollout_idle_hours``) and came
from an interactive source (``cli``/``vscode``; ``codex exec`` threads are ``exec``), so
``age_threads`` moves the earlier threads' times back and makes them ``cli`` in
``state_5.sqlite``. The main turn's answer waits until the pipeline has written its result,
so ``codex exec`` does not exit under it.

``regenerate(dest)`` runs the scenario and keeps the home it leaves as a fixture.
"""

from __future__ import annotations

import datetime as dt
import json
import shutil
import sqlite3
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..agent_install import AgentProgram, install
from ..conftest import AgentHome, memtui_program, new_agent_home
from ..fake_model.exchange import Exchange, Policy, Reply, Say
from ..fake_model.openai_responses import FAKE_MODEL, OpenAIResponsesAdapter
from ..fake_model.server import FakeModelServer

FAKE_KEY_ENV = "MEMTUI_FAKE_OPENAI_KEY"
"""The variable ``env_key`` names; Codex sends its value as the bearer token."""
STAGE1_SUMMARY = "The shop project tests with pytest, never unittest."
"""What the fake model answers as the rollout summary of the first thread."""
STAGE1_SLUG = "shop-tests-pytest"
STAGE1_RAW_MEMORY = ("---\ndescription: shop tests with pytest\ntask: testing\n---\n"
                     "The shop project tests with pytest, never unittest.\n")
"""The raw memory, for a Codex whose stage-1 schema still asks for one."""
FIRST_PROMPT = "Remember: this project tests with pytest, never unittest."
SECOND_PROMPT = "What do we use for tests?"
CONSOLIDATION_MARK = "Consolidate the supplied rollout summaries"
"""The start of Codex's consolidation (phase 2) prompt."""
PIPELINE_WAIT_S = 90.0
"""How long the main turn's answer waits for the pipeline's result (a bound against a hang:
it is written within a second or two)."""
POLL_S = 0.2
AGE_S = 3 * 24 * 3600
"""How far ``age_threads`` moves threads back: past ``min_rollout_idle_hours``."""
INTERACTIVE_SOURCE = "cli"

CONFIG_TEMPLATE = """\
model = "{model}"
model_provider = "fake"
approval_policy = "never"
sandbox_mode = "workspace-write"
check_for_update_on_startup = false

[features]
memories = true

[memories]
generate_memories = true
use_memories = true

[model_providers.fake]
name = "fake"
base_url = "{url}/v1"
wire_api = "responses"
env_key = "{key_env}"

[analytics]
enabled = false

[feedback]
enabled = false

[otel]
exporter = "none"

[history]
persistence = "none"
"""

MEMORY_DBS = ("memories_v2_1.sqlite", "memories_1.sqlite")
"""Where Codex keeps its stage-1 rows and jobs (the newest layout first)."""


def codex_home(home: AgentHome) -> Path:
    """``~/.codex`` of the throwaway home."""
    return home.root / ".codex"


def write_config(home: AgentHome, url: str) -> Path:
    """Codex's ``config.toml`` pointing at the fake model (created 0700/0600)."""
    folder = codex_home(home)
    folder.mkdir(mode=0o700, exist_ok=True)
    path = folder / "config.toml"
    path.write_text(CONFIG_TEMPLATE.format(model=FAKE_MODEL, url=url, key_env=FAKE_KEY_ENV),
                    encoding="utf-8")
    path.chmod(0o600)
    return path


def codex_env(home: AgentHome) -> dict[str, str]:
    """The extra environment of a Codex run: its home, the fake key, and memtui on PATH."""
    # lead: drop once absolute commands land (hooks install writes a bare `memtui`)
    path = f"{memtui_program().parent}:{home.env['PATH']}"
    return {"CODEX_HOME": str(codex_home(home)), FAKE_KEY_ENV: "fake-key", "PATH": path,
            "RUST_LOG": "warn"}


MCP_STARTUP_TIMEOUT_S = 120
"""How long Codex may wait for memtui's MCP server to start and list its tools (a bound
against a hang)."""
OPTIONAL_MCP_GRACE_MS = 0
"""Codex's ``mcp_optional_startup_grace_ms`` for the run. memtui is an optional MCP server
(not ``required``), and Codex waits for optional servers only this grace (1000 ms by
default, counted from the turn's first tool listing) before it sends the turn without their
tools; ``startup_timeout_sec`` only bounds the server's own start. memtui's server
cold-starts in about a second of CPU (mostly the MCP SDK's import), which a loaded test
machine stretches past the default. ``0`` makes Codex wait for each server's
``startup_timeout_sec`` instead: what a user's machine does in time, with no race."""


def exec_codex(home: AgentHome, program: AgentProgram, prompt: str) -> Any:
    """``codex exec`` one prompt in the project (no git repository needed); with memtui
    installed, Codex waits for its MCP server (up to ``MCP_STARTUP_TIMEOUT_S``) before the
    turn, as it does when the server starts within the grace."""
    config = home.root / ".codex" / "config.toml"
    installed = config.is_file() and "[mcp_servers.memtui]" in config.read_text("utf-8")
    wait = ["-c", f"mcp_optional_startup_grace_ms={OPTIONAL_MCP_GRACE_MS}",
            "-c", f"mcp_servers.memtui.startup_timeout_sec={MCP_STARTUP_TIMEOUT_S}"] \
        if installed else []
    return home.run([program.program, "exec", "--skip-git-repo-check", *wait, prompt],
                    extra_env=codex_env(home))


def output_schema(exchange: Exchange) -> dict[str, Any] | None:
    """The JSON schema a request constrains the answer to (``text.format``), else None."""
    text = exchange.body.get("text")
    fmt = text.get("format") if isinstance(text, dict) else None
    if isinstance(fmt, dict) and fmt.get("type") == "json_schema":
        schema = fmt.get("schema")
        return schema if isinstance(schema, dict) else None
    return None


STAGE1_VALUES = {"rollout_summary": STAGE1_SUMMARY, "rollout_slug": STAGE1_SLUG,
                 "raw_memory": STAGE1_RAW_MEMORY}


def stage1_reply(exchange: Exchange) -> Say | None:
    """The stage-1 answer, shaped by the request's schema (Codex 0.169's asks for
    ``rollout_summary`` and ``rollout_slug`` only; older ones for ``raw_memory`` too)."""
    schema = output_schema(exchange)
    if schema is None:
        return None
    properties = schema.get("properties")
    keys = list(properties) if isinstance(properties, dict) else list(STAGE1_VALUES)
    return Say(json.dumps({key: STAGE1_VALUES.get(key, "") for key in keys}))


def is_consolidation(exchange: Exchange) -> bool:
    """Whether a request is Codex's consolidation agent's turn."""
    return CONSOLIDATION_MARK in exchange.text


@dataclass
class PipelineWatch:
    """Answers the pipeline's requests; holds the main turn until the pipeline is done."""

    home: AgentHome
    stage1: list[Exchange] = field(default_factory=list)
    consolidation: list[Exchange] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def policy(self, main: Policy, *, wait: bool) -> Policy:
        """Stage-1 and consolidation requests answered here; the rest by ``main``, after
        the pipeline's jobs are no longer running when ``wait`` is set."""

        def answer(exchange: Exchange) -> Reply:
            reply = stage1_reply(exchange)
            if reply is not None:
                with self.lock:
                    self.stage1.append(exchange)
                return reply
            if is_consolidation(exchange):
                with self.lock:
                    self.consolidation.append(exchange)
                return Say("Consolidation done.")
            if wait and not exchange.tool_results:
                self.wait_done()
            return main(exchange)

        return answer

    def wait_done(self) -> None:
        """Until a stage-1 row is written and no job is ``running`` (or the bound passes)."""
        deadline = time.monotonic() + PIPELINE_WAIT_S
        while time.monotonic() < deadline:
            if self._settled():
                return
            time.sleep(POLL_S)

    def _settled(self) -> bool:
        for name in MEMORY_DBS:
            path = codex_home(self.home) / name
            if not path.exists():
                continue
            try:
                conn = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True, timeout=1)
                try:
                    rows = conn.execute("SELECT COUNT(*) FROM stage1_outputs").fetchone()[0]
                    running = conn.execute(
                        "SELECT COUNT(*) FROM jobs WHERE status = 'running'").fetchone()[0]
                finally:
                    conn.close()
            except sqlite3.Error:
                continue
            if rows and not running:
                return True
        return False


def age_threads(home: AgentHome, seconds: int = AGE_S) -> list[str]:
    """Move every thread back ``seconds`` and make it ``cli`` (Codex's idle and source
    rules), and let every job lease of an exited Codex lapse; returns the thread ids."""
    state = sqlite3.connect(codex_home(home) / "state_5.sqlite")
    try:
        columns = {row[1] for row in state.execute("PRAGMA table_info(threads)")}
        sets = ["source = ?", "updated_at = updated_at - ?", "created_at = created_at - ?"]
        values: list[Any] = [INTERACTIVE_SOURCE, seconds, seconds]
        for name in ("updated_at_ms", "created_at_ms"):
            if name in columns:
                sets.append(f"{name} = {name} - ?")
                values.append(seconds * 1000)
        state.execute(f"UPDATE threads SET {', '.join(sets)}", values)
        state.commit()
        ids = [row[0] for row in state.execute("SELECT id FROM threads ORDER BY id")]
    finally:
        state.close()
    now = int(time.time())
    for name in MEMORY_DBS:
        path = codex_home(home) / name
        if path.exists():
            conn = sqlite3.connect(path)
            try:
                conn.execute("UPDATE jobs SET lease_until = ? WHERE status = 'running'",
                             (now - 60,))
                conn.commit()
            finally:
                conn.close()
    return ids


def answer(text: str) -> Policy:
    """A main-turn policy that always answers ``text``."""
    return lambda _exchange: Say(text)


@dataclass(frozen=True)
class PipelineRun:
    """What ``run_memory_pipeline`` saw: the first thread, the requests, the exec results."""

    thread_id: str
    stage1: tuple[Exchange, ...]
    consolidation: tuple[Exchange, ...]
    outputs: tuple[Any, ...]


def run_memory_pipeline(home: AgentHome, program: AgentProgram,
                        first: Callable[[FakeModelServer], None] | None = None
                        ) -> PipelineRun:
    """Two ``codex exec`` sessions: the first one a plain turn (or ``first``), then, with its
    thread aged, a second whose start runs stage 1 on it and the consolidation attempt."""
    watch = PipelineWatch(home)
    with FakeModelServer([OpenAIResponsesAdapter()],
                         watch.policy(answer("Noted."), wait=False)) as server:
        write_config(home, server.url)
        outputs = []
        if first is not None:
            first(server)
        else:
            outputs.append(exec_codex(home, program, FIRST_PROMPT))
        ids = age_threads(home)
        server.policy = watch.policy(answer("We use pytest."), wait=True)
        outputs.append(exec_codex(home, program, SECOND_PROMPT))
    return PipelineRun(ids[0] if ids else "", tuple(watch.stage1), tuple(watch.consolidation),
                       tuple(outputs))


# ---- the fixture home ---------------------------------------------------------------------

KEEP_GLOBS = (".codex/config.toml", ".codex/*.sqlite", ".codex/memories*/**/*.md",
              ".codex/sessions/**/*.jsonl")
"""What the fixture keeps of the Codex home (what memtui reads)."""
SKIP_NAMES = frozenset({"logs_2.sqlite"})
"""Codex's own logs: large, nothing memtui reads."""
SKIP_PARTS = frozenset({".git", ".codex-baseline", "skills"})


def _checkpoint(path: Path) -> None:
    """Fold a database's WAL into the file, so the copy is whole without ``-wal``."""
    conn = sqlite3.connect(path)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.execute("PRAGMA journal_mode = DELETE")
    finally:
        conn.close()


def _vacuum(path: Path) -> None:
    """Drop the free pages of a copied database (the fixture stays small)."""
    conn = sqlite3.connect(path)
    try:
        conn.execute("VACUUM")
    finally:
        conn.close()


def keep_home(source: Path, dest: Path) -> list[str]:
    """Copy what memtui reads of a Codex home into ``dest``; returns the relative paths."""
    kept: list[str] = []
    for pattern in KEEP_GLOBS:
        for path in sorted(source.glob(pattern)):
            relative = path.relative_to(source)
            if (not path.is_file() or path.name in SKIP_NAMES
                    or SKIP_PARTS & set(relative.parts)):
                continue
            if path.suffix == ".sqlite":
                _checkpoint(path)
            target = dest / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
            if path.suffix == ".sqlite":
                _vacuum(target)
            kept.append(str(relative))
    return sorted(set(kept))


SOURCE_TEMPLATE = """\
# Codex CLI {version}: a home the real program wrote

- Program: `{package}@{version}` from npm (`{program_name}`), run by
  `tests/interop/scenarios/codex.py` (`scripts/regenerate-agent-homes codex`).
- Date: {date}.
- Model: the suite's fake OpenAI Responses server on 127.0.0.1 (`{model}`).
- Throwaway home: `{root}` (paths inside the files are absolute to it; the project was
  `{project}`). `.codex/` is the `CODEX_HOME`.
- What ran: `codex exec --skip-git-repo-check "{first}"`, then the threads' times moved back
  {age_days} days and their source set to `cli` in `state_5.sqlite` (Codex's idle and source
  rules), then `codex exec --skip-git-repo-check "{second}"`, whose start ran stage 1 on the
  first thread (the fake model answered the schema Codex asked for) and a consolidation
  attempt (the fake model answered with text and wrote no files).
- Kept: {kept}. Left out: `logs_2.sqlite`, `skills/`, the git baselines of `memories*/`,
  lock files.
"""


def regenerate(dest: Path) -> None:
    """Run the scenario with the pinned (or ``$MEMTUI_AGENT_VERSIONS``) Codex and keep the
    home in ``dest``."""
    program = install("codex")
    with tempfile.TemporaryDirectory(prefix="memtui-codex-") as tmp:
        home = new_agent_home(Path(tmp))
        run = run_memory_pipeline(home, program)
        for done in run.outputs:
            if done.returncode != 0:
                raise RuntimeError(f"codex exec failed: {done.stderr[-500:]}")
        dest.mkdir(parents=True, exist_ok=True)
        kept = keep_home(home.root, dest)
        (dest / "SOURCE.md").write_text(SOURCE_TEMPLATE.format(
            version=program.version, package=program.package, program_name=program.program.name,
            date=dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"), model=FAKE_MODEL,
            root=home.root, project=home.project, first=FIRST_PROMPT, second=SECOND_PROMPT,
            age_days=AGE_S // 86400, kept=", ".join(f"`{name}`" for name in kept)),
            encoding="utf-8")
