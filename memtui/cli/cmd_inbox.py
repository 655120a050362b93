"""``memtui inbox list | approve | reject | redo``: the review inbox from the shell, the
pending memories and Claude Code's writes held by its write gate (``write_…`` ids). Each id
is decided on its own: a failure is reported on stderr, the others go on, and the exit code
is that of the first failure."""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from rich import box
from rich.table import Table
from rich.text import Text

from memtui.cli import render
from memtui.cli.common import Arg, Command, Group, arg
from memtui.cli.context import CliContext
from memtui.engine.agents.plans import diff_body
from memtui.engine.agents.write_gate import AGENT as GATE_SOURCE
from memtui.engine.agents.write_gate import ID_PREFIX as WRITE_PREFIX
from memtui.engine.agents.write_gate import HeldWrite
from memtui.engine.review import ADDED, REMOVED, ApproveResult, BulkResult, InboxItem, memory_where
from memtui.errors import InvalidInput, MemtuiError
from memtui.textsafe import one_line, safe_text

DEFAULT_EDITOR = "vi"
EDIT_SUFFIX = ".memtui-memory.txt"
TEXT_MIN_CHARS = 16
"""Narrowest text cell of the list's one-line summaries (cut with an ellipsis)."""
DIFF_MARKS = {REMOVED: ("[-", "-]", "red strike"), ADDED: ("{+", "+}", "green underline")}
"""How a word diff marks removed and added text: before, after, style."""
EMPTY_INBOX = ("The inbox is empty. With review on (memtui settings set "
               "review_new_memories=on), memories from agents wait here for you.")


def diff_text(item: InboxItem, flat: bool = False) -> Text:
    """A pending correction's word diff: removed text struck through in red, added text
    underlined in green (``[-old-]{+new+}`` marks where there is no color); ``flat``: on one
    line."""
    out = Text()
    for part in item.diff:
        start, end, style = DIFF_MARKS.get(part.op, ("", "", ""))
        out.append(start + (one_line(part.text) if flat else safe_text(part.text)) + end, style)
    return out


def _is_write(item_id: str) -> bool:
    return item_id.startswith(WRITE_PREFIX + "_")


def _writes(ctx: CliContext, source: str | None) -> list[HeldWrite]:
    return ctx.engine.gate.items() if source in (None, GATE_SOURCE) else []


def _problem(held: HeldWrite) -> str | None:
    return held.problem or ("the file changed since the proposal" if held.stale else None)


def write_text(held: HeldWrite) -> Text:
    """A held write: its file, the diff, what approving does to the index."""
    row = held.row
    out = Text(f"writes {row.path} (from {row.tool}, session {row.session_id or '?'}):\n",
               style="bold")
    for line in row.diff.splitlines():
        style = "dim" if line.startswith(("---", "+++", "@@")) else "green" if \
            line.startswith("+") else "red" if line.startswith("-") else ""
        out.append(safe_text(line) + "\n", style=style)
    if held.index is not None:
        out.append(held.index.words(), style="dim")
    if _problem(held):
        out.append(f"\n{_problem(held)}: memtui inbox redo {row.id}", style="bold yellow")
    return out


def _write_line(held: HeldWrite) -> Text:
    """A held write on one line: its project folder's name, the tool, the file in its memory
    folder, lines added and removed, and why approving is refused if it is."""
    row = held.row
    lines = diff_body(row.diff)
    added, removed = (sum(line.startswith(sign) for line in lines) for sign in "+-")
    name = os.path.relpath(row.path, row.memory_dir) if row.memory_dir else row.path
    project = os.path.basename(row.project_dir or "") or "?"
    out = Text(one_line(f"{project}: {row.tool} {name} (+{added} -{removed} lines)"))
    if _problem(held):
        out.append(f" {_problem(held)}: memtui inbox redo", style="bold yellow")
    return out


def _memory_text(item: InboxItem) -> Text:
    """A pending memory's whole text, a correction's word diff."""
    memory = item.memory
    if item.target is not None:
        body = Text(f"corrects {item.target.id}:\n", style="bold")
        body.append_text(diff_text(item))
    elif item.target_state == "forgotten":
        body = Text(f"corrects {item.replaces}, which was forgotten:\n", style="bold")
        body.append(safe_text(memory.content))
    else:
        body = render.text(memory.content)
    if not item.can_act:
        body.append("\n(you may read this project but not approve or reject)", style="dim")
    return body


def _memory_line(item: InboxItem) -> Text:
    """A pending memory on one line: its project (or ``user``), then its text or, for a
    correction, the word diff."""
    memory = item.memory
    out = Text(f"{memory.project if memory.scope == 'project' else 'user'}: ")
    if item.target is not None:
        return out + diff_text(item, flat=True)
    return out + Text(one_line(memory.content))


