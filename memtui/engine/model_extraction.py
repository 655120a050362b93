"""What model extraction sends (redacted, within ``INPUT_BUDGET_CHARS``) and accepts back
(phase 1 per task, phase 2 per project); an answer not in the asked shape fails whole as
``invalid_json``. No store access here.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from memtui.engine.conversation import Conversation, cut
from memtui.engine.model_client import ModelFailure
from memtui.engine.validation import redact
from memtui.store.models import KINDS, Task

INPUT_BUDGET_CHARS = 9_000
"""The most characters one request's task text may take (with the instruction and the longest
answer a request fits a 4,096-token context)."""
GOAL_CHARS, PROMPT_CHARS, RESULT_CHARS = 1_000, 1_500, 3_000
"""Each part's share of the budget; the conversation gets what is left."""
MAX_MEMORIES = 5
MAX_MEMORY_CHARS = 2_000
MAX_EVIDENCE_CHARS = 1_000
MAX_PROPOSALS = 20
SCOPES = ("project", "user")
QUOTE_CHARS = 40
"""The most characters of the model's answer a failure's words quote."""

EXTRACT_SYSTEM = f"""You read one finished coding-agent task and decide what is worth \
remembering for later tasks: durable facts about the project, decisions, conventions, \
preferences of the user. Answer one JSON object: {{"memories": [{{"kind": one of \
{", ".join(KINDS)}, "scope": "project" or "user", "text": the memory (one or two \
sentences), "evidence": the words of the task it rests on, "reason": why it holds across \
projects (only for scope user)}}]}}. At most {MAX_MEMORIES} memories. Most tasks hold \
nothing worth keeping: then answer {{"memories": []}}. Never copy secrets."""
CONSOLIDATE_SYSTEM = f"""You compare a project's NEW memories with its ACTIVE ones and with \
each other. Where a new memory corrects, duplicates or contradicts another, propose that the \
other be replaced. Answer one JSON object: {{"supersedes": [{{"old": id of the replaced memory, \
"new": id of the new memory, "text": the replacement text, "why": correction, duplicate or \
contradiction and a few words}}]}}. At most {MAX_PROPOSALS}. Nothing to change: \
{{"supersedes": []}}."""


@dataclass(frozen=True)
class Proposed:
    """One memory the model proposed from a task (already redacted)."""

    kind: str
    scope: str
    text: str
    evidence: str
    reason: str | None


@dataclass(frozen=True)
class Supersede:
    """One supersede the model proposed: ``old`` replaced by ``text``, because of ``new``."""

    old: str
    new: str
    text: str
    why: str


def render_task(task: Task, conversation: Conversation | None,
                budget: int = INPUT_BUDGET_CHARS) -> str:
    """The task as the text sent (goal, prompt when it differs, result, and its conversation
    with turns dropped from the middle until it fits), redacted, within ``budget``."""
    parts = [f"Goal: {cut(task.goal, GOAL_CHARS)}"]
    if task.prompt.strip() and task.prompt.strip() != task.goal.strip():
        parts.append(f"Prompt: {cut(task.prompt, PROMPT_CHARS)}")
    parts.append(f"Result: {cut(task.result, RESULT_CHARS)}")
    text = "\n\n".join(parts)
    if conversation is not None:
        head, tail = list(conversation.head), list(conversation.tail)
        left_out, room = conversation.left_out, budget - len(text) - len("\n\nConversation:\n")
        while head and tail and len("\n".join(Conversation(
                tuple(head), tuple(tail), left_out).lines())) > room:
            (tail.pop(0) if len(tail) >= len(head) else head.pop())  # the middle goes first
            left_out += 1
        text += "\n\nConversation:\n" + "\n".join(
            Conversation(tuple(head), tuple(tail), left_out).lines())
    return redact(text)[:budget]


def _quote(value: object) -> str:
    """A short quote of the model's words for a failure (redacted before it is cut)."""
    return repr(cut(str(value), QUOTE_CHARS))


def _field(item: dict[str, Any], name: str, limit: int, required: bool = True) -> str | None:
    value = item.get(name)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ModelFailure("invalid_json", f"a memory's {name} is missing or not text")
    if len(value) > limit:
        raise ModelFailure("invalid_json", f"a memory's {name} is longer than {limit} chars")
    return redact(value.strip())


def _items(data: Any, key: str, limit: int) -> list[dict[str, Any]]:
    if not isinstance(data, dict) or not isinstance(data.get(key), list):
        raise ModelFailure("invalid_json", f"the answer has no {key!r} list")
    items = data[key]
    if len(items) > limit:
        raise ModelFailure("invalid_json", f"the answer has {len(items)} {key} (at most {limit})")
    if not all(isinstance(item, dict) for item in items):
        raise ModelFailure("invalid_json", f"an item of {key!r} is not an object")
    return list(items)


def parse_memories(data: Any) -> list[Proposed]:
    """The memories of an ``{"memories": [...]}`` answer, checked and redacted."""
    found: list[Proposed] = []
    for item in _items(data, "memories", MAX_MEMORIES):
        kind, scope = item.get("kind"), item.get("scope", "project")
        if kind not in KINDS:
            raise ModelFailure("invalid_json", f"unknown memory kind {_quote(kind)}")
        if scope not in SCOPES:
            raise ModelFailure("invalid_json", f"unknown memory scope {_quote(scope)}")
        reason = _field(item, "reason", MAX_EVIDENCE_CHARS, required=scope == "user")
        found.append(Proposed(kind, scope, str(_field(item, "text", MAX_MEMORY_CHARS)),
                              str(_field(item, "evidence", MAX_EVIDENCE_CHARS)), reason))
    return found


def render_consolidation(new: Sequence[tuple[str, str]], active: Sequence[tuple[str, str]],
                         budget: int = INPUT_BUDGET_CHARS) -> str:
    """New and active memories (id, text) as the text sent, redacted, within ``budget``."""
    def block(rows: Sequence[tuple[str, str]]) -> list[str]:
        return [json.dumps({"id": memory_id, "text": cut(text, MAX_MEMORY_CHARS)})
                for memory_id, text in rows]

    new_lines, active_lines = block(new), block(active)
    while active_lines and sum(map(len, new_lines + active_lines)) > budget - 40:
        active_lines.pop(0)
    text = "NEW:\n" + "\n".join(new_lines) + "\n\nACTIVE:\n" + "\n".join(active_lines)
    return redact(text)[:budget]


def parse_supersedes(data: Any, new_ids: set[str], active_ids: set[str]) -> list[Supersede]:
    """The supersedes of a consolidation answer, naming memories it was shown."""
    found: list[Supersede] = []
    for item in _items(data, "supersedes", MAX_PROPOSALS):
        old, new = item.get("old"), item.get("new")
        if old not in active_ids or new not in new_ids or old == new:
            raise ModelFailure("invalid_json", "a supersede names a memory it was not shown")
        found.append(Supersede(str(old), str(new), str(_field(item, "text", MAX_MEMORY_CHARS)),
                               str(_field(item, "why", MAX_EVIDENCE_CHARS))))
    return found
