"""The Agents pane's entries (issue 18): enter lists a row's entries — the index, each topic
file with its index line, links, unlisted files, logs; Gemini CLI's added memories — each
row saying what it is; ``d`` forgets, ``e`` edits, ``P`` promotes the selected entry. Every
write shows its plan in a confirm first, goes through the engine's plans and safe-write
helper, and a refused write changes nothing and says why in one line."""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pilot_harness
import pytest
from agents_fixture import GITHUB_TOKEN
from pilot_harness import agents_app, app_test, opened, press, screen_text, settle, status_text
from textual.pilot import Pilot
from textual.widgets import Static, TextArea

from memtui.app.modals.confirm import ConfirmModal
from memtui.app.modals.editor import MemoryEditor
from memtui.app.modals.text import TextModal
from memtui.app.palette import memtui_commands
from memtui.app.panes.agents import AgentsPane
from memtui.app.widgets.key_bar import KeyBar

KINDS = ("index", "topic", "link", "file", "log", "fact")


def _memory(homes: Path, project: str) -> Path:
    return next((homes / ".claude" / "projects").glob(f"*-src-{project}")) / "memory"


def _bytes(*folders: Path) -> dict[str, bytes]:
    """Every regular file under ``folders`` (or the file itself), by path."""
    found: dict[str, bytes] = {}
    for folder in folders:
        paths = [folder] if folder.is_file() else sorted(folder.rglob("*"))
        for path in paths:
            if path.is_file() and not path.is_symlink():
                found[str(path)] = path.read_bytes()
    return found


def _pane(app: Any) -> AgentsPane:
    pane = app.get_screen_main().query_one(AgentsPane)
    assert isinstance(pane, AgentsPane)
    return pane


def _context(app: Any) -> str:
    """The open editor's context line."""
    return str(app.screen.query_one(".dialog-context", Static).render())


def _offered(app: Any) -> set[str]:
    return {item.description for item in app.get_screen_main().query_one(KeyBar).items()}


@contextlib.asynccontextmanager
async def _listed(homes: Path, agent: str, label_end: str, entry: str | None = None
                  ) -> AsyncIterator[tuple[Any, Pilot[Any], AgentsPane]]:
    """The app on the fixture ``homes`` at 80x24, the entries of a row listed
    (``_open_row``), the cursor on ``entry`` if named (``_select``)."""
    async with opened(agents_app(homes)) as (app, pilot):
        pane = await _open_row(pilot, agent, label_end)
        if entry is not None:
            await _select(pilot, pane, entry)
        yield app, pilot, pane


async def _open_row(pilot: Pilot[Any], agent: str, label_end: str) -> AgentsPane:
    """Show the Agents pane, select the row and list its entries (enter)."""
    await settle(pilot)
    pilot.app.show_pane(AgentsPane.PANE_ID)
    await settle(pilot)
    pane = _pane(pilot.app)
    rows = pane.item_list.items
    pane.item_list.move_cursor(next(i for i, row in enumerate(rows)
                                    if row.agent == agent and row.label.endswith(label_end)))
    await press(pilot, "enter")
    assert pane.opened is not None and pane.entries is not None
    return pane


async def _select(pilot: Pilot[Any], pane: AgentsPane, name: str) -> None:
    items = pane.entry_list.items
    pane.entry_list.move_cursor(next(i for i, entry in enumerate(items)
                                     if entry.name == name or entry.fact == name))
    await settle(pilot)


async def _edit(pilot: Pilot[Any], text: str) -> MemoryEditor:
    editor = pilot_harness.top_screen(pilot.app, MemoryEditor)
    editor.query_one("#content", TextArea).text = text
    await press(pilot, "ctrl+s")
    return editor