def inbox_list(ctx: CliContext, args: argparse.Namespace) -> int:
    """``inbox list [--source SRC]``: pending memories, then held writes, oldest first, one
    line each (``inbox show`` prints the whole text or diff)."""
    items = [] if args.source == GATE_SOURCE else ctx.engine.review.items(args.source)
    writes = _writes(ctx, args.source)
    if ctx.json:
        rows = [item.to_json() for item in items] + [held.to_json() for held in writes]
        return ctx.answer({"items": rows, "count": len(rows)})
    if not items and not writes:
        ctx.say(EMPTY_INBOX)
        return 0
    lines = [(item.memory.id, item.memory.source, item.memory.created_at, _memory_line(item))
             for item in items] + [(held.id, held.row.agent, held.row.created_at,
                                    _write_line(held)) for held in writes]
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False)
    render.add_id_column(table, "id", (line[0] for line in lines))
    table.add_column("source", no_wrap=True)
    table.add_column("created (UTC)", no_wrap=True)
    table.add_column("text", min_width=TEXT_MIN_CHARS)
    for item_id, source, created, line in lines:
        line.no_wrap = True
        line.overflow = "ellipsis"
        table.add_row(item_id, source, render.short_time(created)[5:], line)
    ctx.console.print(table)
    ctx.say(f"{len(items) + len(writes)} waiting for review "
            "(memtui inbox show ID: the whole text or diff)")
    return 0


def _ids(ctx: CliContext, args: argparse.Namespace) -> list[str]:
    if args.all and args.ids:
        raise InvalidInput("give memory ids or --all, not both")
    if args.all:
        memories = [] if args.source == GATE_SOURCE else \
            ctx.engine.review.actionable_ids(args.source)
        return memories + [held.id for held in _writes(ctx, args.source)]
    if args.source is not None:
        raise InvalidInput("--source picks memories only with --all")
    if not args.ids:
        raise InvalidInput("give the ids of the memories to decide on, or --all")
    return list(args.ids)


def edit_text(initial: str) -> str:
    """Open ``$VISUAL`` / ``$EDITOR`` (else vi) on ``initial``; the saved text, stripped."""
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or DEFAULT_EDITOR
    handle, name = tempfile.mkstemp(suffix=EDIT_SUFFIX)
    path = Path(name)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(initial + "\n")
        try:
            finished = subprocess.run([*shlex.split(editor), str(path)], check=False)
        except OSError as error:
            raise InvalidInput(f"cannot run the editor {editor!r} ({error.strerror}); set "
                               "$EDITOR, or give the text with --text") from None
        if finished.returncode != 0:
            raise InvalidInput(f"the editor {editor!r} exited with {finished.returncode}; "
                               "nothing approved")
        return path.read_text(encoding="utf-8").strip()
    finally:
        path.unlink(missing_ok=True)


def _approve_one(ctx: CliContext, args: argparse.Namespace,
                 memory_id: str) -> ApproveResult | HeldWrite:
    if _is_write(memory_id):
        if args.kind is not None:
            raise InvalidInput(f"{memory_id} is a memory file; --kind is for memories")
        gate = ctx.engine.gate
        if args.edit:
            held = gate.item(memory_id)
            return gate.approve(memory_id, content=edit_text(held.row.content),
                                expected=held.version)
        return gate.approve(memory_id, content=args.text)
    review = ctx.engine.review
    if args.edit:
        item = review.item(memory_id)
        text = edit_text(item.memory.content)
        if not text:
            raise InvalidInput(f"the text of {memory_id} was left empty: nothing approved")
        return review.approve(memory_id, content=text, kind=args.kind, expected=item.version)
    return review.approve(memory_id, content=args.text, kind=args.kind)


def _each(ids: Iterable[str], act: Callable[[str], Any],
          result: BulkResult | None = None) -> BulkResult:
    """``act`` on each id once, into ``result``: a refusal is kept and the others go on."""
    result = result or BulkResult()
    for item_id in dict.fromkeys(ids):
        try:
            result.done.append(act(item_id))
        except MemtuiError as error:
            result.errors.append((item_id, error))
    return result


def _refused(ctx: CliContext, result: BulkResult) -> int:
    """Each refusal of ``result`` on stderr; the exit code of the first (0: none)."""
    for item_id, error in result.errors:
        message = error.message.replace("\n", " ")
        ctx.stderr.write(f"memtui: error: {item_id}: {message}\n")
    return result.errors[0][1].exit_code if result.errors else 0


