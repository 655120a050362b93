"""Claude Code's memory write gate (``engine.gate``): ``WriteGateApi.answer`` decides a write
into a memory folder by the ``claude_memory_gate`` setting: ``review`` holds the redacted
file as an inbox item and denies the call, ``redact`` lets it go on redacted, ``ask`` leaves
it to Claude Code's prompt, ``off`` does nothing. Approve writes the held text atomically
and lists the topic in ``MEMORY.md``; reject leaves a content-free tombstone.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memtui.engine import purge
from memtui.engine.agents.claude_stamp import (
    MODIFIED_KEY,
    NEWEST,
    OLDEST,
    SESSION_KEY,
    ClaudeStamp,
    claude_memory_text,
    stamp_for,
    transcript_version,
)
from memtui.engine.agents.errors import AGENT_FILES, AgentFileProblem
from memtui.engine.agents.frontmatter import METADATA_KEY, parse_front_matter
from memtui.engine.agents.index import (
    INDEX_FILE,
    index_line,
    index_load,
    line_target,
    loaded_cut,
)
from memtui.engine.agents.plans import FileChange, WritePlan, apply_plan, file_change
from memtui.engine.base import EngineArea
from memtui.engine.safe_files import FileStamp, real_root
from memtui.engine.settings import GATE_SETTING, load_settings
from memtui.engine.validation import check_reference, check_text, clean_text, redact
from memtui.errors import Conflict, InvalidInput, NotFound, UnsafePath
from memtui.store.agent_writes import AgentWrite

if TYPE_CHECKING:
    from memtui.engine.review import RejectResult

AGENT = "claude-code"
ID_PREFIX = "write"
TOMBSTONE_PREFIX = "claude-write:"
MAX_FILE_BYTES = 256 * 1024
"""Largest memory file the gate holds (a bigger write fails open, one line on stderr)."""
LIST_LIMIT = 1000
LINE_ENDING_SAMPLE = 4096
"""Characters of a file Claude Code counts line endings in."""
WAITS = "memtui: this memory waits for the user's review as {id}; go on with the task"
REJECTED = ("memtui: the user rejected this memory ({file}) before; do not write it again; go "
            "on with the task")
ASK = "memtui: Claude Code wants to write its memory file {file}{why}"
_MODIFIED_LINES = re.compile(rf"^[ \t]*{MODIFIED_KEY}[ \t]*:.*\n?", re.M)
"""A ``modified:`` line (taken out to compare two writes)."""
_METADATA_BLANK = re.compile(rf"^{METADATA_KEY}:[ \t]+(?=\r?$)", re.M)


class CannotCompute(ValueError):
    """An edit memtui cannot apply as Claude Code would: Claude Code's prompt decides."""


def _text(value: object, what: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"the tool input's {what} is not text")
    return value


def _edits(tool: str, tool_input: dict[str, Any]) -> list[dict[str, Any]]:
    edits = [tool_input] if tool == "Edit" else tool_input.get("edits")
    if not isinstance(edits, list) or not all(isinstance(edit, dict) for edit in edits):
        raise ValueError(f"the {tool} input has no edits")
    return edits


def _crlf(text: str | None) -> bool:
    """Whether Claude Code keeps ``text`` in CRLF line endings (more CRLF than LF breaks)."""
    sample = (text or "")[:LINE_ENDING_SAMPLE]
    crlf = sample.count("\r\n")
    return crlf > sample.count("\n") - crlf


