"""The service's engine API (``engine.recall``): interactions, recall, task transitions,
consolidation records and document bundles (docs/recall.md, docs/service.md). Recall sees
exactly what the actor may see; everything stored is redacted; audits carry no content.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from typing import Any

from memtui.engine import permissions as perm
from memtui.engine import recall_vectors
from memtui.engine.base import EngineArea
from memtui.engine.identity import clean_memory_content
from memtui.engine.recall_query import STOPWORDS, Question, analyse, candidates, rank
from memtui.engine.recall_use import recorder_for
from memtui.engine.recall_window import WINDOWS, fresh
from memtui.engine.validation import (
    MAX_DETAIL_BYTES,
    MAX_JSON_DEPTH,
    check_new_id,
    check_text,
    clamp_limit,
    clean_detail,
    clean_text,
    echo,
    json_depth,
)
from memtui.errors import Conflict, InvalidInput, NotFound
from memtui.jsonable import JsonMixin
from memtui.store.models import BundleDocument, Interaction, Memory, Task
from memtui.store.recall import BundleSummary, ConsolidationRecord

DEFAULT_RECALL_LIMIT = 8
MAX_RECALL_LIMIT = 50
"""Largest number of items per recall list (a bigger ``limit`` is clamped to it)."""
MAX_RECALL_BUNDLES = 3
MAX_QUERY_BYTES = 16 * 1024
CARD_TEXT_CHARS = 1000
INDEX_EXCERPT_CHARS = 2000
MAX_SOURCE_BYTES = 64
STATE_FILE = "state.json"
INDEX_FILE = "INDEX.md"
BUNDLE_FILES = (INDEX_FILE, "requirements.md", "preferences.md", "lessons.md", STATE_FILE)
"""The fixed documents a bundle may hold (besides ``runs/<run_id>/summary.md``)."""
MAX_DOCUMENT_BYTES = 256 * 1024
MAX_BUNDLE_DOCUMENTS = 200
"""A bundle holds at most this many documents (run summaries included)."""
MAX_BUNDLE_LIST = 100
PROJECT_BUNDLE = "project"
SCHEDULE_BUNDLE = "schedule"
CONTINUE_THRESHOLD = 0.35
"""A request continues the current task when at least this share of its words appear in the
task's goal, prompt or result."""
MAX_TRANSITION_TEXT_BYTES = 1024 * 1024
TRANSITION_FIELDS = ("goal", "prompt", "result")
DEFAULT_CONSOLIDATION_LIST = 50
MAX_CONSOLIDATION_LIST = 1000
_WORD = re.compile(r"\w+", re.UNICODE)
_CJK = re.compile(r"([\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]+)")


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def task_card(task: Task) -> dict[str, Any]:
    """A task as a recall card (texts cut to ``CARD_TEXT_CHARS``)."""
    return {"id": task.id, "project": task.project, "user": task.user,
            "goal": _cut(task.goal, CARD_TEXT_CHARS), "prompt": _cut(task.prompt, CARD_TEXT_CHARS),
            "result": _cut(task.result, CARD_TEXT_CHARS), "status": task.status,
            "parent": task.parent, "started_at": task.started_at,
            "finished_at": task.finished_at, "cost_usd": task.cost_usd,
            "created_at": task.created_at}


def interaction_card(interaction: Interaction) -> dict[str, Any]:
    """An interaction as recall returns it (texts cut to ``CARD_TEXT_CHARS``)."""
    return {"interaction_id": interaction.id, "project": interaction.project,
            "question": _cut(interaction.question, CARD_TEXT_CHARS),
            "answer": _cut(interaction.answer, CARD_TEXT_CHARS), "source": interaction.source,
            "created_at": interaction.created_at}


@dataclass(frozen=True)
class Remembered:
    """The outcome of ``remember_interaction``: the stored pair, and whether it is new."""

    interaction: Interaction
    created: bool

    def to_json(self) -> dict[str, Any]:
        """``{interaction_id, created}``."""
        return {"interaction_id": self.interaction.id, "created": self.created}


