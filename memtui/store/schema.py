"""The store's schema as numbered migrations, each run in one transaction and recorded.
Never edit a migration that has shipped: add a new one at the end.
"""

from __future__ import annotations

APPLICATION_ID = 0x4D454D54  # "MEMT": marks a file as a memtui store

MEMORY_INDEXES = """\
CREATE INDEX memories_user_list ON memories(owner, scope, status, created_at, id);
CREATE INDEX memories_user_all ON memories(owner, scope, created_at, id);
CREATE INDEX memories_project_list ON memories(project, status, created_at, id);
CREATE INDEX memories_project_all ON memories(project, created_at, id);
CREATE INDEX memories_superseded_by ON memories(superseded_by);
CREATE INDEX memories_thread ON memories(source_thread_id) WHERE source_thread_id IS NOT NULL;
CREATE INDEX memories_goal ON memories(project, goal_key) WHERE goal_key IS NOT NULL;"""
"""The memories table's indexes, the same on both backends (SQLite's migration 1,
PostgreSQL's 6): shipped text, never edit."""
PENDING_INDEXES = """\
CREATE INDEX memories_pending ON memories(created_at, id) WHERE status = 'pending';
CREATE INDEX memories_replaces ON memories(replaces) WHERE replaces IS NOT NULL;"""
"""The indexes of pending memories (SQLite's migration 4, PostgreSQL's 6): shipped text."""