def after_call(tool: str, tool_input: dict[str, Any], current: str | None) -> str:
    """The file as Claude Code's ``tool`` leaves it, before its front matter stamp (Write: the
    content as given; Edit, MultiEdit: on the file in LF line endings, each replacement
    applied in turn, the first match or every one)."""
    if tool == "Write":
        return _text(tool_input.get("content"), "content")
    crlf = _crlf(current)
    text = (current or "").replace("\r\n", "\n")
    for edit in _edits(tool, tool_input):
        old, new = (_text(edit.get(key), key) for key in ("old_string", "new_string"))
        if crlf:
            old, new = old.replace("\r\n", "\n"), new.replace("\r\n", "\n")
        if not old:
            text = new
            continue
        if old not in text:
            raise CannotCompute("its old_string is not in the file as it is")
        if not new and not old.endswith("\n") and old + "\n" in text:
            old += "\n"  # Claude Code removes the line a deletion empties
        text = text.replace(old, new) if edit.get("replace_all") is True else \
            text.replace(old, new, 1)
    return text


def redacted_input(tool: str, tool_input: dict[str, Any]) -> dict[str, Any]:
    """The tool input with the secrets of its new text replaced."""
    if tool == "Write":
        return {**tool_input, "content": redact(_text(tool_input.get("content"), "content"))}
    edits = [{**edit, "new_string": redact(_text(edit.get("new_string"), "new_string"))}
             for edit in _edits(tool, tool_input)]
    return {**tool_input, **edits[0]} if tool == "Edit" else {**tool_input, "edits": edits}


def _decision(decision: str, reason: str) -> dict[str, Any]:
    return {"hookEventName": "PreToolUse", "permissionDecision": decision,
            "permissionDecisionReason": reason}


def _without_session(text: str, session: str | None) -> str:
    """``text`` with the proposing session's id taken out of its ``originSessionId`` line."""
    return text.replace(f"{SESSION_KEY}: {session}\n", f"{SESSION_KEY}:\n") if session else text


def _mark(path: str, text: str) -> str:
    """The content-free mark of a rejected write: a hash of the file and its text (as
    ``_unstamped``)."""
    digest = hashlib.sha256(f"{path}\0{text}".encode()).hexdigest()
    return f"{TOMBSTONE_PREFIX}{digest[:40]}"


def _unstamped(content: str, session: str | None) -> str:
    """The text without what Claude Code stamps on each save (the session's id, the
    ``modified:`` line, the blank after ``metadata:``), so the same write compares the same."""
    head = parse_front_matter(content).head
    body = content[len(head):]
    head = _without_session(head, session)
    return _METADATA_BLANK.sub(METADATA_KEY + ":", _MODIFIED_LINES.sub("", head)) + body


def _read(path: str, folder: str) -> tuple[str | None, FileStamp | None]:
    """The file's text and stamp now (None, None: there is none), read inside its folder."""
    if not os.path.lexists(path):
        return None, None
    if os.path.islink(path):
        raise UnsafePath(f"{path}: is a symlink; memtui does not write through one")
    return AGENT_FILES.read_text_stamped(path, real_root(folder))


def _diff(row: AgentWrite, current: str | None) -> str:
    """The held text against the file now (redacted), as a diff."""
    shown = None if current is None else redact(current)
    return WritePlan("gate", "", row.memory_dir,
                     (file_change(row.path, None, shown, row.content),)).diff()


def saved_text(path: str, tool: str, after: str, current: str | None, session: str | None,
               stamp: ClaudeStamp, now: str) -> str:
    """What Claude Code saves when ``tool`` leaves ``after``: a memory file stamped, an edited
    file in CRLF line endings when it had them."""
    text = claude_memory_text(after, session or "", stamp, now) if path.endswith(".md") \
        else after
    return text.replace("\n", "\r\n") if tool != "Write" and _crlf(current) else text


def proposer_stamp(payload: dict[str, Any]) -> ClaudeStamp:
    """How the Claude Code that made the hook call saves memory files (by the version its
    transcript names, else the newest)."""
    transcript = payload.get("transcript_path")
    return stamp_for(transcript_version(transcript) if isinstance(transcript, str) and
                     transcript else None)