@app_test
async def test_entries_are_listed_each_saying_what_it_is(homes: Path) -> None:
    async with opened(agents_app(homes)) as (app, pilot):
        app.show_pane(AgentsPane.PANE_ID)
        await settle(pilot)
        assert not {"edit", "forget", "promote", "back"} & _offered(app)
        pane = await _open_row(pilot, "claude", "/src/app")
        kinds = [entry.kind for entry in pane.entry_list.items]
        assert kinds[0] == "index" and {"topic", "link", "log"} <= set(kinds)
        text = screen_text(app)
        assert "Agents › claude ~/src/app" in text and "esc back" in text
        listed = [line for line in text.splitlines()[3:3 + len(kinds)]]
        assert all(line[2:].split()[0] in KINDS for line in listed), listed
        assert "[missing] Old notes" in text and "[not in index] Orphan" in text
        assert {"edit", "back"} <= _offered(app)  # on the index: no forget/promote
        assert not {"forget", "promote"} & _offered(app)
        await press(pilot, "j")  # build.md, a topic in the index
        assert pane.entry_list.current().name == "build.md"
        assert {"edit", "forget", "promote"} <= _offered(app)
        preview = str(app.screen.query_one("#agents-preview").render())
        assert "Topic file build.md" in preview and "Index line 1, loaded" in preview
        assert "Use `make build`." in preview
        await press(pilot, "enter")  # the whole text
        assert isinstance(app.screen, TextModal)
        await press(pilot, "escape")
        await press(pilot, "escape")  # back to the rows, on the same row
        assert pane.opened is None and pane.item_list.current().label.endswith("/src/app")
        assert not {"edit", "forget"} & _offered(app)


@app_test
async def test_secrets_never_show_in_entries_or_the_editor(homes: Path) -> None:
    async with _listed(homes, "claude", "/src/secret", "deploy.md") as (app, pilot, pane):
        text = screen_text(app)
        assert "[1 secret]" in text and GITHUB_TOKEN not in text
        assert "«github-pat»" in str(app.screen.query_one("#agents-preview").render())
        await press(pilot, "e")
        assert isinstance(app.screen, MemoryEditor)
        area = app.screen.query_one("#content", TextArea)
        assert GITHUB_TOKEN not in area.text and "[REDACTED]" in area.text
        assert "secrets (github-pat) shown as [REDACTED]" in _context(app)
        await press(pilot, "ctrl+s")  # unchanged text: the secret goes, shown first
        text = screen_text(app)
        assert "Write the edit?" in text and GITHUB_TOKEN not in text
        assert "Secrets in the old text (github-pat) are written as [REDACTED]" in text
        assert "-export GITHUB_TOKEN=«github-pat»" in text
        await press(pilot, "y")
        deploy = _memory(homes, "secret") / "deploy.md"
        assert GITHUB_TOKEN not in deploy.read_text(encoding="utf-8")
        assert deploy.read_text(encoding="utf-8").startswith("---\nname: Deploy\n")


@app_test
async def test_forget_asks_first_and_cancel_changes_no_byte(homes: Path) -> None:
    memory = _memory(homes, "app")
    before = _bytes(memory)
    async with _listed(homes, "claude", "/src/app") as (app, pilot, pane):
        topics = pane.opened.files if pane.opened else 0
        await _select(pilot, pane, "build.md")
        text = await pilot_harness.asks(pilot, "d")
        assert "Forget this memory?" in text
        assert "memtui will remove build.md and its index line." in text
        assert "-- [Build commands](build.md)" in text and "remove build.md (" in text
        await press(pilot, "n")
        assert _bytes(memory) == before
        await press(pilot, "d", "y")
        assert not (memory / "build.md").exists()
        index = (memory / "MEMORY.md").read_text(encoding="utf-8")
        assert "build.md" not in index and "feedback_testing.md" in index
        assert "Done: remove build.md" in status_text(app)
        # reloaded; the cursor stays where the forgotten entry was (the next one)
        assert "build.md" not in [entry.name for entry in pane.entry_list.items]
        assert pane.entry_list.current().name == "feedback_testing.md"
        assert pane.opened is not None and pane.opened.files == topics - 1


@app_test
async def test_forget_and_edit_an_added_gemini_memory(homes: Path) -> None:
    global_file = homes / ".gemini" / "GEMINI.md"
    before = global_file.read_bytes()
    async with _listed(homes, "gemini", "global") as (app, pilot, pane):
        assert [entry.kind for entry in pane.entry_list.items] == ["fact", "fact"]
        assert "fact   The user prefers tabs in Go files." in screen_text(app)
        assert "fact   Be concise" in screen_text(app)
        await press(pilot, "P")  # already global
        assert not isinstance(app.screen, ConfirmModal)
        assert "already in the global tier" in status_text(app)
        await press(pilot, "e")
        await _edit(pilot, "The user prefers tabs in Go and Makefiles.\nsecond line")
        text = screen_text(app)
        assert "+- The user prefers tabs in Go and Makefiles. second line" in text
        await press(pilot, "n")  # back in the editor, text kept, nothing written
        assert isinstance(app.screen, MemoryEditor)
        assert "Not written" in screen_text(app)
        assert global_file.read_bytes() == before
        await press(pilot, "ctrl+s", "y")
        assert not isinstance(app.screen, MemoryEditor | ConfirmModal)
        text = global_file.read_text(encoding="utf-8")
        assert "- The user prefers tabs in Go and Makefiles. second line\n" in text
        assert "tabs in Go files" not in text and text.startswith("# Global context")
        assert "## Other\n- Be concise" in text
        assert pane.entry_list.current().fact == \
            "The user prefers tabs in Go and Makefiles. second line"
        await press(pilot, "d", "y")
        text = global_file.read_text(encoding="utf-8")
        assert "Makefiles" not in text and "## Other\n- Be concise" in text
        assert [entry.fact for entry in pane.entry_list.items] == ["Be concise"]