@dataclass(frozen=True)
class BundleInfo(JsonMixin):
    """A bundle as the actor names it (``project:<id>`` / ``schedule:<name>``)."""

    bundle: str
    kind: str
    project: str | None
    schedule: str | None
    created_by: str
    created_at: str
    updated_at: str
    documents: tuple[tuple[str, int], ...]
    index: str | None = None

    def to_json(self) -> dict[str, Any]:
        """Its fields, ``documents`` as ``[{path, revision}]``; ``index`` only in a recall."""
        out = super().to_json() | {
            "documents": [{"path": path, "revision": rev} for path, rev in self.documents]}
        if self.index is None:
            del out["index"]
        return out


@dataclass(frozen=True)
class BundleView:
    """One bundle with its documents' content."""

    bundle: str
    kind: str
    documents: tuple[BundleDocument, ...]

    def to_json(self) -> dict[str, Any]:
        """``{bundle, kind, documents: [{path, revision, content, updated_at, updated_by}]}``."""
        return {"bundle": self.bundle, "kind": self.kind,
                "documents": [doc.to_json() for doc in self.documents]}


@dataclass(frozen=True)
class DocumentWrite(JsonMixin):
    """A document written: its bundle, path and new revision."""

    bundle: str
    path: str
    revision: int


@dataclass(frozen=True)
class Transition(JsonMixin):
    """Whether a request continues the current task (``continue``) or not (``new``)."""

    decision: str
    score: float
    reason: str
    task_id: str | None = None
    shared_terms: tuple[str, ...] = ()


@dataclass(frozen=True)
class RecallResult:
    """What ``recall`` found; every list newest or best first."""

    query: str
    limit: int
    project: str | None
    related_memories: tuple[Memory, ...] = ()
    recent_memories: tuple[Memory, ...] = ()
    related_task_cards: tuple[Task, ...] = ()
    recent_task_cards: tuple[Task, ...] = ()
    related_interactions: tuple[Interaction, ...] = ()
    recent_interactions: tuple[Interaction, ...] = ()
    bundles: tuple[BundleInfo, ...] = field(default=())

    def to_json(self) -> dict[str, Any]:
        """The ``memory.recall`` result of the service (plus ``query``, ``limit``, ``project``)."""
        out: dict[str, Any] = {"query": self.query, "limit": self.limit, "project": self.project}
        for name, card in (("memories", Memory.to_json), ("task_cards", task_card),
                           ("interactions", interaction_card)):
            for when in ("related", "recent"):
                out[f"{when}_{name}"] = [card(item) for item in getattr(self, f"{when}_{name}")]
        return out | {"bundles": [bundle.to_json() for bundle in self.bundles]}


def text_terms(text: str) -> set[str]:
    """The words of a text for relatedness (runs of CJK characters as character pairs)."""
    terms: set[str] = set()
    for word in _WORD.findall(text.casefold()):
        for index, piece in enumerate(_CJK.split(word)):  # odd pieces: runs of CJK
            if index % 2 and len(piece) == 1:
                terms.add(piece)
            elif index % 2:
                terms.update(piece[i:i + 2] for i in range(len(piece) - 1))
            elif len(piece) > 1 and piece not in STOPWORDS:
                terms.add(piece)
    return terms


def check_document_path(path: object) -> str:
    """A bundle document path: one of ``BUNDLE_FILES`` or ``runs/<run_id>/summary.md``."""
    if not isinstance(path, str):
        raise InvalidInput("path must be text")
    if path in BUNDLE_FILES:
        return path
    parts = path.split("/")
    if len(parts) == 3 and parts[0] == "runs" and parts[2] == "summary.md" \
            and ".." not in parts[1]:
        check_new_id(parts[1], "run id")
        return path
    raise InvalidInput(f"path {echo(path)} is not a bundle document: use one of "
                       f"{', '.join(BUNDLE_FILES)} or runs/<run_id>/summary.md")


