"""``memtui inbox list | approve | reject``: the review inbox from the shell.

    memtui inbox list [--source SRC]
    memtui inbox approve ID…|--all [--source SRC] [--edit | --text TEXT] [--kind KIND]
    memtui inbox reject ID…|--all [--source SRC]

Each id is decided in its own transaction: one that fails (already reviewed, changed, not
allowed) is reported on stderr and the others go on; the exit code is then that of the first
failure. ``--edit`` opens ``$VISUAL``/``$EDITOR`` on each memory's text before approving it
(the edited text is validated and redacted like any write).
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import tempfile
from pathlib import Path

from rich.table import Table
from rich.text import Text

from memtui.cli import render
from memtui.cli.common import Arg, Command, add_group, arg
from memtui.cli.context import CliContext
from memtui.engine.review import ADDED, REMOVED, ApproveResult, BulkResult, InboxItem
from memtui.errors import InvalidInput, MemtuiError
from memtui.textsafe import safe_text

DEFAULT_EDITOR = "vi"
EDIT_SUFFIX = ".memtui-memory.txt"
EMPTY_INBOX = ("The inbox is empty. With review on (memtui settings set "
               "review_new_memories=on), memories from agents wait here for you.")


def diff_text(item: InboxItem) -> Text:
    """A pending correction's word diff: removed text struck through in red, added text
    underlined in green (``[-old-]{+new+}`` marks where there is no color)."""
    out = Text()
    for part in item.diff:
        shown = safe_text(part.text)
        if part.op == REMOVED:
            out.append("[-" + shown + "-]", style="red strike")
        elif part.op == ADDED:
            out.append("{+" + shown + "+}", style="green underline")
        else:
            out.append(shown)
    return out


def _scope(item: InboxItem) -> str:
    memory = item.memory
    return f"project {memory.project}" if memory.scope == "project" else "user"


def inbox_list(ctx: CliContext, args: argparse.Namespace) -> int:
    """``inbox list [--source SRC]``: pending memories, oldest first."""
    items = ctx.engine.review.items(args.source)
    if ctx.json:
        ctx.emit_json({"items": [item.to_json() for item in items], "count": len(items)})
        return 0
    if not items:
        ctx.console.print(Text(EMPTY_INBOX))
        return 0
    table = Table(show_lines=True)
    for column in ("id", "source", "scope", "created", "text"):
        table.add_column(column, overflow="fold")
    for item in items:
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
        table.add_row(memory.id, memory.source, _scope(item), render.short_time(memory.created_at),
                      body)
    ctx.console.print(table)
    ctx.console.print(Text(f"{len(items)} waiting for review"))
    return 0


def _ids(ctx: CliContext, args: argparse.Namespace) -> list[str]:
    if args.all and args.ids:
        raise InvalidInput("give memory ids or --all, not both")
    if args.all:
        return ctx.engine.review.actionable_ids(args.source)
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


def _approve_one(ctx: CliContext, args: argparse.Namespace, memory_id: str) -> ApproveResult:
    review = ctx.engine.review
    if args.text is not None:
        return review.approve(memory_id, content=args.text, kind=args.kind)
    if args.edit:
        item = review.item(memory_id)
        text = edit_text(item.memory.content)
        if not text:
            raise InvalidInput(f"the text of {memory_id} was left empty: nothing approved")
        return review.approve(memory_id, content=text, kind=args.kind, expected=item.version)
    return review.approve(memory_id, kind=args.kind)


def _report(ctx: CliContext, result: BulkResult, verb: str) -> int:
    for memory_id, error in result.errors:
        message = error.message.replace("\n", " ")
        ctx.stderr.write(f"memtui: error: {memory_id}: {message}\n")
    if ctx.json:
        ctx.emit_json(result.to_json())
    else:
        for done in result.done:
            if isinstance(done, ApproveResult):
                extra = f" (supersedes {done.superseded})" if done.superseded else ""
                edited = " as edited" if done.edited else ""
                ctx.console.print(Text(f"approved {done.memory.id}{edited}{extra}"))
            else:
                ctx.console.print(Text(f"rejected {done.memory_id} (deleted for good)"))
        if not result.done and not result.errors:
            ctx.console.print(Text(f"Nothing to {verb}: the inbox is empty."))
    return result.errors[0][1].exit_code if result.errors else 0


def inbox_approve(ctx: CliContext, args: argparse.Namespace) -> int:
    """``inbox approve ID…|--all [--source SRC] [--edit|--text T] [--kind K]``."""
    ids = _ids(ctx, args)
    if args.text is not None and (len(ids) != 1 or args.edit):
        raise InvalidInput("--text approves one memory with that text (not with --edit)")
    result = BulkResult()
    for memory_id in dict.fromkeys(ids):
        try:
            result.done.append(_approve_one(ctx, args, memory_id))
        except MemtuiError as error:
            result.errors.append((memory_id, error))
    return _report(ctx, result, "approve")


def inbox_reject(ctx: CliContext, args: argparse.Namespace) -> int:
    """``inbox reject ID…|--all [--source SRC]``: deleted for good, like forget."""
    return _report(ctx, ctx.engine.review.reject_many(_ids(ctx, args)), "reject")


SOURCES_HELP = "auto, import, service or mcp"


def _chosen(verb: str) -> tuple[Arg, ...]:
    """The pending memories an approve or reject acts on: ids, or ``--all`` (of a source)."""
    return (arg("ids", nargs="*", metavar="ID", help=f"the pending memories to {verb}"),
            arg("--all", action="store_true", help=f"every memory you may {verb}"),
            arg("--source", help=f"with --all: only this source ({SOURCES_HELP})"))


COMMANDS = (
    Command("list", "memories waiting for review, oldest first", inbox_list,
            (arg("--source", help=SOURCES_HELP),)),
    Command("approve", "make pending memories active (a correction supersedes what it "
            "corrects)", inbox_approve,
            (*_chosen("approve"),
             arg("--edit", action="store_true", help="edit each text in $EDITOR first"),
             arg("--text", help="approve one memory with this text instead"),
             arg("--kind", help="fact, preference, decision or convention"))),
    Command("reject", "delete pending memories for good (their task is never extracted "
            "again)", inbox_reject, _chosen("reject")),
)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser) -> None:
    """Add the inbox commands."""
    add_group(sub, common, "inbox", "the review inbox: approve or reject what agents wrote",
              COMMANDS)