@app_test
async def test_edit_shows_the_diff_then_writes_keeping_front_matter_and_mode(homes: Path) -> None:
    build = _memory(homes, "app") / "build.md"
    build.chmod(0o640)
    before = build.read_bytes()
    async with _listed(homes, "claude", "/src/app", "build.md") as (app, pilot, pane):
        await press(pilot, "e")
        editor = pilot_harness.top_screen(app, MemoryEditor)
        assert editor.query_one("#content", TextArea).text.startswith("Use `make build`.")
        assert "front matter kept" in _context(app)
        await _edit(pilot, "   ")  # empty: refused in the editor
        assert app.screen is editor and "Write something first" in screen_text(app)
        await _edit(pilot, "Use `make build` (it pins the flags).")  # the diff first
        text = screen_text(app)
        assert "Write the edit?" in text and "its front matter kept" in text
        assert "+Use `make build` (it pins the flags)." in text
        assert build.read_bytes() == before
        await press(pilot, "escape")  # the confirm's no: back in the editor
        assert app.screen is editor and build.read_bytes() == before
        await press(pilot, "escape")  # cancel the editor: nothing written
        assert not isinstance(app.screen, MemoryEditor) and build.read_bytes() == before
        await press(pilot, "e")
        await _edit(pilot, f"Deploy token {GITHUB_TOKEN} here.")
        text = screen_text(app)
        assert "note: the new text was redacted" in text and GITHUB_TOKEN not in text
        await press(pilot, "y")
        written = build.read_text(encoding="utf-8")
        assert written.startswith("---\nname: Build commands\ndescription: how to build\n")
        assert "Deploy token [REDACTED] here." in written and GITHUB_TOKEN not in written
        assert stat.S_IMODE(build.stat().st_mode) == 0o640
        assert pane.entry_list.current().name == "build.md"  # selection kept
        assert "[REDACTED]" in str(app.screen.query_one("#agents-preview").render())


@app_test
async def test_promote_shows_source_and_destination_then_moves_it(homes: Path) -> None:
    memory = _memory(homes, "app")
    user = homes / ".claude" / "CLAUDE.md"
    before = _bytes(memory, user)
    async with _listed(homes, "claude", "/src/app", "build.md") as (app, pilot, pane):
        await press(pilot, "P")
        text = screen_text(app)
        assert "Promote to the user tier?" in text
        assert "from build.md (project ~/src/app, and its index line)" in text
        assert "to   ~/.claude/CLAUDE.md (user memory, every project)" in text
        assert "+## Promoted from project memory" in text
        await press(pilot, "n")
        assert _bytes(memory, user) == before
        await press(pilot, "P", "y")
        promoted = user.read_text(encoding="utf-8")
        assert promoted.startswith("# My instructions")
        assert "## Promoted from project memory\n- Use `make build`." in promoted
        assert not (memory / "build.md").exists()
        assert "build.md" not in (memory / "MEMORY.md").read_text(encoding="utf-8")
        assert "Done: move build.md" in status_text(app)


@app_test
async def test_promote_a_gemini_project_memory_to_the_global_file(homes: Path) -> None:
    memory = homes / ".gemini" / "tmp" / "app" / "memory"
    async with _listed(homes, "gemini", "/src/app", "conventions.md") as (app, pilot, pane):
        await press(pilot, "P")
        text = screen_text(app)
        assert "Promote to the global tier?" in text
        assert "to   ~/.gemini/GEMINI.md (global memory, every session)" in text
        await press(pilot, "y")
        assert "- Files are kebab-case." in \
            (homes / ".gemini" / "GEMINI.md").read_text(encoding="utf-8")
        assert not (memory / "conventions.md").exists()
        assert pane.entry_list.current() is not None