@dataclass(frozen=True)
class IndexMeter:
    """What approving does to ``MEMORY.md``'s load: (lines, bytes) now and after, the line it
    adds, the entries left unloaded."""

    path: str
    now: tuple[int, int] | None
    after: tuple[int, int]
    loaded: tuple[int, int]
    added: str | None
    unloaded: tuple[str, ...]
    limits: tuple[int, int]

    def words(self) -> str:
        """One line: ``MEMORY.md 12 → 13 of 200 lines, 1,100 → 1,180 of 25,000 bytes; …``."""
        before = self.now or (0, 0)
        fits = "all of it loads" if not self.unloaded else \
            f"{len(self.unloaded)} entr{'y' if len(self.unloaded) == 1 else 'ies'} past the " \
            "limit will not load"
        return (f"{INDEX_FILE} {before[0]} → {self.after[0]} of {self.limits[0]} lines, "
                f"{before[1]:,} → {self.after[1]:,} of {self.limits[1]:,} bytes; {fits}")

    def to_json(self) -> dict[str, Any]:
        """The meter as plain JSON."""
        return {"path": self.path, "lines": self.after[0], "bytes": self.after[1],
                "lines_now": self.now[0] if self.now else None,
                "bytes_now": self.now[1] if self.now else None,
                "loaded_lines": self.loaded[0], "loaded_bytes": self.loaded[1],
                "max_lines": self.limits[0], "max_bytes": self.limits[1],
                "adds": self.added, "unloaded": list(self.unloaded), "words": self.words()}


def _size(text: str) -> tuple[int, int]:
    return len(text.splitlines()), len(text.encode("utf-8"))


@dataclass(frozen=True)
class HeldWrite:
    """A held write as the inbox shows it; ``stale``: the file changed since the proposal."""

    row: AgentWrite
    stale: bool
    index: IndexMeter | None
    problem: str | None = None
    """Why the file cannot be read now (approving is refused)."""

    @property
    def id(self) -> str:
        """The item's id."""
        return self.row.id

    @property
    def version(self) -> str:
        """The token approve takes back to refuse an item changed since it was shown."""
        return f"{self.row.updated_at}/{self.row.base_sha256}/{_sha(self.row.content)[:16]}"

    def to_json(self) -> dict[str, Any]:
        """``{id, source, agent, project, file, content, diff, session_id, tool, created_at,
        stale, problem, index, version}``."""
        row = self.row
        return {"id": row.id, "source": row.agent, "agent": row.agent,
                "project": row.project_dir, "file": row.path, "memory_dir": row.memory_dir,
                "content": row.content, "diff": row.diff, "session_id": row.session_id,
                "tool": row.tool, "created_at": row.created_at, "stale": self.stale,
                "problem": self.problem, "version": self.version,
                "index": self.index.to_json() if self.index else None}


