"""Terminal control characters never reach the store (validation.strip_controls, inside
clean_text): ESC, BEL, C1 and a lone carriage return are removed on every write path, tab,
newline and CRLF line ends are kept; a store that holds them from before is flagged by doctor
and cleaned by ``doctor --repair``."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from backends import plant_legacy_text

from memtui.engine.api import Engine
from memtui.engine.validation import clean_text
from memtui.errors import InvalidInput

OSC = "evil\x1b]52;c;ZWNobyBwd25lZA==\x07 title\x1b]0;HACKED\x07"
CLEANED = "evil]52;c;ZWNobyBwd25lZA== title]0;HACKED"
CONTROLS = ("\x1b", "\x07", "\x9b", "\x85", "\x7f", "\x08", "\x0c")


@pytest.mark.parametrize(("typed", "stored"), [
    (OSC, CLEANED),
    ("a\x9b31mb\x85c\x7fd\x08e\x0cf", "a31mbcdef"),
    ("one\r\ntwo\r\n\tthree\n", "one\r\ntwo\r\n\tthree\n"),
    ("shown\rhidden\r", "shownhidden"),
    ("\u202eright-to-left kept", "\u202eright-to-left kept"),
])
def test_clean_text_removes_terminal_controls_only(typed: str, stored: str) -> None:
    assert clean_text(typed, "content") == stored


@pytest.mark.parametrize("typed", ["\x1b\x07", "\x1b\x07 \r\x9b", "a\x00\x1b"])
def test_text_of_controls_only_or_with_nul_is_refused(typed: str) -> None:
    with pytest.raises(InvalidInput):
        clean_text(typed, "content")


WRITES: dict[str, Callable[[Engine], Any]] = {
    "memory": lambda e: e.identity.add_memory(OSC, "fact").content,
    "project memory": lambda e: e.identity.add_memory(OSC, "fact", "web").content,
    "correction": lambda e: e.identity.supersede(
        e.identity.add_memory("old", "fact").id, OSC).content,
    "note": lambda e: e.identity.add_note(OSC).content,
    "task goal": lambda e: e.tasks.add_task("web", OSC, "p", "r", "2026-11-01T10:00:00Z",
                                            "2026-11-01T10:10:00Z").goal,
    "display name": lambda e: e.identity.update_profile(display_name=OSC).display_name,
    "preference": lambda e: e.identity.update_profile(
        preferences={"motto": OSC}).preferences["motto"],
    "preference key": lambda e: next(iter(e.identity.update_profile(
        preferences={OSC: "x"}).preferences)),
    "bundle document": lambda e: (e.recall.put_document("project:web", "INDEX.md", OSC, 0),
                                  e.recall.get_document("project:web", "INDEX.md"))[1].content,
}


@pytest.mark.parametrize("path", sorted(WRITES))
def test_every_engine_write_stores_the_text_without_controls(engine_for: Callable[[str], Engine],
                                                             path: str) -> None:
    alice = engine_for("alice")
    alice.identity.create_project("web")
    assert WRITES[path](alice) == CLEANED


def test_backup_import_strips_them(engine_for: Callable[[str], Engine]) -> None:
    header = {"format": "memtui-export", "version": 1, "schema_version": 2}
    at = "2026-01-01T00:00:00.000Z"
    row = {"seq": 1, "id": "mem_1", "scope": "user", "owner": "alice", "project": None,
           "kind": "fact", "content": OSC, "status": "active", "superseded_by": None,
           "source": "import", "source_thread_id": None, "goal_key": None, "created_at": at,
           "updated_at": at, "usage_count": 0, "last_used_at": None}
    alice = engine_for("alice")
    alice.maintenance.import_lines([json.dumps(header), json.dumps({"table": "users", "row": {
        "id": "alice", "display_name": "A", "created_at": at}}),
        json.dumps({"table": "memories", "row": row})])
    assert alice.identity.get_memory("mem_1").content == CLEANED


def test_cli_add_and_context_and_doctor_on_an_older_store(cli: Any, db_path: Path) -> None:
    added = cli("--user", "ann", "--json", "memory", "add", OSC, "--kind", "fact")
    assert added.code == 0 and added.json["content"] == CLEANED
    context = cli("--user", "ann", "--json", "context").out
    assert not any(char in json.loads(context)["text"] for char in CONTROLS)
    plant_legacy_text(db_path, CLEANED, OSC)  # as an older memtui stored it
    found = cli("--user", "ann", "--json", "doctor")
    assert found.code != 0 and "control characters" in found.out
    assert cli("--user", "ann", "doctor", "--repair").code == 0
    assert cli("--user", "ann", "--json", "memory", "show", added.json["id"]).json[
        "content"] == CLEANED