@app_test
async def test_a_file_changed_since_read_is_refused_with_a_reason(homes: Path) -> None:
    memory = _memory(homes, "app")
    index = memory / "MEMORY.md"
    build = memory / "build.md"
    async with _listed(homes, "claude", "/src/app", "build.md") as (app, pilot, pane):
        await pilot_harness.asks(pilot, "d")
        index.write_text(index.read_text(encoding="utf-8") + "- [New](new.md) — agent\n",
                         encoding="utf-8")
        after_agent = _bytes(memory)
        await press(pilot, "y")
        assert _bytes(memory) == after_agent
        status = status_text(app).strip()
        assert status.startswith("Nothing written: MEMORY.md: changed since it was read")
        assert "\n" not in status
        # an edit started before the agent changed the file is refused too
        await _select(pilot, pane, "build.md")
        await press(pilot, "e")
        editor = app.screen
        build.write_text(build.read_text(encoding="utf-8") + "\nAgent line.\n",
                         encoding="utf-8")
        after_agent = _bytes(memory)
        await _edit(pilot, "My text.")
        assert app.screen is editor and not isinstance(app.screen, ConfirmModal)
        assert "changed since it was read" in screen_text(app)
        assert _bytes(memory) == after_agent


@pytest.mark.parametrize("key", ["d", "e", "P"])
@app_test
async def test_a_symlink_leading_outside_is_refused(homes: Path, key: str) -> None:
    memory = _memory(homes, "app")
    outside = homes / "outside.md"
    outside.write_text("---\nname: Outside\n---\n\nnot the agent's\n", encoding="utf-8")
    async with _listed(homes, "claude", "/src/app", "build.md") as (app, pilot, pane):
        (memory / "build.md").unlink()  # swapped for a link out after it was listed
        os.symlink(outside, memory / "build.md")
        before = _bytes(memory, outside, homes / ".claude" / "CLAUDE.md")
        await press(pilot, key)
        assert not isinstance(app.screen, ConfirmModal | MemoryEditor)
        status = status_text(app)
        assert "symlink" in status and ("Nothing written" in status or
                                        "Cannot edit" in status)
        assert _bytes(memory, outside, homes / ".claude" / "CLAUDE.md") == before
        assert os.path.islink(memory / "build.md")


@app_test
async def test_the_reader_follows_a_link_inside_but_never_writes_through_it(homes: Path) -> None:
    memory = _memory(homes, "app")
    os.symlink(memory / "build.md", memory / "alias.md")  # inside the home: listed
    before = _bytes(memory)
    async with _listed(homes, "claude", "/src/app", "alias.md") as (app, pilot, pane):
        assert "Use `make build`." in str(app.screen.query_one("#agents-preview").render())
        for key in ("e", "d", "P"):
            await press(pilot, key)
            assert not isinstance(app.screen, ConfirmModal | MemoryEditor), key
            assert "does not write through one" in status_text(app), key
        assert _bytes(memory) == before and os.path.islink(memory / "alias.md")


@app_test
async def test_entry_keys_on_a_row_or_an_unsuitable_entry_say_why(homes: Path) -> None:
    memory = _memory(homes, "app")
    before = _bytes(memory)
    async with opened(agents_app(homes)) as (app, pilot):
        app.show_pane(AgentsPane.PANE_ID)
        await settle(pilot)
        pane = _pane(app)
        rows = pane.item_list.items
        pane.item_list.move_cursor(next(i for i, row in enumerate(rows)
                                        if row.label.endswith("/src/app")
                                        and row.agent == "claude"))
        await press(pilot, "d")  # on a row: its entries are listed, and the hint said
        assert pane.opened is not None and not isinstance(app.screen, ConfirmModal)
        assert "choose one, then press d to forget it" in status_text(app)
        await press(pilot, "d")  # the index
        assert "the index itself is not forgotten" in status_text(app)
        await press(pilot, "P")
        assert "the index itself is not promoted" in status_text(app)
        await _select(pilot, pane, "gone.md")
        for key in ("d", "e", "P"):
            await press(pilot, key)
            assert "x repairs the index" in status_text(app), key
        assert not isinstance(app.screen, ConfirmModal | MemoryEditor)
        assert _bytes(memory) == before


