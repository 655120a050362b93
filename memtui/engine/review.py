"""The review inbox (docs/review.md): pending memories, approved (optionally edited) or
rejected. Each item carries a ``version`` token: one changed since it was shown is a
``Conflict``, one already rejected ``NotFound``.
"""

from __future__ import annotations

import difflib
import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from memtui.engine import permissions as perm
from memtui.engine import purge
from memtui.engine.base import EngineArea
from memtui.engine.identity import clean_memory_content
from memtui.engine.review_rules import ACTIVE, PENDING, check_source
from memtui.engine.validation import check_kind, check_limit
from memtui.errors import Conflict, MemtuiError, NotFound
from memtui.jsonable import JsonMixin
from memtui.store.models import Memory

if TYPE_CHECKING:
    from memtui.engine.agents.write_gate import HeldWrite

INBOX_LIMIT = 1000
MAX_INBOX_LIMIT = 10_000
VERSION_DIGEST_CHARS = 16
_TOKEN = re.compile(r"\w+|[^\w\s]|\s+", re.UNICODE)

SAME = "same"
ADDED = "added"
REMOVED = "removed"


@dataclass(frozen=True)
class DiffPart(JsonMixin):
    """One run of a word-level diff: ``same``, ``added`` or ``removed`` text."""

    op: str
    text: str


def word_diff(old: str, new: str) -> tuple[DiffPart, ...]:
    """A word-level diff from ``old`` to ``new`` (words, punctuation and whitespace are the
    units): the ``same`` and ``removed`` parts give ``old``, ``same`` and ``added`` ``new``."""
    a, b = _TOKEN.findall(old), _TOKEN.findall(new)
    parts: list[DiffPart] = []

    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        runs = [(SAME, a[i1:i2])] if tag == "equal" else [(REMOVED, a[i1:i2]), (ADDED, b[j1:j2])]
        for op, text in ((op, "".join(tokens)) for op, tokens in runs):
            if text and parts and parts[-1].op == op:
                parts[-1] = DiffPart(op, parts[-1].text + text)
            elif text:
                parts.append(DiffPart(op, text))
    return tuple(parts)


def memory_where(memory: Memory) -> str:
    """Where the inbox says a memory lives: ``project <id>``, else ``user``."""
    return f"project {memory.project}" if memory.scope == "project" else "user"


@dataclass(frozen=True)
class InboxItem:
    """One pending memory as the inbox shows it: ``target`` is the newest version of the
    memory it corrects (``replaces``; ``target_state`` says why there is none); ``version``
    is the token approve and reject take back."""

    memory: Memory
    replaces: str | None
    target: Memory | None
    target_state: str
    can_act: bool
    version: str
    diff: tuple[DiffPart, ...] = ()

    @property
    def id(self) -> str:
        """The pending memory's id."""
        return self.memory.id

    @property
    def is_correction(self) -> bool:
        """Whether approving this supersedes another memory."""
        return self.replaces is not None

    def to_json(self) -> dict[str, Any]:
        """The memory's JSON shape plus what review adds."""
        out = self.memory.to_json()
        out.update({"replaces": self.replaces,
                    "target": self.target.to_json() if self.target is not None else None,
                    "target_state": self.target_state, "can_act": self.can_act,
                    "version": self.version, "diff": [part.to_json() for part in self.diff]})
        return out


@dataclass(frozen=True)
class ApproveResult:
    """An approved memory (now active) and the memory it superseded, if any."""

    memory: Memory
    superseded: str | None
    edited: bool

    def to_json(self) -> dict[str, Any]:
        """The memory's JSON shape plus ``superseded`` and ``edited``."""
        return self.memory.to_json() | {"superseded": self.superseded, "edited": self.edited}


@dataclass(frozen=True)
class RejectResult:
    """A rejected (deleted) pending memory."""

    memory_id: str
    tombstoned: str | None

    def to_json(self) -> dict[str, Any]:
        """``{"id", "rejected": true, "tombstoned"}``."""
        return {"id": self.memory_id, "rejected": True, "tombstoned": self.tombstoned}