def _report(ctx: CliContext, result: BulkResult, verb: str) -> int:
    code = _refused(ctx, result)
    if ctx.json:
        ctx.emit_json(result.to_json())
    else:
        for done in result.done:
            if isinstance(done, HeldWrite):
                ctx.say(f"approved {done.id}: wrote {done.row.path}")
            elif isinstance(done, ApproveResult):
                extra = f" (supersedes {done.superseded})" if done.superseded else ""
                edited = " as edited" if done.edited else ""
                ctx.say(f"approved {done.memory.id}{edited}{extra}")
            else:
                ctx.say(f"rejected {done.memory_id} (deleted for good)")
        if not result.done and not result.errors:
            ctx.say(f"Nothing to {verb}: the inbox is empty.")
    return code


def inbox_approve(ctx: CliContext, args: argparse.Namespace) -> int:
    """``inbox approve ID…|--all [--source SRC] [--edit|--text T] [--kind K]``."""
    ids = _ids(ctx, args)
    if args.text is not None and (len(ids) != 1 or args.edit):
        raise InvalidInput("--text approves one memory with that text (not with --edit)")
    return _report(ctx, _each(ids, lambda item: _approve_one(ctx, args, item)), "approve")


def inbox_reject(ctx: CliContext, args: argparse.Namespace) -> int:
    """``inbox reject ID…|--all [--source SRC]``: deleted for good, like forget (a held
    write: the same write is refused from now on)."""
    ids = list(dict.fromkeys(_ids(ctx, args)))
    result = ctx.engine.review.reject_many([item for item in ids if not _is_write(item)])
    return _report(ctx, _each(filter(_is_write, ids), ctx.engine.gate.reject, result), "reject")


def _shown(item: Any) -> Text:
    if isinstance(item, HeldWrite):
        return Text(f"{item.id}: ", style="bold") + write_text(item)
    memory = item.memory
    head = Text(f"{memory.id} ({memory.source}, {memory_where(memory)}, created "
                f"{render.short_time(memory.created_at)} UTC): ", style="bold")
    return head + _memory_text(item)


def _items(ctx: CliContext, result: BulkResult) -> int:
    """Print what ``_each`` found (JSON: ``{items, count}``), each refusal on stderr."""
    code = _refused(ctx, result)
    ctx.answer({"items": [item.to_json() for item in result.done], "count": len(result.done)},
               *map(_shown, result.done))
    return code


def inbox_show(ctx: CliContext, args: argparse.Namespace) -> int:
    """``inbox show ID…``: pending memories' whole text (a correction's word diff) and held
    writes' diffs."""
    return _items(ctx, _each(args.ids, lambda item_id: ctx.engine.gate.item(item_id)
                             if _is_write(item_id) else ctx.engine.review.item(item_id)))


def inbox_redo(ctx: CliContext, args: argparse.Namespace) -> int:
    """``inbox redo ID…``: held writes' diffs made again against their files as they are."""
    return _items(ctx, _each(args.ids, ctx.engine.gate.redo))


SOURCES_HELP = "auto, import, service, mcp or claude-code (the write gate's held files)"


def _chosen(verb: str) -> tuple[Arg, ...]:
    """The pending memories an approve or reject acts on: ids, or ``--all`` (of a source)."""
    return (arg("ids", nargs="*", metavar="ID", help=f"the pending memories to {verb}"),
            arg("--all", action="store_true", help=f"every memory you may {verb}"),
            arg("--source", help=f"with --all: only this source ({SOURCES_HELP})"))


COMMANDS = (
    Command("list", "memories waiting for review, oldest first", inbox_list,
            (arg("--source", help=SOURCES_HELP),)),
    Command("show", "the whole text of pending memories (a correction's word diff) and the "
            "diffs of held writes", inbox_show,
            (arg("ids", nargs="+", metavar="ID", help="pending memories or held writes"),)),
    Command("approve", "make pending memories active (a correction supersedes what it "
            "corrects)", inbox_approve,
            (*_chosen("approve"),
             arg("--edit", action="store_true", help="edit each text in $EDITOR first"),
             arg("--text", help="approve one memory with this text instead"),
             arg("--kind", help="fact, preference, decision or convention"))),
    Command("reject", "delete pending memories for good (their task is never extracted "
            "again)", inbox_reject, _chosen("reject")),
    Command("redo", "make held writes' diffs again against their files as they are now",
            inbox_redo, (arg("ids", nargs="+", metavar="ID", help="the held writes"),)),
)


TOP_LEVEL = (Group("inbox", "the review inbox: approve or reject what agents wrote", COMMANDS),)
