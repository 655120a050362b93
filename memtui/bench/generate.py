"""A reproducible store generator for the benchmark and the scale tests.

``generate_store(path, n, seed)`` writes ``n`` memories of realistic text (templates over
Zipf-weighted vocabularies with a long tail of identifiers), users, projects, supersede
chains, tasks and extraction-log rows; the same ``(n, seed)`` always gives the same store.
``BENCH_USER`` and ``BENCH_PROJECT`` own the long lists that matter.
"""

from __future__ import annotations

import bisect
import fcntl
import itertools
import os
import random
import string
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from memtui.store import bench_data
from memtui.store.backend import StoreBackend
from memtui.store.database import open_sqlite_store as open_store
from memtui.store.ids import SequentialIds, encode_id
from memtui.store.models import Memory, Project
from memtui.store.repository import row_values
from memtui.store.schema import LATEST_VERSION
from memtui.store.timeutil import MIN_TIME, FixedClock, format_time

GENERATOR_VERSION = 1
"""Bump when the generated data changes (cached stores are keyed by it)."""
DEFAULT_SIZE = 1_000_000
DEFAULT_SEED = 7
BENCH_USER = "alice"
BENCH_PROJECT = "monorepo"
USER_SHARE = 0.55
PROJECT_SHARE = 0.35
SUPERSEDE_RATE = 0.05
SKIPPED_TASK_RATE = 0.1
EXTRA_SENTENCE_RATE = 0.35
CHUNK = 50_000
START = datetime(2024, 6, 3, 8, 0, tzinfo=UTC)
SPAN_DAYS = 730

USERS = ("alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi")
PROJECTS = (  # id, name, owner, members (user, role)
    ("monorepo", "Monorepo", "alice", (("bob", "member"), ("carol", "reader"), ("dave", "member"))),
    ("webshop", "Webshop", "alice", (("bob", "member"), ("erin", "reader"))),
    ("infra", "Infrastructure", "bob", (("alice", "member"), ("frank", "member"))),
    ("ml-pipeline", "ML pipeline", "carol", (("alice", "reader"), ("grace", "member"))),
    ("docs-site", "Docs site", "dave", (("heidi", "member"),)),
    ("mobile-app", "Mobile app", "erin", (("alice", "member"), ("frank", "reader"))),
    ("data-warehouse", "Data warehouse", "grace", (("carol", "member"),)),
    ("billing", "Billing", "heidi", (("alice", "reader"), ("bob", "member"))),
)


TOOLS = """pytest ruff mypy black poetry uv pip pipx docker podman kubernetes helm terraform
ansible postgres sqlite redis celery django flask fastapi starlette react typescript webpack
vite eslint prettier git tox nox make bazel cargo rustfmt clippy gofmt npm pnpm yarn nginx
grafana prometheus sentry kafka airflow spark pandas numpy polars pydantic sqlalchemy alembic
textual rich click typer httpx requests aiohttp uvicorn gunicorn tmux neovim vscode jq ripgrep
fzf direnv pyenv hypothesis coverage pre-commit dependabot renovate jenkins buildkite
circleci argo vault consul envoy istio opentelemetry jaeger loki elasticsearch opensearch
clickhouse duckdb minio boto3 localstack playwright selenium cypress storybook tailwind
graphql grpc protobuf thrift msgpack orjson ujson structlog loguru sphinx mkdocs""".split()
COMPONENTS = """checkout-service billing-module auth-middleware search-indexer feature-store
ingestion-pipeline api-gateway admin-dashboard notification-worker payment-webhook cli
test-harness migration-scripts cache-layer rate-limiter scheduler config-loader
logging-setup metrics-exporter session-store upload-handler report-generator email-sender
pdf-renderer image-resizer audit-trail permission-checker feature-flags queue-consumer
retry-policy health-check web-frontend mobile-client sync-engine backup-job cron-runner
deploy-script staging-cluster ci-pipeline docs-builder release-tooling secrets-loader
websocket-hub graphql-schema orm-models serializer-layer tokenizer embedding-service
vector-index recommendation-engine""".split()
VERBS = """parse load save fetch build render validate normalize compute merge split sync
retry flush migrate resolve encode decode index rank score filter group sort dedupe
schedule dispatch publish subscribe refresh expire rotate archive export import hydrate
serialize batch stream throttle authorize authenticate register cleanup""".split()
NOUNS = """config user order invoice payment session token cache queue event message record
report schema table column index query result page cursor batch job task worker handler
request response header payload buffer file path url route view model form field widget
layout theme style asset bundle chunk segment shard replica snapshot checkpoint migration
fixture mock stub client server socket channel topic partition offset metric trace span log
alert rule policy role member project tenant account profile setting flag feature
experiment variant cohort""".split()
LANGUAGES = ["Python", "TypeScript", "Go", "Rust", "SQL", "Bash", "YAML", "Terraform", "Kotlin"]
DIRS = ["src", "lib", "services", "packages", "apps", "tools", "scripts", "tests", "infra",
        "docs", "internal", "pkg", "cmd", "web", "api"]