@dataclass
class BulkResult:
    """What a bulk approve or reject did: each id either done or refused with its error."""

    done: list[ApproveResult | RejectResult | HeldWrite] = field(default_factory=list)
    errors: list[tuple[str, MemtuiError]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """``{"items", "count", "errors": [{"id", "code", "message"}]}``."""
        return {"items": [item.to_json() for item in self.done], "count": len(self.done),
                "errors": [{"id": memory_id, **error.to_json()}
                           for memory_id, error in self.errors]}


def _version(memory: Memory, target: Memory | None) -> str:
    """The token of what was shown: the memory's text, kind and time, and its target."""
    digest = hashlib.sha256(f"{memory.kind}\n{memory.content}".encode()).hexdigest()
    target_part = f"{target.id}@{target.updated_at}" if target is not None else "-"
    return f"{memory.updated_at}/{digest[:VERSION_DIGEST_CHARS]}/{target_part}"


class ReviewApi(EngineArea):
    """The acting user's review inbox."""

    def items(self, source: str | None = None, limit: int = INBOX_LIMIT) -> list[InboxItem]:
        """Pending memories the actor may see, oldest first (``source``: only that source)."""
        if source is not None:
            check_source(source)
        check_limit(limit, MAX_INBOX_LIMIT)
        with self._store.snapshot():
            rows = self._store.memories.pending_for(self.actor, source, limit)
            return [self._item(memory, replaces) for memory, replaces in rows]

    def count(self, source: str | None = None) -> int:
        """How many pending memories the actor may see (the pane bar's and header's count)."""
        if source is not None:
            check_source(source)
        return self._store.memories.count_pending(self.actor, source)

    def item(self, memory_id: str) -> InboxItem:
        """One pending memory (NotFound if gone or not visible; Conflict if reviewed)."""
        with self._store.snapshot():
            memory = self._pending(memory_id)
            return self._item(memory, self._store.memories.replaces(memory.id))

    def _pending(self, memory_id: str) -> Memory:
        try:
            memory = perm.visible_memory(self._store, memory_id, self.actor)
        except NotFound:
            raise NotFound(f"memory {memory_id!r} not found: it was rejected or forgotten "
                           "since it was shown, or it does not exist") from None
        if memory.status != PENDING:
            how = "approved (it is active now)" if memory.status == ACTIVE else \
                f"approved and since corrected by {memory.superseded_by}"
            raise Conflict(f"memory {memory_id!r} is no longer waiting for review: it was "
                           f"already {how}")
        return memory

    def _target(self, replaces: str | None) -> tuple[Memory | None, str]:
        if replaces is None:
            return None, "none"
        head = self._store.memories.chain_head(replaces)
        target = self._store.memories.get(head) if head is not None else None
        if target is None:
            return None, "forgotten"
        return target, target.status

    def _item(self, memory: Memory, replaces: str | None) -> InboxItem:
        target, state = self._target(replaces)
        can_act = memory.scope == "user" or perm.CREATE_TASK in perm.permissions(
            self._store, memory.project or "", self.actor)
        diff = word_diff(target.content, memory.content) if target is not None else ()
        return InboxItem(memory=memory, replaces=replaces, target=target, target_state=state,
                         can_act=can_act, version=_version(memory, target), diff=diff)

    def approve(self, memory_id: str, *, content: str | None = None, kind: str | None = None,
                expected: str | None = None) -> ApproveResult:
        """Make a pending memory active (with ``content``/``kind`` when edited first); a
        correction supersedes the newest version of what it replaces. ``expected``: the
        item's ``version`` as shown (Conflict if it changed)."""
        if kind is not None:
            check_kind(kind)
        text = clean_memory_content(content) if content is not None else None
        with self._store.transaction():
            memory = self._writable_pending(memory_id)
            replaces = self._store.memories.replaces(memory.id)
            target, state = self._target(replaces)
            if state == "forgotten":
                raise Conflict(f"memory {memory_id!r} corrects {replaces!r}, which was "
                               "forgotten since; reject it (the forgotten text stays gone)")
            self._check_version(memory, target, expected)
            final_text, final_kind = memory.content if text is None else text, kind or memory.kind
            edited = (final_text, final_kind) != (memory.content, memory.kind)
            now = self._store.now()
            self._store.identity.ensure_user(self.actor)
            self._store.memories.activate(memory.id, final_text, final_kind, now)
            superseded = None
            if target is not None:
                self._store.memories.mark_superseded(target.id, memory.id, now)
                self._append_audit("memory_superseded", target.id, new_id=memory.id,
                                   scope=target.scope, reason="approved")
                superseded = target.id
            self._append_audit("memory_approved", memory.id, scope=memory.scope,
                               source=memory.source, edited=edited, superseded=superseded)
            approved = self._store.memories.get(memory.id)
        assert approved is not None
        return ApproveResult(memory=approved, superseded=superseded, edited=edited)

    def reject(self, memory_id: str, *, expected: str | None = None) -> RejectResult:
        """Delete a pending memory like forget, tombstoning its source (``expected``: approve's)."""
        result = self._reject(memory_id, expected)
        purge.finish(self._store, purge.FORGET_PURGE_WAIT_S)
        return result

    def _reject(self, memory_id: str, expected: str | None) -> RejectResult:
        with self._store.transaction():
            memory = self._writable_pending(memory_id)
            if expected is not None:
                target, _state = self._target(self._store.memories.replaces(memory.id))
                self._check_version(memory, target, expected)
            tombstone = memory.source_thread_id
            now = self._store.now()
            if tombstone:
                self._store.memories.add_forgotten_source(tombstone, now, self.actor)
            self._store.memories.delete_many([memory.id])
            self._store.memories.merge_fulltext()
            self._append_audit("memory_rejected", memory.id, scope=memory.scope,
                               source=memory.source, tombstoned=bool(tombstone))
            self._store.purges.add(now, self.actor, 1)  # its text leaves the WAL too
        return RejectResult(memory_id=memory.id, tombstoned=tombstone)

    def reject_many(self, memory_ids: Sequence[str], *,
                    expected: dict[str, str] | None = None) -> BulkResult:
        """Reject each memory in its own transaction; a failure is reported, the rest go on."""
        result = BulkResult()
        for memory_id in dict.fromkeys(memory_ids):
            try:
                result.done.append(self._reject(memory_id, (expected or {}).get(memory_id)))
            except MemtuiError as error:
                result.errors.append((memory_id, error))
        if result.done:
            purge.finish(self._store, purge.FORGET_PURGE_WAIT_S)
        return result

    def actionable_ids(self, source: str | None = None) -> list[str]:
        """Every pending memory the actor may approve or reject (``--all``), oldest first."""
        return [item.id for item in self.items(source, MAX_INBOX_LIMIT) if item.can_act]

    def _writable_pending(self, memory_id: str) -> Memory:
        memory = self._pending(memory_id)
        perm.writable_memory(self._store, memory.id, self.actor)  # a reader: PermissionDenied
        return memory

    @staticmethod
    def _check_version(memory: Memory, target: Memory | None, expected: str | None) -> None:
        if expected is not None and expected != _version(memory, target):
            what = f" (the memory it corrects is now {target.id})" if target is not None else ""
            raise Conflict(f"memory {memory.id!r} changed since it was shown{what}; look at "
                           "it again before deciding")