MIGRATION_1 = """
CREATE TABLE schema_migrations (
    version INTEGER PRIMARY KEY,
    applied_at TEXT NOT NULL
);

CREATE TABLE users (
    id TEXT PRIMARY KEY,
    display_name TEXT NOT NULL,
    created_at TEXT NOT NULL
);

CREATE TABLE projects (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    root_path TEXT,
    summary TEXT NOT NULL DEFAULT '',
    created_by TEXT REFERENCES users(id),
    created_at TEXT NOT NULL
);
CREATE INDEX projects_root ON projects(root_path);

CREATE TABLE project_members (
    project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    user_id TEXT NOT NULL REFERENCES users(id),
    role TEXT NOT NULL CHECK (role IN ('owner', 'member', 'reader')),
    PRIMARY KEY (project_id, user_id)
) WITHOUT ROWID;
CREATE INDEX project_members_user ON project_members(user_id, project_id);

CREATE TABLE profiles (
    user_id TEXT PRIMARY KEY REFERENCES users(id),
    display_name TEXT NOT NULL,
    timezone TEXT NOT NULL DEFAULT 'UTC',
    preferences TEXT NOT NULL DEFAULT '{}',
    updated_at TEXT
);

-- seq is an internal, VACUUM-stable row number for the full-text index; id is the memory's
-- public primary key.
CREATE TABLE memories (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    scope TEXT NOT NULL CHECK (scope IN ('user', 'project')),
    owner TEXT NOT NULL REFERENCES users(id),
    project TEXT REFERENCES projects(id),
    kind TEXT NOT NULL CHECK (kind IN ('fact', 'preference', 'decision', 'convention')),
    content TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'superseded')),
    superseded_by TEXT REFERENCES memories(id) DEFERRABLE INITIALLY DEFERRED,
    source TEXT NOT NULL CHECK (source IN ('manual', 'note', 'auto', 'import')),
    source_thread_id TEXT,
    goal_key TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    usage_count INTEGER NOT NULL DEFAULT 0,
    last_used_at TEXT,
    CHECK ((scope = 'project') = (project IS NOT NULL))
);
""" + MEMORY_INDEXES + """

CREATE VIRTUAL TABLE memories_fts USING fts5(
    content, content='memories', content_rowid='seq',
    tokenize='unicode61 remove_diacritics 2', prefix='2 3'
);
CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories BEGIN
    INSERT INTO memories_fts(rowid, content) VALUES (new.seq, new.content);
END;
CREATE TRIGGER memories_fts_delete AFTER DELETE ON memories BEGIN
    INSERT INTO memories_fts(memories_fts, rowid, content) VALUES ('delete', old.seq, old.content);
END;
CREATE TRIGGER memories_fts_update AFTER UPDATE OF content ON memories BEGIN
    INSERT INTO memories_fts(memories_fts, rowid, content) VALUES ('delete', old.seq, old.content);
    INSERT INTO memories_fts(rowid, content) VALUES (new.seq, new.content);
END;

-- A task whose extracted memory was forgotten: content-free, so the extractor never
-- recreates it.
CREATE TABLE forgotten_sources (
    source_thread_id TEXT PRIMARY KEY,
    forgotten_at TEXT NOT NULL,
    forgotten_by TEXT NOT NULL
);

CREATE TABLE audit (
    seq INTEGER PRIMARY KEY,
    at TEXT NOT NULL,
    actor TEXT NOT NULL,
    action TEXT NOT NULL,
    target TEXT,
    detail TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX audit_actor ON audit(actor, seq);
CREATE TRIGGER audit_no_update BEFORE UPDATE ON audit BEGIN
    SELECT RAISE(ABORT, 'the audit log is append-only');
END;

CREATE TABLE user_settings (
    user_id TEXT PRIMARY KEY REFERENCES users(id),
    settings TEXT NOT NULL DEFAULT '{}',
    updated_at TEXT NOT NULL
);

CREATE TABLE tasks (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    project_id TEXT NOT NULL REFERENCES projects(id),
    user_id TEXT NOT NULL REFERENCES users(id),
    goal TEXT NOT NULL DEFAULT '',
    prompt TEXT NOT NULL DEFAULT '',
    status TEXT NOT NULL CHECK (status IN
        ('queued', 'running', 'completed', 'failed', 'interrupted', 'merged')),
    parent_id TEXT REFERENCES tasks(id),
    started_at TEXT,
    finished_at TEXT,
    result TEXT NOT NULL DEFAULT '',
    cost_usd REAL NOT NULL DEFAULT 0,
    continuation INTEGER NOT NULL DEFAULT 0,
    external_context INTEGER NOT NULL DEFAULT 0,
    source TEXT NOT NULL DEFAULT 'manual',
    source_ref TEXT,
    created_at TEXT NOT NULL,
    use_memories INTEGER CHECK (use_memories IN (0, 1)),
    generate_memories INTEGER CHECK (generate_memories IN (0, 1))
);
CREATE INDEX tasks_user_status ON tasks(user_id, status, finished_at, id);
CREATE INDEX tasks_user_created ON tasks(user_id, created_at, id);
CREATE INDEX tasks_project ON tasks(project_id, created_at);
CREATE INDEX tasks_parent ON tasks(parent_id) WHERE parent_id IS NOT NULL;
CREATE UNIQUE INDEX tasks_source_ref ON tasks(source, source_ref) WHERE source_ref IS NOT NULL;
CREATE INDEX tasks_cost_month ON tasks(user_id, created_at, cost_usd);

CREATE VIRTUAL TABLE tasks_fts USING fts5(
    goal, result, content='tasks', content_rowid='seq', tokenize='unicode61 remove_diacritics 2'
);
CREATE TRIGGER tasks_fts_insert AFTER INSERT ON tasks BEGIN
    INSERT INTO tasks_fts(rowid, goal, result) VALUES (new.seq, new.goal, new.result);
END;
CREATE TRIGGER tasks_fts_delete AFTER DELETE ON tasks BEGIN
    INSERT INTO tasks_fts(tasks_fts, rowid, goal, result)
        VALUES ('delete', old.seq, old.goal, old.result);
END;
CREATE TRIGGER tasks_fts_update AFTER UPDATE OF goal, result ON tasks BEGIN
    INSERT INTO tasks_fts(tasks_fts, rowid, goal, result)
        VALUES ('delete', old.seq, old.goal, old.result);
    INSERT INTO tasks_fts(rowid, goal, result) VALUES (new.seq, new.goal, new.result);
END;

CREATE TABLE task_followups (
    seq INTEGER PRIMARY KEY,
    from_task TEXT NOT NULL REFERENCES tasks(id),
    to_task TEXT NOT NULL REFERENCES tasks(id),
    message TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX task_followups_to ON task_followups(to_task);

-- No row: the default $10 limit. A row with limit_usd NULL: unlimited.
CREATE TABLE quotas (
    user_id TEXT PRIMARY KEY REFERENCES users(id),
    limit_usd REAL,
    updated_at TEXT NOT NULL
);

CREATE TABLE extraction_log (
    task_id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL,
    project_id TEXT NOT NULL,
    outcome TEXT NOT NULL CHECK (outcome IN ('extracted', 'superseded_previous', 'skipped', 'error')),
    reason TEXT,
    memory_id TEXT,
    forced INTEGER NOT NULL DEFAULT 0,
    at TEXT NOT NULL
);
CREATE INDEX extraction_log_user ON extraction_log(user_id, at);

CREATE TABLE interactions (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL,
    user_id TEXT NOT NULL REFERENCES users(id),
    project_id TEXT REFERENCES projects(id),
    question TEXT NOT NULL,
    answer TEXT NOT NULL,
    source TEXT,
    created_at TEXT NOT NULL,
    UNIQUE (user_id, id)
);
CREATE INDEX interactions_user ON interactions(user_id, created_at);
CREATE VIRTUAL TABLE interactions_fts USING fts5(
    question, answer, content='interactions', content_rowid='seq',
    tokenize='unicode61 remove_diacritics 2'
);
CREATE TRIGGER interactions_fts_insert AFTER INSERT ON interactions BEGIN
    INSERT INTO interactions_fts(rowid, question, answer)
        VALUES (new.seq, new.question, new.answer);
END;
CREATE TRIGGER interactions_fts_delete AFTER DELETE ON interactions BEGIN
    INSERT INTO interactions_fts(interactions_fts, rowid, question, answer)
        VALUES ('delete', old.seq, old.question, old.answer);
END;

CREATE TABLE bundles (
    id TEXT PRIMARY KEY,
    project_id TEXT REFERENCES projects(id),
    schedule TEXT,
    created_by TEXT NOT NULL REFERENCES users(id),
    created_at TEXT NOT NULL
);

CREATE TABLE bundle_documents (
    bundle_id TEXT NOT NULL REFERENCES bundles(id) ON DELETE CASCADE,
    path TEXT NOT NULL,
    revision INTEGER NOT NULL,
    content TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    updated_by TEXT NOT NULL,
    PRIMARY KEY (bundle_id, path)
);

CREATE TABLE consolidations (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    user_id TEXT NOT NULL REFERENCES users(id),
    kind TEXT NOT NULL,
    outcome TEXT NOT NULL,
    detail TEXT NOT NULL DEFAULT '{}',
    at TEXT NOT NULL
);
"""

