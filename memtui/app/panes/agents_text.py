"""The Agents pane's text: pure functions from the engine's read-only dataclasses to
``rich.text.Text`` (agents' text arrives with its secrets masked and is made safe here)."""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text

from memtui.textsafe import one_line, safe_text

if TYPE_CHECKING:
    from collections.abc import Sequence

    from memtui.engine.agents.curation import EditSource
    from memtui.engine.agents.entries import MemoryEntry
    from memtui.engine.agents.overview import AgentRow
    from memtui.engine.agents.plans import WritePlan
    from memtui.engine.codex.models import Problem

KIB = 1024
MAX_SLUG_CHARS = 28
"""A Claude Code project folder name (the path with dashes) is shown by its end."""
TEXT_CHARS = 120
ENTRY_KIND_COLUMN = 6
ENTRY_NAME_COLUMN = 22
WIDE_ENTRY_NAME_COLUMN = 34
"""Room for an entry's file name (shown by its end when longer)."""
WIDE_ROW = 110
"""From this row width an entry's name gets the wide column."""
MIN_PATH_CHARS = 12
CONFIRM_WIDTH = 70
"""The confirm dialog's widest (``.dialog-confirm``); its body is 4 columns narrower."""
CONFIRM_SHARE = 0.9
"""A dialog's share of the screen's width and height."""
CONFIRM_CHROME = 8
"""Rows of a confirm dialog around its body (border, title, buttons and their margins)."""
MIN_DIFF_LINES = 3
DIFF_CONTEXT = 1
"""Unchanged lines shown around each change in a confirm."""
ENTRY_WORDS = {"index": "The index", "topic": "Topic file", "link": "Index link",
               "file": "Memory file", "log": "Daily log", "fact": "Added memory"}
CONFIRM_TITLES = {"forget": ("Forget this memory?", "Forget"),
                  "edit": ("Write the edit?", "Write")}


def tilde(path: str | None) -> str:
    """A path (or a text naming paths) with home as ``~`` and Claude Code's long
    path-named folders shown by their end."""
    if not path:
        return ""
    home = str(Path.home()).rstrip("/")
    text = "~" if path == home else path.replace(home + "/", "~/") if home else path
    parts = text.split("/")
    for number, part in enumerate(parts[:-1]):
        if number and parts[number - 1] == "projects" and len(part) > MAX_SLUG_CHARS:
            parts[number] = "…" + part[-(MAX_SLUG_CHARS - 1):]
    return "/".join(parts)


def human_size(size: int) -> str:
    """``812 B`` / ``24.4 KB``."""
    return f"{size} B" if size < KIB else f"{size / KIB:.1f} KB"


def ending(text: str, room: int) -> str:
    """``text`` on one line, shown by its end when longer than ``room``."""
    text = one_line(text, 10 * room)
    return text if len(text) <= room else "…" + text[-(room - 1):]


def in_folder(path: str, folder: str | None) -> str:
    """``path`` relative to ``folder`` (a memory folder) when inside it, else ``tilde``."""
    base = (folder or "").rstrip("/")
    return path[len(base) + 1:] if base and path.startswith(base + "/") else tilde(path)


def short_reason(error: str, folder: str | None) -> str:
    """An engine's refusal in one line, files of ``folder`` by their names in it, other
    paths as ``tilde`` shows them."""
    base = (folder or "").rstrip("/")
    if base:
        error = error.replace(base + "/", "")
    return one_line(tilde(error), 200)


def problem_lines(text: Text, problems: Sequence[Problem], folder: str | None, most: int,
                  *, at_line: bool = True) -> None:
    """A yellow ``- file[:line]: reason`` line for each of the first ``most`` problems
    (files of ``folder`` by their names in it; ``at_line``: with the line, if known)."""
    for problem in problems[:most]:
        where = in_folder(problem.path, folder)
        if at_line and problem.line:
            where += f":{problem.line}"
        text.append(f"- {one_line(where, TEXT_CHARS)}: "
                    f"{one_line(tilde(problem.reason), 2 * TEXT_CHARS)}\n", style="yellow")