@app_test
async def test_entries_stay_open_across_a_re_read_and_the_inbox_is_recounted(homes: Path) -> None:
    """Another pane's write to the agent files (a Gemini patch applied from the Inbox) makes
    the Agents pane read again when shown: the listed entries stay listed, read again, the
    cursor on the same entry; an entry write recounts the inbox (header and pane bar)."""
    memory = _memory(homes, "app")
    inbox = homes / ".gemini" / "tmp" / "app" / "memory" / ".inbox" / "private"
    async with _listed(homes, "claude", "/src/app", "build.md") as (app, pilot, pane):
        counted = pilot_harness.inbox_count(app)
        (memory / "later.md").write_text("---\nname: Later\n---\n\nAdded by the agent.\n",
                                         encoding="utf-8")
        shutil.copy(inbox / "0001-ci.patch", inbox / "0004-more.patch")
        app.show_pane("inbox")
        await settle(pilot)
        app.store_changed(wrote=True)  # what a write to the agent files does
        await settle(pilot)
        assert pilot_harness.inbox_count(app) == counted + 1
        assert f"Inbox ({counted + 1})" in screen_text(app)
        app.show_pane(AgentsPane.PANE_ID)
        await settle(pilot)
        assert pane.opened is not None and pane.entries is not None
        assert pane.entry_list.display and not pane.item_list.display
        assert "later.md" in [entry.name for entry in pane.entry_list.items]
        assert pane.entry_list.current().name == "build.md"
        assert "Agents › claude ~/src/app" in screen_text(app)
        await press(pilot, "o")  # read again on screen: still listed, same entry
        assert pane.opened is not None and pane.entry_list.current().name == "build.md"
        shutil.copy(inbox / "0001-ci.patch", inbox / "0005-more.patch")
        await press(pilot, "d", "y")  # an entry write recounts the inbox
        assert not (memory / "build.md").exists()
        assert pilot_harness.inbox_count(app) == counted + 2
        assert f"inbox {counted + 2}" in screen_text(app)
        assert pane.opened is not None and pane.entries is not None
        assert "build.md" not in [entry.name for entry in pane.entry_list.items]


@app_test
async def test_the_palette_entry_actions_reach_the_pane(homes: Path) -> None:
    async with opened(agents_app(homes)) as (app, pilot):
        names = {command.name: command.binding_id for command in memtui_commands(app)}
        assert names["agents: forget entry"] == "agents.forget"
        assert names["agents: edit entry"] == "agents.edit"
        assert names["agents: promote entry"] == "agents.promote"
        await pilot_harness.run_palette(pilot, "agents: forget entry")  # elsewhere: shown first
        await settle(pilot)
        assert app.current_pane().PANE_ID == AgentsPane.PANE_ID
        assert "enter lists a row's entries" in status_text(app)
        pane = await _open_row(pilot, "claude", "/src/app")
        await _select(pilot, pane, "build.md")
        await pilot_harness.run_palette(pilot, "agents: promote entry")
        assert isinstance(app.screen, ConfirmModal)
        assert "Promote to the user tier?" in screen_text(app)


# ---- snapshots ------------------------------------------------------------------------------


def _then(agent: str, label_end: str, name: str | None, *keys: str) -> Any:
    async def run_before(pilot: Pilot[Any]) -> None:
        pane = await _open_row(pilot, agent, label_end)
        if name is not None:
            await _select(pilot, pane, name)
        for key in keys:
            await press(pilot, key)
        await settle(pilot, animations=True)

    return run_before


@pytest.mark.parametrize("agent, label, entry, keys", [
    pytest.param("claude", "/src/app", "build.md", ("d",), id="forget"),
    pytest.param("claude", "/src/secret", "deploy.md", ("e", "ctrl+s"), id="edit"),
    pytest.param("claude", "/src/app", "feedback_testing.md", ("P",), id="promote"),
    pytest.param("gemini", "global", "The user prefers tabs in Go files.", ("d",),
                 id="forget-fact"),
])
def test_entry_confirm_snapshot(snap_compare: Any, homes: Path, agent: str, label: str,
                                entry: str, keys: tuple[str, ...]) -> None:
    assert snap_compare(agents_app(homes), terminal_size=pilot_harness.SMALL,
                        run_before=_then(agent, label, entry, *keys))


@pytest.mark.parametrize("size", [pilot_harness.SMALL, pilot_harness.WIDE], ids=["80x24", "160x48"])
def test_entries_pane_snapshot(snap_compare: Any, homes: Path, size: tuple[int, int]) -> None:
    assert snap_compare(agents_app(homes), terminal_size=size,
                        run_before=_then("claude", "/src/app", "build.md"))
