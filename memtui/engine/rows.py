"""The rules every stored row passes, table by table: what ``import`` enforces on each row of
a backup and what ``doctor`` checks in a store. Each column's rule is the very function the
write path for that column calls; it returns the value as it must be stored (redacted, in the
canonical time form) or raises ``InvalidInput`` saying why.
"""

from __future__ import annotations

import contextlib
import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any

from memtui.engine.identity import (
    clean_display_name,
    clean_memory_content,
    clean_project_name,
    clean_project_root,
    clean_project_summary,
)
from memtui.engine.model_phase import CONSOLIDATE, EXTRACT
from memtui.engine.recall import (
    MAX_DOCUMENT_BYTES,
    STATE_FILE,
    check_document_path,
    check_state_json,
    clean_interaction_source,
)
from memtui.engine.redaction import PLACEHOLDER
from memtui.engine.settings import MAX_MODEL_NAME_BYTES, clean_setting
from memtui.engine.tasks import (
    MAX_COST_USD,
    MAX_QUOTA_USD,
    MAX_SOURCE_BYTES,
    MAX_SOURCE_REF_BYTES,
    MAX_TOOL_NAME_CHARS,
    clean_followup_message,
    clean_task_text,
)
from memtui.engine.validation import (
    MAX_JSON_DEPTH,
    banned_preference_key,
    check_id,
    check_kind,
    check_record_id,
    check_reference,
    check_role,
    check_timezone,
    clean_detail,
    clean_preferences,
    clean_text,
    echo,
    parse_json_object,
    strip_controls,
)
from memtui.errors import InvalidInput
from memtui.store.models import (
    LOG_OUTCOMES,
    SCOPES,
    SOURCES,
    STATUSES,
    TASK_STATUSES,
)
from memtui.store.timeutil import normalize_time

Rule = Callable[[object, str], object]
"""A column rule: ``(value, what) -> value as stored``; raises ``InvalidInput``."""

MAX_ROW_NUMBER = 2**62
MAX_GOAL_KEY_BYTES = 1024
MAX_REASON_BYTES = 1024
MODEL_PHASES = (EXTRACT, CONSOLIDATE)
MAX_TOOL_NAME_BYTES = 4 * MAX_TOOL_NAME_CHARS
"""Largest stored tool name (the write path keeps its first ``MAX_TOOL_NAME_CHARS``)."""


@dataclass(frozen=True)
class Column:
    """How one column is checked: its rule, whether null is allowed, and (for ``doctor
    --repair``) an optional safe way to make a refused value fit."""

    rule: Rule
    optional: bool = False
    salvage: Callable[[object], object] | None = None


def _time(value: object, what: str) -> str:
    return normalize_time(value)  # check_time without naming the column (check_value does)


