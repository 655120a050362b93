"""Model consolidation (phase 2), per project: memories new since the project's last pass are
shown beside its other active ones, and each supersede the model proposes becomes a pending
correction in the review inbox. A pass is recorded in ``consolidations`` (kind ``model``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from memtui.engine.identity import new_memory
from memtui.engine.model_client import Endpoint, ModelFailure, complete_json, estimate_tokens
from memtui.engine.model_extraction import (
    CONSOLIDATE_SYSTEM,
    parse_supersedes,
    render_consolidation,
)
from memtui.engine.model_phase import CONSOLIDATE, cap_reason, spend
from memtui.engine.review_rules import PENDING
from memtui.engine.validation import clean_text
from memtui.store.backend import StoreBackend
from memtui.store.recall import ConsolidationRecord

MODEL_KIND = "model"
MAX_NEW = 50
MAX_ACTIVE = 200
"""The most other active memories one pass shows (the newest; the budget may cut more)."""
NOTHING_NEW = "nothing new to compare"
RECORDS_SCANNED = 500


@dataclass(frozen=True)
class ProjectPass:
    """What one project's pass did: the pending corrections it proposed, or why none."""

    project: str
    proposed: tuple[str, ...]
    words: str
    failure: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The pass as JSON."""
        return {"project": self.project, "proposed": list(self.proposed), "words": self.words}


def _since(store: StoreBackend, actor: str, project: str) -> str:
    for record in store.recall.consolidations(actor, RECORDS_SCANNED):
        if record.kind == MODEL_KIND and record.detail.get("project") == project \
                and record.outcome != "failed":
            return record.at
    return ""


def propose(store: StoreBackend, actor: str, project: str,
            settings: dict[str, Any]) -> ProjectPass:
    """One project's model pass (passed over early when nothing is new since the last)."""
    since = _since(store, actor, project)
    if (store.tasks.newest_active_at(project) or "") <= since:
        return ProjectPass(project, (), NOTHING_NEW)
    rows = store.tasks.active_memories(project=project)
    new = [row for row in rows if row.created_at > since][-MAX_NEW:]
    new_ids = {row.id for row in new}
    active = [row for row in rows if row.id not in new_ids][-MAX_ACTIVE:]
    record_id = store.new_id("cons")
    if not new or len(new) + len(active) < 2:
        return _record(store, actor, record_id, ProjectPass(project, (), NOTHING_NEW),
                       "nothing_to_do")
    text = render_consolidation([(r.id, r.content) for r in new],
                                [(r.id, r.content) for r in active])
    stop = cap_reason(store, actor, settings, store.now(), estimate_tokens(CONSOLIDATE_SYSTEM, text))
    if stop is not None:
        return ProjectPass(project, (), stop[1])
    model = settings.get("consolidation_model") or settings.get("extract_model") or ""
    try:
        endpoint = Endpoint.from_settings(settings, "consolidation_model")
        answer = complete_json(endpoint, CONSOLIDATE_SYSTEM, text)
        spent = (answer.tokens_in, answer.tokens_out)
        proposals = parse_supersedes(answer.data, new_ids, new_ids | {row.id for row in active})
    except ModelFailure as failure:
        if failure.kind != "config":
            spend(store, actor, CONSOLIDATE, record_id, None, project, model,
                  (failure.tokens_in, failure.tokens_out), failure.kind)
        return _record(store, actor, record_id,
                       ProjectPass(project, (), f"{failure.kind}: {failure.words}",
                                   failure.kind), "failed")
    spend(store, actor, CONSOLIDATE, record_id, None, project, model, spent, "answered")
    with store.transaction():
        proposed = [memory_id for item in proposals
                    if (memory_id := _pending_correction(store, actor, item.old, item.text,
                                                         item.why)) is not None]
        words = f"{len(proposed)} supersede(s) proposed for review" if proposed \
            else "nothing to change"
        return _record(store, actor, record_id, ProjectPass(project, tuple(proposed), words),
                       "proposed" if proposed else "nothing_to_do")


def _pending_correction(store: StoreBackend, actor: str, old_id: str, text: str,
                        why: str) -> str | None:
    """A pending correction of ``old_id``, or None when it is gone, inactive or the same."""
    old = store.memories.get(old_id)
    content = clean_text(text, "memory")
    if old is None or old.status != "active" or content.strip() == old.content.strip():
        return None
    memory = new_memory(store, actor, old.project, old.kind, content, PENDING, "auto",
                        old.source_thread_id)
    store.memories.insert(memory, store.memories.goal_key(old.id), replaces=old.id)
    store.audit.append(actor, "memory_created", memory.id,
                       {"scope": memory.scope, "kind": memory.kind, "source": "auto",
                        "project": memory.project, "status": PENDING, "replaces": old.id,
                        "reason": "model_consolidation", "why": clean_text(why, "why")})
    return memory.id


def _record(store: StoreBackend, actor: str, record_id: str, done: ProjectPass,
            outcome: str) -> ProjectPass:
    with store.transaction():
        store.recall.insert_consolidation(ConsolidationRecord(
            id=record_id, user=actor, kind=MODEL_KIND, outcome=outcome,
            detail=done.to_json(), at=store.now()))
    return done