REASONS = [
    "it is faster on large inputs", "the old approach leaked connections",
    "it keeps the CI under ten minutes", "the team already knows it",
    "it removes a flaky dependency", "the vendor dropped support",
    "it makes the error messages readable", "it halves the memory footprint",
    "reviews were missing this too often", "it works offline on the dev boxes",
    "the previous version broke on Windows", "it keeps secrets out of the logs",
    "it avoids a migration lock on the big tables", "it is what production already runs",
    "it gives deterministic builds", "the benchmarks showed a clear win",
]
CAUSES = [
    "a race between two workers", "an off-by-one in the pagination", "a missing index",
    "timezone handling around midnight UTC", "a stale cache entry", "an unclosed file handle",
    "a retry storm after a timeout", "unicode normalization in user names",
    "a default argument shared between calls", "a transaction held across an await",
    "float rounding in currency amounts", "an environment variable read at import time",
]
STYLES = ["small pure functions", "explicit type hints", "dataclasses over dicts",
          "early returns", "plain asserts in tests", "f-strings", "pathlib over os.path",
          "structured logging", "keyword-only arguments", "immutable value objects",
          "short modules", "docstrings on public functions", "snake_case file names"]
ANTI = ["global state", "bare except", "mutable default arguments", "wildcard imports",
        "print debugging left in", "magic numbers", "deep inheritance", "stringly typed ids",
        "sleeping in tests", "catching BaseException", "monkeypatching in production code"]
PROTOCOLS = ["HTTP", "gRPC", "a Redis queue", "Kafka", "a unix socket", "webhooks",
             "server-sent events", "websockets", "S3 events", "a Postgres LISTEN channel"]
TIMES = ["before every release", "on Mondays", "at the end of each sprint", "nightly",
         "before merging to main", "after each deploy", "once a quarter", "on the 1st"]