def entry_flags(entry: MemoryEntry) -> list[tuple[str, str]]:
    """(word, style) of what is notable about an entry (broken link, unindexed, secrets)."""
    flags: list[tuple[str, str]] = []
    if entry.kind == "link":
        flags.append(("outside" if entry.outside else "missing", "bold red"))
    elif entry.kind == "topic" and entry.loaded is None:
        flags.append(("not in index", "yellow"))
    if entry.kind in ("topic", "link") and entry.loaded is False:
        flags.append(("past limit", "yellow"))
    if entry.secrets:
        count = len(entry.secrets)
        flags.append((f"{count} secret{'s' if count > 1 else ''}", "bold red"))
    return flags


def entry_row(entry: MemoryEntry, width: int) -> Text:
    """One entry line: its kind first, its file name, flags, its title and hook."""
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(f"{entry.kind:<{ENTRY_KIND_COLUMN}} ", style="bold")
    if entry.kind != "fact":
        room = WIDE_ENTRY_NAME_COLUMN if width >= WIDE_ROW else ENTRY_NAME_COLUMN
        text.append(f"{ending(entry.name, room):<{room}} ")
    for flag, style in entry_flags(entry):
        text.append(f"[{flag}] ", style=style)
    text.append(one_line(entry.title, TEXT_CHARS))
    if entry.hook and entry.kind in ("topic", "link"):
        text.append(f" — {one_line(entry.hook, TEXT_CHARS)}", style="dim")
    return text


def entry_hint(row: AgentRow, entry: MemoryEntry) -> str:
    """The keys that work on this entry."""
    if entry.kind == "link":
        return "x repairs the index (drops this line) · esc back to the rows"
    if entry.kind == "index":
        return "e edits the index · x repairs it · esc back to the rows"
    if entry.kind == "fact":
        return "e edits · d forgets · already in the global tier · esc back"
    tier = "~/.claude/CLAUDE.md" if row.agent == "claude" else "the global GEMINI.md"
    return f"e edits · d forgets (with its index line) · P promotes to {tier} · esc back"


def describe_entry(text: Text, row: AgentRow, entry: MemoryEntry) -> None:
    """An entry's details: what and where it is, its index line, secrets (kinds only),
    its text (secrets masked) and the keys that work on it."""
    text.append(f"{ENTRY_WORDS.get(entry.kind, entry.kind)} ", style="bold")
    if entry.kind == "fact":
        text.append(f"(line {entry.line} of {one_line(tilde(entry.path), TEXT_CHARS)}, "
                    "loaded in every session)", style="bold")
    else:
        text.append(one_line(entry.name, TEXT_CHARS), style="bold")
        if entry.type:
            text.append(f" · type {one_line(entry.type, 20)}")
        if entry.kind != "link":
            text.append(f" · {human_size(entry.size)}", style="dim")
        text.append(f"\n{one_line(tilde(entry.path), 2 * TEXT_CHARS)}", style="dim")
        if entry.kind in ("topic", "link"):
            if entry.line is None:
                text.append("\nNot in the index: never loaded at session start (x adds it).",
                            style="yellow")
            else:
                state = "loaded at session start" if entry.loaded else \
                    "past the load limit: not loaded at session start"
                text.append(f"\nIndex line {entry.line}, {state}",
                            style="" if entry.loaded else "yellow")
    if entry.secrets:
        text.append(f"\nSecrets: {', '.join(entry.secrets)} — never shown; an edit writes "
                    "them as [REDACTED], s redacts the row's files", style="bold red")
    text.append("\n\n")
    text.append(safe_text(entry.shown) if entry.shown else "(empty)")
    text.append(f"\n\n{entry_hint(row, entry)}", style="dim")


def editor_context(row: AgentRow, entry: MemoryEntry, source: EditSource) -> str:
    """The line above an entry's editor: which file, what is kept, what happens to secrets."""
    where = f" · {tilde(row.label)}" if row.project else ""
    context = (f"{one_line(entry.name, 60)}{one_line(where, 60)}" if entry.kind != "fact"
               else f"line {entry.line} of {one_line(entry.name, 60)}")
    if source.kept:
        context += " · front matter kept"
    if source.secrets:
        context += f" · secrets ({', '.join(source.secrets)}) shown as [REDACTED]"
    return context + " · redacted on save; the diff shows before anything is written"