MIGRATION_2 = """
-- Search as you type: prefixes of one to four letters ("m*" ... "migr*") get prefix indexes,
-- so each is one doclist read instead of a merge of every term that starts with it (tens
-- of ms at a million memories; the index grows by about half). The triggers of migration 1
-- keep working on the new table.
DROP TABLE memories_fts;
CREATE VIRTUAL TABLE memories_fts USING fts5(
    content, content='memories', content_rowid='seq',
    tokenize='unicode61 remove_diacritics 2', prefix='1 2 3 4'
);
INSERT INTO memories_fts(memories_fts) VALUES ('rebuild');
"""

MIGRATION_3 = """
-- External references (a Codex thread id, an agent's task_ref) are per user: the same
-- reference recorded by two users is two tasks, and one user's reference is no oracle for
-- another's. The key was (source, source_ref) store-wide.
DROP INDEX tasks_source_ref;
CREATE UNIQUE INDEX tasks_source_ref ON tasks(user_id, source, source_ref)
    WHERE source_ref IS NOT NULL;

-- A forget whose text may still sit in the write-ahead log: a reader kept the checkpoint
-- from truncating it. Content-free (who, when, how many rows); removed once a truncating
-- checkpoint has run after it, which erases every frame written before.
CREATE TABLE pending_purges (
    seq INTEGER PRIMARY KEY,
    requested_at TEXT NOT NULL,
    requested_by TEXT NOT NULL,
    removed_count INTEGER NOT NULL DEFAULT 0
);
"""