TEMPLATES: tuple[tuple[str, str], ...] = (
    ("decision", "Decided to use {tool} instead of {tool2} for {component} because {reason}."),
    ("decision", "The {component} moved from {tool} to {tool2}; {reason}."),
    ("decision", "We pin {tool} to version {major}.{minor} in {component} until {ticket} is fixed."),
    ("decision", "Store {noun} data for the {component} in {tool}, not in {tool2}."),
    ("decision", "{component} talks to {component2} over {protocol} since {ticket}."),
    ("convention", "Always run `{tool} {verb}` before pushing changes to the {component}."),
    ("convention", "Functions that {verb} a {noun} are named {func} and live in {path}."),
    ("convention", "Tests for the {component} use {tool} fixtures; mark slow ones with @{verb}_slow."),
    ("convention", "{language} code in {dir}/ follows {style}; avoid {anti}."),
    ("convention", "Every {noun} in the {component} gets a {noun2}_id column and an index."),
    ("convention", "Release notes for {component} are written {when} and link {ticket}."),
    ("fact", "The {component} lives in {path} and talks to the {component2} over {protocol}."),
    ("fact", "Bug in {func} was caused by {cause}; fixed in {ticket}."),
    ("fact", "{component} reads its {noun} settings from {tool}, not from environment variables."),
    ("fact", "The {noun} table in {component} holds about {count} rows; queries need the {noun2} index."),
    ("fact", "Deploys of the {component} go through {tool} and take about {minutes} minutes."),
    ("fact", "{func} in {path} is the hot path of the {component}; profile it with {tool}."),
    ("fact", "The staging {component} runs on port {port} behind {tool}."),
    ("preference", "Prefers {style} in {language} code."),
    ("preference", "Wants {tool} output to be quiet unless a {noun} fails."),
    ("preference", "Likes reviews of the {component} to mention {ticket} in the title."),
    ("preference", "Prefers running {tool} {when} rather than on every commit."),
    ("preference", "Uses {tool} with {tool2} for {language} work on the {component}."),
)
TASK_GOALS = ("Fix {func} in the {component}", "Add {noun} support to the {component}",
              "Speed up {func}", "Upgrade {tool} in the {component}",
              "Write tests for {path}", "Investigate {cause} in the {component}",
              "Refactor {path} to use {tool}", "Document how the {component} uses {tool}")
CHOSEN_WORDS: dict[str, list[str]] = {
    "verb": VERBS, "reason": REASONS, "cause": CAUSES, "style": STYLES, "anti": ANTI, "protocol": PROTOCOLS,
    "language": LANGUAGES, "dir": DIRS, "when": TIMES}
"""Template fields filled with one word of a list, each equally likely."""
NUMBER_RANGES: dict[str, tuple[int, int]] = {
    "major": (0, 12), "minor": (0, 40), "minutes": (2, 45), "port": (3000, 9999)}
"""Template fields filled with a whole number in a range (both ends included)."""


def _compile(template: str) -> list[tuple[str, str | None]]:
    """(literal text, field name or None) of each piece of ``template``."""
    return [(literal, name) for literal, name, _spec, _conversion
            in string.Formatter().parse(template)]


def _zipf(rng: random.Random, words: list[str], exponent: float,
          ) -> tuple[list[str], list[float]]:
    """``words`` shuffled, with the cumulative Zipf weights of their new ranks."""
    items = list(words)
    rng.shuffle(items)
    weights = [1.0 / (rank + 1) ** exponent for rank in range(len(items))]
    return items, list(itertools.accumulate(weights))