def check_state_json(content: str, what: str) -> None:
    """A bundle's ``state.json``: valid JSON, not nested too deep (else InvalidInput)."""
    try:
        value = json.loads(content)
    except RecursionError:
        raise InvalidInput(f"{what} is nested deeper than {MAX_JSON_DEPTH} levels") from None
    except ValueError as error:
        raise InvalidInput(f"{what} is not valid JSON ({error})") from None
    if json_depth(value) > MAX_JSON_DEPTH:
        raise InvalidInput(f"{what} is nested deeper than {MAX_JSON_DEPTH} levels")


def clean_interaction_source(source: object) -> str:
    """An interaction's ``source`` label as stored: short text, redacted."""
    return clean_text(source, "source", max_bytes=MAX_SOURCE_BYTES)


def _recall_query(query: str | None, limit: object) -> tuple[str, int]:
    text = check_text(query if query is not None else "", "query", max_bytes=MAX_QUERY_BYTES,
                      allow_empty=True)
    return text, clamp_limit(limit, MAX_RECALL_LIMIT)


class RecallApi(EngineArea):
    """Interactions, recall, transitions, consolidation records and bundles, acting as the
    engine's user; ``use_vectors``: whether recall blends in the embeddings."""

    use_vectors = recall_vectors.vectors_wanted()

    def readable_projects(self) -> list[str]:
        """Ids of the projects the actor may read."""
        return [project.id for project, role in self._store.identity.projects_for(self.actor)
                if perm.READ in perm.ROLE_PERMISSIONS.get(role, frozenset())]

    def _recall_projects(self, project: str | None, for_agent: bool = False) -> list[str]:
        """``[project]`` (which the actor must be able to read), else every readable one; for
        an agent, only those the actor made or accepted: an invitation's memories reach an
        agent only when it names the project."""
        if project is not None:
            perm.readable_project(self._store, project, self.actor)
            return [project]
        readable = self.readable_projects()
        if not for_agent:
            return readable
        chosen = {chosen.id for chosen in self._store.identity.chosen_projects(self.actor)}
        return [project_id for project_id in readable if project_id in chosen]

    def remember_interaction(self, interaction_id: str, question: str, answer: str,
                             project: str | None = None, source: str | None = None) -> Remembered:
        """Store a finished question/answer pair (redacted), once per ``interaction_id``."""
        check_new_id(interaction_id, "interaction_id")
        question_text = clean_memory_content(question, "question")
        answer_text = clean_memory_content(answer, "answer")
        source = None if source is None else clean_interaction_source(source)
        with self._store.transaction():
            if project is not None:
                perm.readable_project(self._store, project, self.actor)
            existing = self._store.recall.get_interaction(self.actor, interaction_id)
            if existing is not None:
                return Remembered(existing, False)
            self._store.identity.ensure_user(self.actor)
            interaction = Interaction(id=interaction_id, user=self.actor, project=project,
                                      question=question_text, answer=answer_text,
                                      source=source, created_at=self._store.now())
            created = self._store.recall.insert_interaction(interaction)
        return Remembered(interaction, created)

    def recall(self, query: str = "", limit: int = DEFAULT_RECALL_LIMIT,
               project: str | None = None, *, for_agent: bool = False) -> RecallResult:
        """Related and recent memories, task cards and interactions, and bundles, for
        ``query``; ``for_agent``: the related memories are marked used (``recall_use``), and
        without ``project`` only projects the actor made or accepted are searched."""
        text, size = _recall_query(query, limit)
        service = self._store.recall
        question = analyse(text)
        match = " ".join(question.words)  # tasks and interactions: the words as asked
        stamp = self._window_stamp()
        with self._store.snapshot():
            projects = self._recall_projects(project, for_agent)
            result = RecallResult(
                text, size, project,
                tuple(self._related_memories(text, question, projects, project, size, stamp)),
                tuple(service.recent_memories(self.actor, projects, size)),
                tuple(service.related_tasks(match, self.actor, projects, size, project)),
                tuple(service.recent_tasks(self.actor, projects, size, project)),
                tuple(service.related_interactions(match, self.actor, size, project)),
                tuple(service.recent_interactions(self.actor, size, project)),
                tuple(self._recall_bundles(text, projects, project)))
        if for_agent:
            recorder_for(self._store).given(result.related_memories)
        return result

    def recall_memories(self, query: str = "", limit: int = DEFAULT_RECALL_LIMIT,
                        project: str | None = None, *,
                        every_project: bool = True, for_agent: bool = False) -> list[Memory]:
        """Active memories the actor may read, best match first for ``query`` (else newest):
        its user-level ones and ``project``'s (without one: every readable project's, or none
        unless ``every_project``); ``for_agent`` as for ``recall``."""
        text, size = _recall_query(query, limit)
        stamp = self._window_stamp()
        with self._store.snapshot():
            projects = self._recall_projects(project, for_agent) \
                if project is not None or every_project else []
            found = (self._related_memories(text, analyse(text), projects, project, size, stamp)
                     if text.strip() else
                     self._store.recall.recent_memories(self.actor, projects, size))
        if for_agent:
            recorder_for(self._store).given(found)
        return found

    def _window_stamp(self) -> tuple[int, ...] | None:
        """The store's change stamp before a recall's snapshot begins (``recall_window``)."""
        return self._store.change_stamp() if self.use_vectors else None

    def _related_memories(self, text: str, question: Question, projects: list[str],
                          current: str | None, size: int,
                          stamp: tuple[int, ...] | None) -> list[Memory]:
        """The best ``size`` active memories for ``text``: ``recall_query``'s ranking, with
        ``use_vectors`` of the blend (``recall_vectors``) with the newest visible memories."""
        scored = self._store.recall.scored_memories(question.match, self.actor, projects,
                                                    candidates(size), size)
        if not self.use_vectors:
            return rank(scored, question, self.actor, current, size)
        read_now = {memory.id for memory, _score in scored}
        while True:
            window, kept = WINDOWS.newest(self._store, self.actor, projects,
                                          recall_vectors.VECTOR_WINDOW, stamp)
            if window.vectors is None:
                window.vectors = recall_vectors.CACHE.vectors(window.memories)
            blended = recall_vectors.blend(text, scored, window.memories, recall_vectors.CACHE,
                                           window.vectors)
            found = rank(blended, question, self.actor, current, size)
            if not kept or fresh(self._store, [memory for memory in found
                                               if memory.id not in read_now]):
                return found  # a window read now is of this snapshot: nothing to check
            WINDOWS.forget(self._store)  # the next turn reads it in this snapshot

    def _recall_bundles(self, text: str, projects: list[str],
                        project: str | None) -> list[BundleInfo]:
        """At most MAX_RECALL_BUNDLES bundles: the named project's first, then those whose
        name shares a word with the query, then the most recently changed."""
        summaries = self._store.recall.visible_bundles(self.actor, projects, MAX_BUNDLE_LIST)
        words = text_terms(text)

        def order(item: tuple[int, BundleSummary]) -> tuple[int, int, int]:
            position, summary = item
            named = int(project is not None and summary.project == project)
            name = summary.project or summary.schedule or ""
            return (-named, -len(words & text_terms(name.replace("-", " "))), position)

        chosen = [s for _, s in sorted(enumerate(summaries), key=order)][:MAX_RECALL_BUNDLES]
        out = []
        for summary in chosen:
            index = self._store.recall.document(summary.id, INDEX_FILE)
            out.append(replace(self._bundle_info(summary),
                               index=_cut(index.content, INDEX_EXCERPT_CHARS) if index else ""))
        return out

    def transition_assess(self, current_task: str | dict[str, Any] | None,
                          request: str) -> Transition:
        """Whether ``request`` continues ``current_task`` (a visible task's id, or an object
        with ``goal``/``prompt``/``result``): ``CONTINUE_THRESHOLD`` of its words in it."""
        request_text = check_text(request, "request", max_bytes=MAX_TRANSITION_TEXT_BYTES)
        if current_task is None:
            return Transition("new", 0.0, "there is no current task, so this starts a new one")
        task_id: str | None = None
        if isinstance(current_task, str):
            task = self._engine.tasks.get_task(current_task)
            task_id, texts = task.id, [task.goal, task.prompt, task.result]
        elif isinstance(current_task, dict):
            unknown = sorted(set(current_task) - set(TRANSITION_FIELDS))
            if unknown:
                raise InvalidInput(f"current_task has unknown field {unknown[0][:40]!r}: use "
                                   f"{', '.join(TRANSITION_FIELDS)}")
            texts = [check_text(current_task.get(name) or "", f"current_task.{name}",
                                max_bytes=MAX_TRANSITION_TEXT_BYTES, allow_empty=True)
                     for name in TRANSITION_FIELDS]
        else:
            raise InvalidInput("current_task must be a task id or an object with goal, prompt "
                               "and result")
        wanted = text_terms(request_text)
        if not wanted:
            return Transition("new", 0.0, "the request has no distinctive words to compare "
                              "with the current task", task_id)
        have = text_terms("\n".join(texts))
        shared = tuple(sorted(wanted & have))
        score = round(len(shared) / len(wanted), 3)
        decision = "continue" if score >= CONTINUE_THRESHOLD else "new"
        listed = ", ".join(shared[:8]) + (", …" if len(shared) > 8 else "")
        reason = (f"{len(shared)} of {len(wanted)} distinctive request words appear in the "
                  f"current task{f' ({listed})' if shared else ''}; score {score:.2f} "
                  f"{'≥' if decision == 'continue' else '<'} {CONTINUE_THRESHOLD} → {decision}")
        return Transition(decision, score, reason, task_id, shared)

    def record_consolidation(self, kind: str, outcome: str,
                             detail: dict[str, Any] | None = None) -> ConsolidationRecord:
        """Record that a consolidation happened (short id-like labels, a small ``detail``)."""
        check_new_id(kind, "kind")
        check_new_id(outcome, "outcome")
        stored = clean_detail({} if detail is None else detail, "detail", MAX_DETAIL_BYTES)
        with self._store.transaction():
            self._store.identity.ensure_user(self.actor)
            record = ConsolidationRecord(id=self._store.new_id("cons"), user=self.actor,
                                         kind=kind, outcome=outcome, detail=stored,
                                         at=self._store.now())
            self._store.recall.insert_consolidation(record)
            self._append_audit("consolidation_recorded", record.id, kind=kind, outcome=outcome)
        return record

    def consolidations(self, limit: int = DEFAULT_CONSOLIDATION_LIST) -> list[ConsolidationRecord]:
        """The actor's consolidation records, newest first."""
        size = clamp_limit(limit, MAX_CONSOLIDATION_LIST)
        return self._store.recall.consolidations(self.actor, size)

    def _parse_bundle(self, bundle: object) -> tuple[str, str, str]:
        """(kind, name, store key) of a bundle id the actor names."""
        if not isinstance(bundle, str):
            raise InvalidInput("bundle must be text: project:<id> or schedule:<name>")
        kind, sep, name = bundle.partition(":")
        if not sep or kind not in (PROJECT_BUNDLE, SCHEDULE_BUNDLE):
            raise InvalidInput(f"bundle {echo(bundle)} is not project:<id> or schedule:<name>")
        check_new_id(name, f"{kind} name" if kind == SCHEDULE_BUNDLE else "project id")
        owner = f"{self.actor}:" if kind == SCHEDULE_BUNDLE else ""
        return kind, name, f"{kind}:{owner}{name}"

    @staticmethod
    def _bundle_info(summary: BundleSummary) -> BundleInfo:
        kind = PROJECT_BUNDLE if summary.project is not None else SCHEDULE_BUNDLE
        return BundleInfo(f"{kind}:{summary.project or summary.schedule}", kind,
                          summary.project, summary.schedule, summary.created_by,
                          summary.created_at, summary.updated_at, summary.documents)

    def list_bundles(self, project: str | None = None) -> list[BundleInfo]:
        """The bundles the actor can read (only ``project``'s when given), newest first."""
        with self._store.snapshot():
            if project is not None:
                perm.readable_project(self._store, project, self.actor)
                found = self._store.recall.get_bundle(f"{PROJECT_BUNDLE}:{project}")
                summaries = [found] if found is not None else []
            else:
                summaries = self._store.recall.visible_bundles(
                    self.actor, self.readable_projects(), MAX_BUNDLE_LIST)
        return [self._bundle_info(summary) for summary in summaries]

    def get_bundle(self, bundle: str) -> BundleView:
        """A bundle's documents with their content and revisions."""
        kind, name, key = self._parse_bundle(bundle)
        with self._store.snapshot():
            if kind == PROJECT_BUNDLE:
                perm.readable_project(self._store, name, self.actor)
            elif self._store.recall.get_bundle(key) is None:
                raise NotFound(f"bundle {bundle!r} not found")
            documents = self._store.recall.documents(key)
        return BundleView(bundle=f"{kind}:{name}", kind=kind, documents=tuple(documents))

    def get_document(self, bundle: str, path: str) -> BundleDocument:
        """One document of a bundle the actor can read (NotFound when it does not exist)."""
        kind, name, key = self._parse_bundle(bundle)
        check_document_path(path)
        with self._store.snapshot():
            if kind == PROJECT_BUNDLE:
                perm.readable_project(self._store, name, self.actor)
            document = self._store.recall.document(key, path)
        if document is None:
            raise NotFound(f"{path} not found in bundle {bundle!r}")
        return document

    def put_document(self, bundle: str, path: str, content: str,
                     expected_revision: int) -> DocumentWrite:
        """Write one document (redacted) if it is still at ``expected_revision`` (0: new)."""
        kind, name, key = self._parse_bundle(bundle)
        check_document_path(path)
        if isinstance(expected_revision, bool) or not isinstance(expected_revision, int) \
                or expected_revision < 0:
            raise InvalidInput("expected_revision must be a whole number ≥ 0 (0 for a new "
                               "document)")
        text = check_text(content, "content", max_bytes=MAX_DOCUMENT_BYTES, allow_empty=True)
        if path == STATE_FILE:
            check_state_json(text, STATE_FILE)
        cleaned = clean_text(text, "content", max_bytes=MAX_DOCUMENT_BYTES, allow_empty=True)
        if path == STATE_FILE and cleaned != text:
            check_state_json(cleaned, f"{STATE_FILE} after redaction")
        public = f"{kind}:{name}"
        with self._store.transaction():
            if kind == PROJECT_BUNDLE:
                perm.writable_project(self._store, name, self.actor)
            self._store.identity.ensure_user(self.actor)
            now = self._store.now()
            self._store.recall.ensure_bundle(
                key, name if kind == PROJECT_BUNDLE else None,
                name if kind == SCHEDULE_BUNDLE else None, self.actor, now)
            if expected_revision == 0 and \
                    self._store.recall.count_documents(key) >= MAX_BUNDLE_DOCUMENTS and \
                    self._store.recall.document_revision(key, path) == 0:
                raise InvalidInput(f"bundle {public!r} already holds {MAX_BUNDLE_DOCUMENTS} "
                                   "documents")
            revision = self._store.recall.put_document(key, path, cleaned, expected_revision,
                                                        now, self.actor)
            if revision is None:
                current = self._store.recall.document_revision(key, path)
                raise Conflict(f"{path} in {public} is at revision {current}, not "
                               f"{expected_revision}: read it again and retry",
                               current_revision=current)
            self._append_audit("bundle_document_written", public, path=path, revision=revision)
        return DocumentWrite(bundle=public, path=path, revision=revision)