MIGRATION_4 = """
-- The review inbox: a memory may be 'pending' (written by an agent source while
-- the user reviews new memories; never injected, recalled or exported as active), agents
-- write through MCP and the service ('mcp', 'service'), and a pending correction names the
-- memory it would supersede once approved ('replaces').
--
-- Done in place, never by copying the table: no stored row changes. The new column is added
-- (SQLite checks its CHECK against every row, a plain scan: all are NULL), and the two CHECK
-- constraints that only widen are edited in the table's SQL (SQLite's documented procedure
-- for changing a CHECK constraint, see "Making Other Kinds Of Table Schema Changes" in its
-- ALTER TABLE page; the ALTER bumps the schema cookie, so other connections reload the
-- schema). The result behaves as the table this migration first built by copying the rows
-- into a new table and dropping the old one. That copy checked the deferred supersede foreign
-- key row by row before the index on superseded_by existed, and its time grew with the
-- square of the rows. Stores upgraded by that copy keep their table: both forms have the same columns in
-- the same order, the same constraints, indexes, triggers and foreign keys. The full-text
-- index (keyed by seq) is untouched.
ALTER TABLE memories ADD COLUMN replaces TEXT CHECK (replaces IS NULL OR status = 'pending');
PRAGMA writable_schema = ON;
UPDATE sqlite_schema
   SET sql = replace(replace(replace(sql,
                 'status IN (''active'', ''superseded'')',
                 'status IN (''active'', ''superseded'', ''pending'')'),
                 'source IN (''manual'', ''note'', ''auto'', ''import'')',
                 'source IN (''manual'', ''note'', ''auto'', ''import'', ''service'', ''mcp'')'),
                 'source IN (''manual'', ''note'', ''auto'', ''import'', ''mcp'', ''service'')',
                 'source IN (''manual'', ''note'', ''auto'', ''import'', ''service'', ''mcp'')')
 WHERE type = 'table' AND name = 'memories';
PRAGMA writable_schema = RESET;
-- The source check may have been widened already by migration 6, run before this one in a
-- store made while this number was reserved: its list is put in this migration's order, so
-- every store names the same list. Refuse to record this migration unless both checks now
-- accept the new values: a failed insert here rolls the whole migration back.
CREATE TEMP TABLE migration_4_done (widened INTEGER NOT NULL CHECK (widened = 1));
INSERT INTO migration_4_done
    SELECT instr(sql, '''superseded'', ''pending'')') > 0 AND instr(sql, '''mcp''') > 0
           AND instr(sql, '''service''') > 0
      FROM sqlite_schema WHERE type = 'table' AND name = 'memories';
DROP TABLE migration_4_done;
""" + PENDING_INDEXES + "\n"

MIGRATION_5 = """
-- Incremental import of Codex rollouts: what was read of each file, per importing user, so
-- a second run over an unchanged sessions folder opens no file and a grown one resumes at
-- its offset. ``state`` is the reader's JSON state at ``offset`` (the next byte to read).
CREATE TABLE codex_rollout_files (
    user_id TEXT NOT NULL,
    path TEXT NOT NULL,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    offset INTEGER NOT NULL,
    state TEXT NOT NULL,
    outcome TEXT NOT NULL,
    read_at TEXT NOT NULL,
    PRIMARY KEY (user_id, path)
) WITHOUT ROWID;
"""

MIGRATION_6 = """
-- Agents write memories through MCP: the memories table accepts the sources 'mcp'
-- and 'service'. Only a CHECK constraint changes and no stored row does, so the table's SQL
-- is edited in place (SQLite's documented procedure for changing a CHECK constraint, see
-- "Making Other Kinds Of Table Schema Changes" in its ALTER TABLE page) instead of copying a
-- table of a million rows. A schema whose source check was already widened is left alone.
PRAGMA writable_schema = ON;
UPDATE sqlite_schema
   SET sql = replace(sql, 'source IN (''manual'', ''note'', ''auto'', ''import'')',
                     'source IN (''manual'', ''note'', ''auto'', ''import'', ''mcp'', ''service'')')
 WHERE type = 'table' AND name = 'memories';
PRAGMA writable_schema = RESET;

-- Agent sessions recorded by `memtui hook session-end`: one row per agent and
-- session id, refreshed at every hook call; the worker turns each finished one into a task
-- (task_id) or records why it could not (outcome, detail).
CREATE TABLE agent_sessions (
    agent TEXT NOT NULL,
    session_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    transcript_path TEXT,
    cwd TEXT,
    event TEXT NOT NULL,
    ended INTEGER NOT NULL DEFAULT 0,
    recorded_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    processed_at TEXT,
    outcome TEXT,
    detail TEXT,
    task_id TEXT,
    PRIMARY KEY (agent, session_id)
) WITHOUT ROWID;
CREATE INDEX agent_sessions_waiting ON agent_sessions(user_id, updated_at)
    WHERE processed_at IS NULL;
"""