class TextModel:
    """Seeded sentence generator: templates filled from Zipf-weighted word lists."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.tools = _zipf(rng, TOOLS, 0.9)
        self.components = _zipf(rng, COMPONENTS, 0.8)
        # a long tail of rare identifiers
        self.funcs = _zipf(rng, [f"{v}_{n}" for v in VERBS for n in NOUNS], 1.05)
        self.nouns = _zipf(rng, NOUNS, 0.7)
        self.templates = [_compile(text) for _kind, text in TEMPLATES]
        self.kinds = [kind for kind, _text in TEMPLATES]
        self.by_kind = {kind: [i for i, k in enumerate(self.kinds) if k == kind]
                        for kind in set(self.kinds)}
        self.goals = [_compile(text) for text in TASK_GOALS]

    def _pick(self, table: tuple[list[str], list[float]]) -> str:
        items, cum = table
        return items[bisect.bisect(cum, self.rng.random() * cum[-1])]

    def _value(self, name: str) -> str:
        rng = self.rng
        if name in ("tool", "tool2"):
            return self._pick(self.tools)
        if name in ("component", "component2"):
            return self._pick(self.components).replace("-", " ")
        if name == "func":
            return self._pick(self.funcs) + "()"
        if name in ("noun", "noun2"):
            return self._pick(self.nouns)
        if name == "path":
            return (f"{rng.choice(DIRS)}/{self._pick(self.components).split('-')[0]}/"
                    f"{self._pick(self.nouns)}_{rng.choice(VERBS)}.py")
        if name == "ticket":
            return f"{rng.choice(('PROJ', 'OPS', 'BUG', 'SEC', 'DATA'))}-{rng.randint(1, 9999)}"
        if name in CHOSEN_WORDS:
            return rng.choice(CHOSEN_WORDS[name])
        if name in NUMBER_RANGES:
            return str(rng.randint(*NUMBER_RANGES[name]))
        if name == "count":
            return f"{rng.randint(1, 900)} {rng.choice(('thousand', 'million'))}"
        raise KeyError(name)

    def memory(self, kind: str | None = None) -> tuple[str, str]:
        """(kind, content) for one new memory; ``kind`` keeps the kind (a correction)."""
        rng = self.rng
        index = (rng.randrange(len(self.templates)) if kind is None
                 else rng.choice(self.by_kind[kind]))
        text = self._fill(self.templates[index])
        if rng.random() < EXTRA_SENTENCE_RATE:
            text += " " + self._fill(self.templates[rng.randrange(len(self.templates))])
        return self.kinds[index], text

    def goal(self) -> str:
        """A task goal."""
        return self._fill(self.rng.choice(self.goals))

    def _fill(self, parts: list[tuple[str, str | None]]) -> str:
        out = []
        for literal, name in parts:
            out.append(literal)
            if name is not None:
                out.append(self._value(name))
        text = "".join(out)
        if parts[0][0] or parts[0][1] in ("component", "tool"):
            text = text[0].upper() + text[1:]
        return text


def _stamp(ms: int) -> str:
    return format_time(MIN_TIME + timedelta(milliseconds=ms))


@dataclass
class GenerateResult:
    """What ``generate_store`` wrote."""

    path: Path | str
    """The SQLite file, or the PostgreSQL database's URL without its password."""
    seconds: float
    counts: dict[str, int]


@dataclass
class _Row:
    """A memory being planned: the ``Memory`` (replaced when a later row supersedes it, until
    its chunk is written) and its goal key."""

    memory: Memory
    goal_key: str | None

    def as_tuple(self) -> tuple[Any, ...]:
        """The row in ``bench_data.MEMORY_ROW_COLUMNS`` order."""
        return (*row_values(self.memory), self.goal_key)