class WriteGateApi(EngineArea):
    """The acting user's held Claude Code memory writes."""

    def answer(self, payload: dict[str, Any], folder: str, path: str) -> dict[str, Any] | None:
        """The hook's ``hookSpecificOutput`` for a write into the memory ``folder`` (or None)."""
        mode = load_settings(self._store, self.actor)[GATE_SETTING]
        tool, tool_input = payload["tool_name"], payload["tool_input"]
        if mode == "off":
            return None
        name = os.path.relpath(path, folder)
        if mode == "ask" or tool == "NotebookEdit":
            return _decision("ask", ASK.format(file=name, why=""))
        try:
            current, _stamp = _read(path, folder)
            after = after_call(tool, tool_input, current)
        except (CannotCompute, AgentFileProblem, UnsafePath) as error:
            why = error.reason if isinstance(error, AgentFileProblem) else \
                str(error).removeprefix(f"{path}: ")
            return _decision("ask", ASK.format(file=name, why=f" ({why})"))
        if mode == "redact":
            updated = redacted_input(tool, tool_input)
            return None if updated == tool_input else {"hookEventName": "PreToolUse",
                                                       "updatedInput": updated}
        cwd = payload.get("cwd")
        held = self.propose(tool, path, folder, after, current,
                            session_id=payload.get("session_id"),
                            project_dir=cwd if isinstance(cwd, str) else None,
                            stamp=proposer_stamp(payload))
        return _decision("deny", REJECTED.format(file=name) if held is None else
                         WAITS.format(id=held))

    def propose(self, tool: str, path: str, folder: str, after: str, current: str | None, *,
                session_id: object = None, project_dir: str | None = None,
                stamp: ClaudeStamp = NEWEST) -> str | None:
        """Hold ``after`` (redacted, stamped as ``stamp``'s Claude Code writes it) as the next text
        of ``path``; its id (a waiting one's for the same text), None when rejected before."""
        session = check_reference(session_id, "session id") if session_id else None
        now = self._store.now()
        cleaned = clean_text(after, "the memory file", max_bytes=MAX_FILE_BYTES,
                             allow_empty=True)
        text = saved_text(path, tool, cleaned, current, session, stamp, now)
        row = AgentWrite(self._store.new_id(ID_PREFIX), self.actor, self._engine.client or AGENT,
                         session, check_text(tool, "tool"), project_dir, folder, path, text,
                         None if current is None else _sha(current), "", now, now)
        same = _unstamped(text, session)
        # an earlier memtui marked the write as Claude Code 2.1.197 stamps it
        earlier = saved_text(path, "Write", cleaned, None, session, OLDEST, "")
        with self._store.transaction():
            if any(self._store.memories.is_forgotten_source(mark) for mark in (
                    _mark(path, same), _mark(path, _without_session(earlier, session)))):
                return None
            for waiting in self._store.agent_writes.waiting_for(self.actor, path):
                if _unstamped(waiting.content, waiting.session_id) == same:
                    return waiting.id
            self._store.identity.ensure_user(self.actor)
            self._store.agent_writes.add(replace(row, diff=_diff(row, current)))
            self._audit("agent_write_held", row.id, tool=tool)
        return row.id

    def items(self) -> list[HeldWrite]:
        """The user's held writes, oldest first, each checked against its file now."""
        return [self._held(row) for row in self._store.agent_writes.list_for(self.actor,
                                                                              LIST_LIMIT)]

    def count(self) -> int:
        """How many writes wait."""
        return self._store.agent_writes.count_for(self.actor)

    def item(self, write_id: str) -> HeldWrite:
        """One held write (NotFound when it is gone)."""
        return self._held(self._row(write_id))

    def _row(self, write_id: str) -> AgentWrite:
        row = self._store.agent_writes.get(self.actor, str(write_id))
        if row is None:
            raise NotFound(f"held write {str(write_id)[:80]!r} not found: it was approved or "
                           "rejected since it was shown, or it does not exist")
        return row

    def _held(self, row: AgentWrite) -> HeldWrite:
        try:
            current, _stamp = _read(row.path, row.memory_dir)
            index = self._meter(row)
        except (AgentFileProblem, UnsafePath) as error:
            return HeldWrite(row, True, None, error.message)
        stale = (None if current is None else _sha(current)) != row.base_sha256
        return HeldWrite(row, stale, index)

    def _index_change(self, row: AgentWrite, text: str | None,
                      stamp: FileStamp | None) -> FileChange | None:
        """The index line a new topic adds to ``MEMORY.md`` (``text``, ``stamp``: the index as
        read); None for the index itself, a file that is not a topic, or one already listed."""
        folder = Path(row.memory_dir)
        index = folder / INDEX_FILE
        relative = os.path.basename(row.path)
        if Path(row.path) == index or not relative.endswith(".md") or \
                Path(row.path).parent != folder:
            return None
        if any(line_target(line, str(folder)) == relative for line in (text or "").split("\n")):
            return None
        fields = parse_front_matter(row.content).fields
        line = index_line(relative, fields.get("name"), fields.get("description"))
        joined = (text or "") + ("\n" if text and not text.endswith("\n") else "") + line + "\n"
        return file_change(index, stamp, text, joined)

    def _meter(self, row: AgentWrite) -> IndexMeter:
        index = str(Path(row.memory_dir) / INDEX_FILE)
        now, stamp = _read(index, row.memory_dir)
        change = self._index_change(row, now, stamp)
        after = row.content if row.path == index else change.new_text if change else now or ""
        load = index_load(index, after, ())
        return IndexMeter(index, _size(now) if now is not None else None, _size(after),
                          loaded_cut(after), change.new_text[len(change.old_text):].strip()
                          if change else None,
                          tuple(entry.title for entry in load.entries if not entry.loaded),
                          (load.max_lines, load.max_bytes))

    def approve(self, write_id: str, *, content: str | None = None,
                expected: str | None = None) -> HeldWrite:
        """Write a held file (``content``: as edited, redacted) and a new topic's index line;
        refused when the item or the file changed since it was shown."""
        with self._store.transaction():
            row = self._row(write_id)
            if expected is not None and expected != HeldWrite(row, False, None).version:
                raise Conflict(f"{row.id} changed since it was shown; look at it again")
            try:  # each file read once: the stale check and the write see the same bytes
                current, stamp = _read(row.path, row.memory_dir)
                index_text, index_stamp = _read(str(Path(row.memory_dir) / INDEX_FILE),
                                                row.memory_dir)
            except (AgentFileProblem, UnsafePath) as error:
                raise InvalidInput(f"{row.path}: {error.message}; nothing was written") \
                    from None
            if (None if current is None else _sha(current)) != row.base_sha256:
                raise Conflict(f"{row.path} changed since {row.id} was proposed; nothing was "
                               f"written — redo the diff against the file as it is now "
                               f"(memtui inbox redo {row.id}) and look at it again")
            if content is not None:
                row = replace(row, content=saved_text(row.path, "Write", clean_text(
                    content, "the memory file", max_bytes=MAX_FILE_BYTES, allow_empty=True),
                    None, row.session_id, ClaudeStamp.of_text(row.content), self._store.now()))
            index = self._index_change(row, index_text, index_stamp)
            change = file_change(row.path, stamp, current, row.content)
            apply_plan(WritePlan("approve", f"write {row.path}", str(real_root(row.memory_dir)),
                                 (change,) if index is None else (index, change)), True)
            self._store.agent_writes.delete(row.id)
            self._audit("agent_write_approved", row.id, edited=content is not None,
                        indexed=index is not None)
        return HeldWrite(row, False, None)

    def redo(self, write_id: str) -> HeldWrite:
        """Make a held write's diff again against its file as it is now (a new version)."""
        with self._store.transaction():
            row = self._row(write_id)
            current, _stamp = _read(row.path, row.memory_dir)
            base = None if current is None else _sha(current)
            diff = _diff(row, current)
            self._store.agent_writes.rebase(row.id, row.content, base, diff, self._store.now())
            return self._held(self._row(row.id))

    def reject(self, write_id: str) -> RejectResult:
        """Delete a held write for good; a content-free tombstone refuses it from now on."""
        from memtui.engine.review import RejectResult

        with self._store.transaction():
            row = self._row(write_id)
            now = self._store.now()
            tombstone = _mark(row.path, _unstamped(row.content, row.session_id))
            self._store.memories.add_forgotten_source(tombstone, now, self.actor)
            self._store.agent_writes.delete(row.id)
            self._audit("agent_write_rejected", row.id)
            self._store.purges.add(now, self.actor, 1)  # its text leaves the WAL too
        purge.finish(self._store, purge.FORGET_PURGE_WAIT_S)
        return RejectResult(row.id, tombstone)

    def _audit(self, action: str, target: str, **detail: Any) -> None:
        self._store.audit.append(self.actor, action, target,
                                 self._engine.audit_detail({"agent": AGENT, **detail}))


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()