def _whole(low: int, high: int) -> Rule:
    def rule(value: object, what: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise InvalidInput(f"{what} must be a whole number from {low} to {high}")
        return value
    return rule


def _one_of(choices: tuple[str, ...]) -> Rule:
    def rule(value: object, what: str) -> str:
        if value not in choices:
            raise InvalidInput(f"{what} {echo(value, 40)} is not one of {', '.join(choices)}")
        return str(value)
    return rule


def _money(top: float) -> Rule:
    def rule(value: object, what: str) -> float | int:
        if isinstance(value, bool) or not isinstance(value, int | float) \
                or not math.isfinite(value) or not 0 <= value <= top:
            raise InvalidInput(f"{what} must be a number of USD from 0 to {top}")
        return value
    return rule


def _json_column(clean: Callable[[Any], Any], dump: Callable[[Any], str]) -> Rule:
    """A JSON object kept as text: parsed, cleaned; the text is kept as it is when cleaning
    changed nothing (a lossless round trip), else written in the table's form."""
    def rule(value: object, what: str) -> str:
        if not isinstance(value, str):
            raise InvalidInput(f"{what} must be JSON text")
        parsed = parse_json_object(value, f"{what} is not valid JSON",
                                   f"{what} must be a JSON object at most {MAX_JSON_DEPTH} deep")
        cleaned = clean(parsed)
        return value if cleaned == parsed else dump(cleaned)
    return rule


def _dump_sorted(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def _drop_secret_keys(value: object) -> object:
    """Preferences without the keys that name a secret (and their values): what ``profile
    set`` would have refused."""
    if not isinstance(value, str):
        return value
    parsed = json.loads(value)
    while isinstance(parsed, dict) and (path := banned_preference_key(parsed)) is not None:
        item: Any = parsed  # down the dotted path, to the key to remove
        parts = path.replace("[", ".[").split(".")
        for part in parts[:-1]:
            item = item[int(part[1:-1])] if part.startswith("[") else item[part]
        del item[parts[-1]]
    return _dump_sorted(parsed)


_SEQ = Column(_whole(1, MAX_ROW_NUMBER))
_COUNT = Column(_whole(0, MAX_ROW_NUMBER))
_SWITCH = Column(_whole(0, 1))
_TIME = Column(_time)
_OPTIONAL_TIME = Column(_time, optional=True)
_USER = Column(check_id)
_PROJECT = Column(check_id)

TABLE_RULES: dict[str, dict[str, Column]] = {
    "users": {"id": _USER, "display_name": Column(lambda v, w: clean_display_name(v)),
              "created_at": _TIME},
    "projects": {"id": _PROJECT, "name": Column(lambda v, w: clean_project_name(v)),
                 "root_path": Column(lambda v, w: clean_project_root(v), optional=True),
                 "summary": Column(lambda v, w: clean_project_summary(v)),
                 "created_by": Column(check_id, optional=True), "created_at": _TIME},
    "project_members": {"project_id": _PROJECT, "user_id": _USER,
                        "role": Column(lambda v, w: check_role(v)), "accepted": _SWITCH},
    "profiles": {"user_id": _USER, "display_name": Column(lambda v, w: clean_display_name(v)),
                 "timezone": Column(lambda v, w: check_timezone(v)),
                 "preferences": Column(_json_column(clean_preferences, _dump_sorted),
                                       salvage=_drop_secret_keys),
                 "updated_at": _OPTIONAL_TIME},
    "memories": {"seq": _SEQ, "id": Column(check_record_id), "scope": Column(_one_of(SCOPES)),
                 "owner": _USER, "project": Column(check_id, optional=True),
                 "kind": Column(lambda v, w: check_kind(v)),
                 "content": Column(clean_memory_content),
                 "status": Column(_one_of(STATUSES)),
                 "superseded_by": Column(check_record_id, optional=True),
                 "source": Column(_one_of(SOURCES)),
                 "source_thread_id": Column(check_reference, optional=True),
                 "goal_key": Column(partial(clean_text, max_bytes=MAX_GOAL_KEY_BYTES),
                                    optional=True),
                 "created_at": _TIME, "updated_at": _TIME, "usage_count": _COUNT,
                 "last_used_at": _OPTIONAL_TIME,
                 "replaces": Column(check_record_id, optional=True)},
    "forgotten_sources": {"source_thread_id": Column(check_reference), "forgotten_at": _TIME,
                          "forgotten_by": _USER},
    "audit": {"seq": _SEQ, "at": _TIME, "actor": _USER, "action": Column(check_record_id),
              "target": Column(check_reference, optional=True),
              "detail": Column(_json_column(clean_detail, _dump_sorted))},
    "user_settings": {"user_id": _USER,
                      "settings": Column(_json_column(
                          lambda value: {name: clean_setting(name, setting)
                                         for name, setting in value.items()},
                          partial(json.dumps, sort_keys=True))),
                      "updated_at": _TIME},
    "tasks": {"seq": _SEQ, "id": Column(check_record_id), "project_id": _PROJECT,
              "user_id": _USER, "goal": Column(clean_task_text), "prompt": Column(clean_task_text),
              "status": Column(_one_of(TASK_STATUSES)),
              "parent_id": Column(check_record_id, optional=True),
              "started_at": _OPTIONAL_TIME, "finished_at": _OPTIONAL_TIME,
              "result": Column(clean_task_text), "cost_usd": Column(_money(MAX_COST_USD)),
              "continuation": _SWITCH, "external_context": _SWITCH,
              "source": Column(partial(check_reference, max_bytes=MAX_SOURCE_BYTES)),
              "source_ref": Column(partial(check_reference, max_bytes=MAX_SOURCE_REF_BYTES),
                                   optional=True),
              "created_at": _TIME, "use_memories": Column(_whole(0, 1), optional=True),
              "generate_memories": Column(_whole(0, 1), optional=True)},
    "task_followups": {"seq": _SEQ, "from_task": Column(check_record_id),
                       "to_task": Column(check_record_id),
                       "message": Column(lambda v, w: clean_followup_message(v)),
                       "created_at": _TIME},
    "quotas": {"user_id": _USER, "limit_usd": Column(_money(MAX_QUOTA_USD), optional=True),
               "updated_at": _TIME},
    "extraction_log": {"task_id": Column(check_record_id), "user_id": _USER,
                       "project_id": _PROJECT, "outcome": Column(_one_of(LOG_OUTCOMES)),
                       "reason": Column(partial(clean_text, max_bytes=MAX_REASON_BYTES),
                                        optional=True),
                       "memory_id": Column(check_record_id, optional=True), "forced": _SWITCH,
                       "at": _TIME},
    "interactions": {"seq": _SEQ, "id": Column(check_record_id), "user_id": _USER,
                     "project_id": Column(check_id, optional=True),
                     "question": Column(clean_memory_content),
                     "answer": Column(clean_memory_content),
                     "source": Column(lambda v, w: clean_interaction_source(v), optional=True),
                     "created_at": _TIME},
    "bundles": {"id": Column(check_reference), "project_id": Column(check_id, optional=True),
                "schedule": Column(check_id, optional=True), "created_by": _USER,
                "created_at": _TIME},
    "bundle_documents": {"bundle_id": Column(check_reference),
                         "path": Column(lambda v, w: check_document_path(v)),
                         "revision": Column(_whole(1, MAX_ROW_NUMBER)),
                         "content": Column(partial(clean_text, max_bytes=MAX_DOCUMENT_BYTES,
                                                   allow_empty=True)), "updated_at": _TIME,
                         "updated_by": _USER},
    "consolidations": {"seq": _SEQ, "id": Column(check_record_id), "user_id": _USER,
                       "kind": Column(check_record_id), "outcome": Column(check_record_id),
                       "detail": Column(_json_column(clean_detail, _dump_sorted)),
                       "at": _TIME},
    "model_usage": {"seq": _SEQ, "user_id": _USER, "phase": Column(_one_of(MODEL_PHASES)),
                    "round_id": Column(check_record_id),
                    "task_id": Column(check_record_id, optional=True),
                    "project_id": Column(check_id, optional=True),
                    "model": Column(partial(clean_text, max_bytes=MAX_MODEL_NAME_BYTES,
                                            one_line=True, allow_empty=True)),
                    "tokens_in": _COUNT, "tokens_out": _COUNT,
                    "outcome": Column(check_record_id), "at": _TIME},
    "extraction_details": {"task_id": Column(check_record_id), "user_id": _USER,
                           "external_tool": Column(partial(
                               clean_text, max_bytes=MAX_TOOL_NAME_BYTES, one_line=True),
                               optional=True),
                           "detail": Column(partial(clean_text, max_bytes=MAX_REASON_BYTES),
                                            optional=True),
                           "attempts": _COUNT, "retry_at": _OPTIONAL_TIME},
}
"""Every exported table's columns and their rules (the choices come from
``memtui.store.models``, as the write paths' checks do)."""


def check_value(table: str, column: str, value: object) -> object:
    """One column's value as it must be stored; ``InvalidInput`` naming the column."""
    spec = TABLE_RULES[table].get(column)
    if spec is None:
        raise InvalidInput(f"unknown column {column[:40]!r} for {table}")
    if value is None:
        if spec.optional:
            return None
        raise InvalidInput(f"{column}: must not be null")
    try:
        return spec.rule(value, column)
    except InvalidInput as error:
        raise InvalidInput(f"{column}: {error.message}") from None


def clean_row(table: str, row: Mapping[str, Any]) -> dict[str, Any]:
    """A whole row as it must be stored (each column through its rule, in row order); the
    first bad column raises ``InvalidInput`` naming it."""
    if table not in TABLE_RULES:
        raise InvalidInput(f"unknown table {table[:40]!r}")
    cleaned = {column: check_value(table, column, value) for column, value in row.items()}
    if table == "memories" and "scope" in cleaned and "project" in cleaned and \
            (cleaned["scope"] == "project") != (cleaned["project"] is not None):
        raise InvalidInput("project: a project memory names its project, a user memory none")
    content = cleaned.get("content")
    if table == "bundle_documents" and cleaned.get("path") == STATE_FILE and \
            isinstance(content, str):
        check_state_json(content, f"content: {STATE_FILE}")
    return cleaned


@dataclass(frozen=True)
class RowFinding:
    """One column of a stored row that breaks its rule: why, and the safe fix if there is
    one (``fixed`` is the value to store; ``fixable`` False when none is safe)."""

    column: str
    message: str
    fixable: bool
    fixed: object = None


def row_findings(table: str, row: Mapping[str, Any]) -> list[RowFinding]:
    """What is wrong with a stored row: columns its rule refuses, and columns the rule would
    store differently (an unredacted secret, a time not in the canonical form)."""
    findings: list[RowFinding] = []
    rules = TABLE_RULES.get(table, {})
    for column, value in row.items():
        spec = rules.get(column)
        if spec is None or (value is None and spec.optional):
            continue
        try:
            cleaned = check_value(table, column, value)
        except InvalidInput as error:
            findings.append(_salvaged(table, column, value, error.message))
            continue
        if cleaned != value:
            findings.append(RowFinding(column, _difference(table, column, value, cleaned),
                                       True, cleaned))
    return findings


def _salvaged(table: str, column: str, value: object, message: str) -> RowFinding:
    salvage = TABLE_RULES[table][column].salvage
    with contextlib.suppress(InvalidInput, ValueError, KeyError, IndexError, TypeError):
        if salvage is not None:
            return RowFinding(column, message, True, check_value(table, column, salvage(value)))
    return RowFinding(column, message, False)


def _difference(table: str, column: str, value: object, cleaned: object) -> str:
    if TABLE_RULES[table][column].rule is _time:
        return f"{column}: time {str(value)[:40]!r} is not in the stored form"
    if str(cleaned).count(PLACEHOLDER) > str(value).count(PLACEHOLDER):
        return f"{column}: holds a secret that was stored unredacted"
    if isinstance(value, str) and strip_controls(value) != value:
        return f"{column}: holds control characters (ESC, BEL ...) the write path removes"
    return f"{column}: is not in the form the write path stores"