class _Generator:
    def __init__(self, n: int, seed: int) -> None:
        self.n = n
        self.rng = random.Random(seed)
        self.text = TextModel(random.Random(seed * 7919 + 1))
        self.mean_gap_ms = max(1, int(SPAN_DAYS * 86_400_000 / max(n, 1)))
        self.now_ms = int(START.timestamp() * 1000)
        self.writers = {p[0]: [p[2]] + [u for u, role in p[3] if role != "reader"]
                        for p in PROJECTS}
        self.other_projects = [p[0] for p in PROJECTS if p[0] != BENCH_PROJECT]
        self.other_users = [u for u in USERS if u != BENCH_USER]
        self.recent: dict[tuple[str, str], list[_Row]] = {}

    def _tick(self) -> int:
        rng = self.rng
        if rng.random() >= 0.01:  # about 1% share their millisecond with the previous row
            self.now_ms += 1 + int(rng.expovariate(1.0 / self.mean_gap_ms))
        return self.now_ms

    def _new_id(self, prefix: str, ms: int) -> str:
        return encode_id(prefix, ms, self.rng.getrandbits(34))

    def _place(self) -> tuple[str, str, str | None]:
        """(scope, owner, project) of the next row."""
        rng = self.rng
        roll = rng.random()
        if roll < USER_SHARE:
            return "user", BENCH_USER, None
        if roll < USER_SHARE + PROJECT_SHARE:
            writers = self.writers[BENCH_PROJECT]
            owner = BENCH_USER if rng.random() < 0.5 else rng.choice(writers)
            return "project", owner, BENCH_PROJECT
        if rng.random() < 0.4:
            return "user", rng.choice(self.other_users), None
        project = rng.choice(self.other_projects)
        return "project", rng.choice(self.writers[project]), project

    def chunks(self, progress: Callable[[int, int], None] | None,
               ) -> Iterator[dict[str, list[tuple]]]:
        """The rows of each table chunk by chunk, in time order, ``progress`` told after each
        (tasks first: the memories and the log rows name them)."""
        made = 0
        while made < self.n:
            size = min(CHUNK, self.n - made)
            tasks: list[tuple] = []
            logs: list[tuple] = []
            self.recent = {}
            rows = [self._one(tasks, logs) for _ in range(size)]
            yield {"tasks": tasks, "memories": [row.as_tuple() for row in rows],
                   "extraction_log": logs}
            made += size
            if progress:
                progress(made, self.n)

    def _task(self, project: str, user: str, ms: int, tasks: list[tuple]) -> tuple[str, str, str]:
        """Write a completed task that finished just before ``ms``; (id, goal, finished)."""
        rng = self.rng
        started = ms - rng.randint(60_000, 3_600_000)
        finished = ms - rng.randint(1_000, 50_000)
        task_id = self._new_id("task", started)
        goal = self.text.goal()
        _kind, result = self.text.memory()
        tasks.append((task_id, project, user, goal, goal, "completed", None, _stamp(started),
                      _stamp(finished), result, round(rng.random() * 0.4, 4), 0, 0, "manual",
                      None, _stamp(started)))
        return task_id, goal, _stamp(finished)

    def _one(self, tasks: list[tuple], logs: list[tuple]) -> _Row:
        rng = self.rng
        ms = self._tick()
        created = _stamp(ms)
        scope, owner, project = self._place()
        key = (scope, project or owner)
        recent = self.recent.setdefault(key, [])
        old: _Row | None = None
        if recent and rng.random() < SUPERSEDE_RATE:
            candidate = recent[rng.randrange(len(recent))]
            if candidate.memory.status == "active":
                old = candidate
        if old is not None:
            kind, content = self.text.memory(old.memory.kind)
            source = old.memory.source if old.memory.source == "auto" else "manual"
            owner = old.memory.owner
            thread, goal_key = old.memory.source_thread_id, old.goal_key
        else:
            kind, content = self.text.memory()
            if scope == "user":  # user memories are only ever made by hand
                source = rng.choices(("manual", "note", "import"), (6, 3, 1))[0]
            else:
                source = rng.choices(("auto", "manual", "note", "import"), (7, 2, 1, 0.5))[0]
            thread = goal_key = None
            if source == "auto":
                thread, goal, finished = self._task(project or "", owner, ms, tasks)
                goal_key = " ".join(goal.lower().split())
        memory_id = self._new_id("mem", ms)
        if source == "auto" and old is None:
            logs.append((thread, owner, project, "extracted", None, memory_id, 0, created))
        if old is not None:
            old.memory = replace(old.memory, status="superseded", superseded_by=memory_id,
                                 updated_at=created)
        usage, last_used = (rng.randint(1, 40), created) if rng.random() < 0.3 else (0, None)
        row = _Row(Memory(id=memory_id, scope=scope, owner=owner, project=project, kind=kind,
                          content=content, status="active", superseded_by=None, source=source,
                          source_thread_id=thread, created_at=created, updated_at=created,
                          usage_count=usage, last_used_at=last_used), goal_key)
        if scope == "project" and rng.random() < SKIPPED_TASK_RATE * 0.3:
            task_id, _goal, finished = self._task(project or "", owner, ms, tasks)
            logs.append((task_id, owner, project, "skipped", "the task produced nothing to "
                         "remember", None, 0, finished))
        recent.append(row)
        if len(recent) > 64:
            del recent[0]
        return row


def _seed_identity(store: StoreBackend) -> None:
    clock = FixedClock(START - timedelta(days=1))
    store.clock = clock
    with store.transaction():
        for user in USERS:
            store.identity.ensure_user(user, user.capitalize())
        for pid, name, owner, members in PROJECTS:
            store.identity.insert_project(Project(
                id=pid, name=name, root_path=f"/home/{owner}/src/{pid}",
                summary=f"The {name.lower()} project.", created_by=owner,
                created_at=store.now()))
            store.identity.set_role(pid, owner, "owner")
            for user, role in members:
                store.identity.set_role(pid, user, role)