def plan_lines(plan: WritePlan, width: int, room: int, base: str | None = None) -> list[Text]:
    """A plan's changes for a dialog: a file removed is one line (name and size); a file
    changed or created is named, then its changed lines with one line of context (secrets
    masked); names relative to ``base``; each line cut to ``width``, at most ``room``."""
    from memtui.engine.agents.plans import ACTION_CREATE, ACTION_REMOVE, mask_secrets

    lines: list[Text] = []
    for change in plan.changes:
        name = one_line(in_folder(change.path, base), 4 * width)
        if change.action == ACTION_REMOVE:
            count = len(change.old_text.splitlines())
            lines.append(Text(f"remove {name} ({count} line{'' if count == 1 else 's'}, "
                              f"{human_size(len(change.old_text.encode('utf-8')))})",
                              style="bold red"))
            continue
        verb = "create" if change.action == ACTION_CREATE else "change"
        lines.append(Text(f"{verb} {name}", style="bold"))
        old = mask_secrets(change.old_text).splitlines()
        new = mask_secrets(change.new_text).splitlines()
        for raw in list(difflib.unified_diff(old, new, n=DIFF_CONTEXT, lineterm=""))[2:]:
            style = ("green" if raw.startswith("+") else "red" if raw.startswith("-")
                     else "dim" if raw.startswith("@@") else "")
            lines.append(Text(one_line(raw, 4 * width), style=style))
    for line in lines:
        line.truncate(width, overflow="ellipsis")
    if len(lines) > room:
        more = len(lines) - room + 1
        lines = lines[:room - 1] + [Text(f"… {more} more lines", style="dim")]
    return lines


def path_line(label: str, path: str, width: int, suffix: str) -> Text:
    """``label path suffix`` in ``width`` columns: the suffix gives way first, then the
    path is shown by its end."""
    line = Text(label, style="bold")
    shown = one_line(path, 4 * width)
    room = max(MIN_PATH_CHARS, min(len(shown), width - len(label)
                                   - min(len(suffix), MIN_PATH_CHARS)))
    suffix = one_line(suffix, max(0, width - len(label) - room))
    if len(shown) > room:
        shown = "…" + shown[-(room - 1):]
    line.append(shown)
    line.append(suffix, style="dim")
    return line


def confirm_title(action: str, agent: str) -> tuple[str, str]:
    """The confirm's title and its confirm button's label."""
    if action == "promote":
        tier = "user" if agent == "claude" else "global"
        return f"Promote to the {tier} tier?", "Promote"
    return CONFIRM_TITLES.get(action, ("Change the agent's files?", "Write"))


def confirm_body(action: str, row: AgentRow, plan: WritePlan, entry: MemoryEntry,
                 source: EditSource | None, screen: tuple[int, int]) -> Text:
    """The confirm of an entry action on a ``screen`` (width, height): what happens, the
    changes (as many lines as fit), the plan's notes and what happens to secrets."""
    screen_width, screen_height = screen
    width = max(20, min(CONFIRM_WIDTH, int(screen_width * CONFIRM_SHARE)) - 4)
    head: list[Text] = []
    name = one_line(entry.name, 60)
    if action == "forget":
        head.append(Text(f"memtui will remove this added memory from {name}."
                         if entry.kind == "fact" else f"memtui will remove {name}"
                         + (" and its index line." if len(plan.changes) > 1 else "."),
                         style="bold"))
    elif action == "edit":
        what = "this added memory" if entry.kind == "fact" else name
        kept = " (its front matter kept)" if source is not None and source.kept else ""
        head.append(Text(f"memtui will rewrite {what}{kept}.", style="bold"))
    else:
        target = plan.changes[0]
        where = f" {tilde(row.label)}" if row.project else ""
        head.append(path_line("from ", name, width, f" (project{where}, and its index line)"))
        tier = "user memory, every project" if row.agent == "claude" else \
            "global memory, every session"
        new = "new; " if target.action == "create" else ""
        head.append(path_line("to   ", tilde(target.path), width, f" ({new}{tier})"))
    if source is not None and source.secrets:
        head.append(Text(f"Secrets in the old text ({', '.join(source.secrets)}) are written "
                         "as [REDACTED].", style="yellow"))
    tail = [Text(f"note: {one_line(note, 200)}", style="yellow") for note in plan.notes]
    tail.append(Text("Refused if the agent changes a file meanwhile.", style="dim"))
    for line in head + tail:
        line.truncate(width, overflow="ellipsis")
    room = int(screen_height * CONFIRM_SHARE) - CONFIRM_CHROME - len(head) - len(tail)
    changes = plan_lines(plan, width, max(MIN_DIFF_LINES, room), row.memory_dir)
    return Text("\n").join(head + changes + tail)