MIGRATION_7 = """
-- PostgreSQL only (its migration 7 counts how many rows hold each full-text word, which
-- recall asks for every query word; FTS5 answers that from its own index). Nothing changes
-- in an SQLite store: the number is recorded so that a store's version means the same on
-- both backends.
"""

AGENT_WRITES = """
CREATE TABLE agent_writes (
    id {t} PRIMARY KEY,
    user_id {t} NOT NULL,
    agent {t} NOT NULL,
    session_id {t},
    tool {t} NOT NULL,
    project_dir {t},
    memory_dir {t} NOT NULL,
    path {t} NOT NULL,
    content {t} NOT NULL,
    base_sha256 {t},
    diff {t} NOT NULL,
    created_at {t} NOT NULL,
    updated_at {t} NOT NULL
);
CREATE INDEX agent_writes_user ON agent_writes(user_id, created_at, id);
"""
"""The table of migration 8 on both backends (``{t}``: each backend's text type): shipped
text, never edit."""

MIGRATION_8 = """
-- Claude Code's memory write gate (`memtui hooks install claude-code --gate`): a write into
-- a memory folder is held here, redacted, until the user approves it (memtui writes the
-- file) or rejects it (the row is deleted; a content-free tombstone in forgotten_sources
-- keeps the same write from being proposed again).
""" + AGENT_WRITES.format(t="TEXT")

MODEL_TABLES = """
CREATE TABLE model_usage (
    seq {seq},
    user_id {t} NOT NULL,
    phase {t} NOT NULL,
    round_id {t} NOT NULL,
    task_id {t},
    project_id {t},
    model {t} NOT NULL,
    tokens_in BIGINT NOT NULL,
    tokens_out BIGINT NOT NULL,
    outcome {t} NOT NULL,
    at {t} NOT NULL
);
CREATE INDEX model_usage_user ON model_usage(user_id, at);
CREATE TABLE extraction_details (
    task_id {t} PRIMARY KEY,
    user_id {t} NOT NULL,
    external_tool {t},
    detail {t},
    attempts INTEGER NOT NULL DEFAULT 0,
    retry_at {t}
);
"""
"""The tables of migration 9 on both backends (``{t}``: each backend's text type, ``{seq}``
its row number key): shipped text, never edit."""

MIGRATION_9 = """
-- Model extraction (extraction_mode = model): the cost ledger, one row per model call with the
-- tokens the endpoint reported (per task, per round, per day; the caps add them up), and per
-- task what the extraction log's reason code does not say: the tool that made a session
-- external context, the words of a model failure, how many calls failed in a row and when
-- the next one may be made.
""" + MODEL_TABLES.format(t="TEXT", seq="INTEGER PRIMARY KEY")

MIGRATION_10 = """
-- A membership another user gives is an invitation: memtui chooses that project for the
-- member's folders (hooks, MCP, imports, the app) only once the member accepts it
-- (`memtui project accept`); a project's creator needs no acceptance. Memberships made before
-- this migration count as accepted: a team's folders keep their project through the upgrade.
ALTER TABLE project_members ADD COLUMN accepted INTEGER NOT NULL DEFAULT 0
    CHECK (accepted IN (0, 1));
UPDATE project_members SET accepted = 1;
"""
"""Migration 10 on both backends: shipped text, never edit."""

MIGRATIONS: tuple[tuple[int, str], ...] = tuple(enumerate((
    MIGRATION_1, MIGRATION_2, MIGRATION_3, MIGRATION_4, MIGRATION_5, MIGRATION_6, MIGRATION_7,
    MIGRATION_8, MIGRATION_9, MIGRATION_10), start=1))
"""(version, SQL script) in order. The last version is the schema this code writes."""

LATEST_VERSION = MIGRATIONS[-1][0]