def generate_store(path: str | os.PathLike[str], n: int = DEFAULT_SIZE, seed: int = DEFAULT_SEED,
                   *, progress: Callable[[int, int], None] | None = None) -> GenerateResult:
    """Write a new store with ``n`` generated memories at ``path`` (replaced if present), through
    a temporary file renamed at the end: an interrupted run leaves no half-built store."""
    target = Path(path).expanduser()
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f"{target.name}.tmp{os.getpid()}")
    for leftover in (tmp, Path(f"{tmp}-wal"), Path(f"{tmp}-shm")):
        leftover.unlink(missing_ok=True)
    began = time.perf_counter()
    store = open_store(tmp, clock=FixedClock(START), ids=SequentialIds())
    try:
        _seed_identity(store)
        with bench_data.bulk_load(store):
            for chunk in _Generator(n, seed).chunks(progress):
                with store.transaction():
                    for table, rows in chunk.items():
                        bench_data.insert_rows(store, table, rows)
        store.checkpoint()  # the write-ahead log folded into the file, which stays small
        counts = bench_data.table_counts(store)
    finally:
        store.close()
    for base in (tmp, target):
        for suffix in ("-wal", "-shm"):
            Path(f"{base}{suffix}").unlink(missing_ok=True)
    os.replace(tmp, target)
    return GenerateResult(path=target, seconds=time.perf_counter() - began, counts=counts)


def generate_pg_store(url: str, n: int = DEFAULT_SIZE, seed: int = DEFAULT_SEED, *,
                      progress: Callable[[int, int], None] | None = None) -> GenerateResult:
    """Write the rows ``generate_store`` writes for ``(n, seed)`` into the new, empty PostgreSQL
    database at ``url`` with COPY (a load that fails part way leaves its committed chunks)."""
    from memtui.store.database import open_store as open_any_store
    from memtui.store.postgres import bench_data as pg_bench_data
    from memtui.store.postgres.store import PostgresStore

    began = time.perf_counter()
    store = open_any_store(url, clock=FixedClock(START), ids=SequentialIds())
    if not isinstance(store, PostgresStore):
        store.close()
        raise ValueError("generate_pg_store needs a postgresql:// URL")
    try:
        if not store.is_empty():
            raise ValueError(f"{store.location} already holds a store")
        _seed_identity(store)
        with pg_bench_data.bulk_load(store) as load:
            for chunk in _Generator(n, seed).chunks(progress):
                with load.transaction():
                    for table, rows in chunk.items():
                        pg_bench_data.copy_rows(load, table, rows)
        counts = bench_data.table_counts(store)
        location = store.location
    finally:
        store.close()
    return GenerateResult(path=location, seconds=time.perf_counter() - began, counts=counts)


def cached_store_path(n: int, seed: int = DEFAULT_SEED) -> Path:
    """The cache file for (n, seed, schema version, generator version), in
    ``$MEMTUI_BENCH_CACHE``, else ``$XDG_CACHE_HOME/memtui-bench`` (~/.cache/memtui-bench)."""
    folder = Path(os.environ.get("MEMTUI_BENCH_CACHE") or Path(
        os.environ.get("XDG_CACHE_HOME") or "~/.cache") / "memtui-bench").expanduser()
    return folder / f"store-n{n}-s{seed}-schema{LATEST_VERSION}-g{GENERATOR_VERSION}.db"


def cached_store(n: int, seed: int = DEFAULT_SEED,
                 progress: Callable[[int, int], None] | None = None) -> tuple[Path, bool]:
    """A generated store from the cache, generating it first if missing: (path, was_cached)."""
    path = cached_store_path(n, seed)
    if path.exists() and path.stat().st_size > 0:
        return path, True
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_name(path.name + ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another process generating the same store: wait
        if path.exists() and path.stat().st_size > 0:
            return path, True
        generate_store(path, n, seed, progress=progress)
    return path, False
