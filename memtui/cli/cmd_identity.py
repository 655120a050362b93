"""Commands for projects, profiles, memories, notes, context and the audit log."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rich.table import Table

from memtui.cli import render
from memtui.cli.common import Command, Group, Handler, arg, limit_arg, list_out
from memtui.cli.context import CliContext
from memtui.engine.staleness import StaleMemory
from memtui.engine.validation import echo, parse_preferences
from memtui.errors import InvalidInput
from memtui.store.models import KINDS, SOURCES, Memory
from memtui.textsafe import safe_text

if TYPE_CHECKING:
    from memtui.engine.api import Engine


def memory_out(make: Callable[[Engine, argparse.Namespace], Memory], verb: str = "") -> Handler:
    """A command answering with the memory ``make`` returns: its fields, after
    ``<verb> <id>`` (``verb`` formatted with the options as ``args``) when there is one."""
    def run(ctx: CliContext, args: argparse.Namespace) -> int:
        memory = make(ctx.engine, args)
        said = [f"{verb.format(args=args)} {memory.id}"] if verb else []
        return ctx.answer(memory.to_json(), *said, render.memory_detail(memory))

    return run


def project_add(ctx: CliContext, args: argparse.Namespace) -> int:
    """``project add ID [--name N] [--root PATH]``."""
    project = ctx.engine.identity.create_project(args.id, args.name, args.root)
    return ctx.answer(project.to_json() | {"role": "owner"},
                      f"created project {project.id} (you are its owner)")


def project_member(ctx: CliContext, args: argparse.Namespace) -> int:
    """``project member PROJECT USER --role ROLE``."""
    ctx.engine.identity.set_member(args.project, args.member, args.role)
    said = f"{args.member} is now {args.role} of {args.project}"
    if args.member != ctx.engine.actor:
        said += (f" (memtui uses it for their folders once they accept: memtui project accept "
                 f"{args.project})")
    return ctx.answer({"project": args.project, "user": args.member, "role": args.role}, said)


def project_accept(ctx: CliContext, args: argparse.Namespace) -> int:
    """``project accept PROJECT``."""
    changed = ctx.engine.identity.accept_project(args.project)
    root = ctx.engine.identity.get_project(args.project).root_path
    where = f"your folders under {root}" if root else "your folders once it has a root"
    said = "accepted" if changed else "already accepted"
    return ctx.answer({"project": args.project, "accepted": True, "changed": changed},
                      f"{said} {args.project}: memtui chooses it for {where}")


def project_list(ctx: CliContext, args: argparse.Namespace) -> int:
    """``project list``."""
    rows = ctx.engine.identity.list_projects()
    chosen = {project.id for project in ctx.engine.identity.chosen_projects()}
    table = Table()
    render.add_id_column(table, "id", (project.id for project, _ in rows))
    for column in ("name", "role", "accepted", "root"):
        table.add_column(column, overflow="fold")
    for project, role in rows:
        table.add_row(project.id, render.text(project.name), role,
                      "yes" if project.id in chosen else "no", render.text(project.root_path))
    return list_out(ctx, rows, table, "No projects yet — create one with: memtui project add ID",
                    lambda row: row[0].to_json() | {"role": row[1],
                                                    "accepted": row[0].id in chosen})


def _profile_out(ctx: CliContext, profile: Any) -> int:
    return ctx.answer(profile.to_json(), render.key_value_table([
        ("user", profile.user_id), ("display name", profile.display_name),
        ("timezone", profile.timezone),
        ("preferences", json.dumps(profile.preferences, ensure_ascii=False, sort_keys=True)),
        ("updated", profile.updated_at)], title="Profile"))


def _parse_prefs(pairs: list[str]) -> dict[str, Any]:
    prefs: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key:
            raise InvalidInput(f"--pref needs KEY=JSONVALUE, got {echo(pair)}")
        try:
            prefs[key] = json.loads(raw)
        except (ValueError, RecursionError):
            raise InvalidInput(f"--pref {key}: the value is not JSON (quote strings: "
                               f"{key}='\"text\"')") from None
    return prefs


def profile_set(ctx: CliContext, args: argparse.Namespace) -> int:
    """``profile set [--name N] [--timezone TZ] [--pref KEY=JSON ...] [--preferences JSON]``."""
    replace_all = None
    if args.preferences is not None:
        replace_all = parse_preferences(args.preferences, "--preferences")
    merge = _parse_prefs(args.pref) if args.pref else None
    profile = ctx.engine.identity.update_profile(display_name=args.name, timezone=args.timezone,
                                                 preferences=replace_all, set_preferences=merge)
    return _profile_out(ctx, profile)


def memory_list(ctx: CliContext, args: argparse.Namespace) -> int:
    """``memory list [--project ID | --scope user] [--kind K] [--status S] [--search Q]
    [--stale]``."""
    if args.project and args.scope == "user":
        raise InvalidInput("--project and --scope user cannot be used together")
    if args.stale:
        stale = ctx.engine.staleness.stale(args.project, args.limit)
        reasons = {item.memory.id: item.reasons for item in stale}
        return list_out(ctx, stale, render.memory_table([i.memory for i in stale],
                                                        reasons=reasons),
                        "No stale memories: every cited file is there and every memory "
                        "was used recently.")
    memories = ctx.engine.identity.list_memories(
        args.project, kind=args.kind, status=args.status, source=args.source,
        search=args.search, limit=args.limit)
    where = f"project {args.project}" if args.project else "your user memories"
    empty = (f"No memories in {where} match." if (args.search or args.kind) else
             f"No memories in {where} yet — add one with: memtui memory add TEXT --kind fact")
    return list_out(ctx, memories, render.memory_table(memories), empty)


def memory_recall(ctx: CliContext, args: argparse.Namespace) -> int:
    """``memory recall QUESTION [--project ID] [--limit N]``: best match first."""
    memories = ctx.engine.recall.recall_memories(args.question, args.limit, args.project)
    reasons = ctx.engine.staleness.check(memories)
    items = [StaleMemory(memory, reasons.get(memory.id, ())) for memory in memories]
    return list_out(ctx, items, render.memory_table(memories, reasons=reasons),
                    "No memory matches.")


def memory_keep(ctx: CliContext, args: argparse.Namespace) -> int:
    """``memory keep ID [ID ...]``: reviewed stale memories stay (marked used now)."""
    count = ctx.engine.staleness.keep(args.ids)
    return ctx.answer({"kept": count}, f"kept {count} memor{'y' if count == 1 else 'ies'}")


def memory_history(ctx: CliContext, args: argparse.Namespace) -> int:
    """``memory history ID``: the chain, oldest first."""
    chain = ctx.engine.identity.history(args.id)
    return list_out(ctx, chain, render.memory_table(chain, title=f"History of {args.id}"), "")


def memory_forget(ctx: CliContext, args: argparse.Namespace) -> int:
    """``memory forget ID --yes``: physical delete of the whole chain."""
    if not args.yes:
        size = ctx.engine.identity.chain_size(args.id)
        raise InvalidInput(f"forget is final and removes {size} version(s) of {args.id}; "
                           "add --yes to confirm")
    result = ctx.engine.identity.forget(args.id)
    said = (f"forgot {args.id}: {result.count} version(s) deleted for good" if result.purged
            else f"forgot {args.id}: {result.count} version(s) deleted from the store, but not "
                 f"yet from its files: {result.purge_reason}")
    return ctx.answer({"id": result.memory_id, "forgotten": list(result.removed_ids),
                       "count": result.count, "purged": result.purged,
                       "purge_reason": result.purge_reason}, said)


def context(ctx: CliContext, args: argparse.Namespace) -> int:
    """``context [--project ID]``: the identity context."""
    result = ctx.engine.identity.context(args.project)
    return ctx.answer(result.to_json(), render.key_value_table([
        ("user", result.profile.user_id), ("name", result.profile.display_name),
        ("timezone", result.profile.timezone), ("project summary", result.project_summary)],
        title="Identity context"), safe_text(result.text) or "(no memories yet)")


def audit(ctx: CliContext, args: argparse.Namespace) -> int:
    """``audit [--limit N]``: the user's audit entries."""
    entries = ctx.engine.identity.audit(args.limit)
    table = Table()
    for column in ("at", "action", "target", "detail"):
        table.add_column(column, overflow="fold")
    for entry in entries:
        table.add_row(render.short_time(entry.at), entry.action, render.text(entry.target),
                      render.text(json.dumps(entry.detail, ensure_ascii=False)))
    return list_out(ctx, entries, table, "No audit entries yet.")


def _one_of(words: tuple[str, ...]) -> str:
    """``a, b, c or d``: the words a help text offers."""
    return f"{', '.join(words[:-1])} or {words[-1]}"


KIND_HELP = _one_of(KINDS)
SOURCE_HELP = _one_of(SOURCES)


ID_ARG = arg("id", help="the memory's id")
LIMIT = limit_arg("at most this many rows (default 50)")

PROJECT_COMMANDS = (
    Command("add", "create a project (you become its owner)", project_add, (
        arg("id", help="the new project's id (letters, digits, - _ .)"),
        arg("--name", help="a display name (default: the id)"),
        arg("--root", help="root folder: the app picks this project inside it"))),
    Command("member", "set a member's role (owners only)", project_member, (
        arg("project", help="the project's id"),
        arg("member", metavar="USER", help="the user to add or change"),
        arg("--role", required=True, help="owner, member or reader"))),
    Command("accept", "accept a membership someone gave you: memtui then chooses the project "
            "for your folders under its root", project_accept, (
                arg("project", help="the project's id"),)),
    Command("list", "projects you can read", project_list),
)
PROFILE_COMMANDS = (
    Command("show", "show your profile",
            lambda ctx, _args: _profile_out(ctx, ctx.engine.identity.profile())),
    Command("set", "change your profile", profile_set, (
        arg("--name", help="your display name"),
        arg("--timezone", metavar="TZ", help="an IANA zone, e.g. Europe/Berlin"),
        arg("--pref", action="append", metavar="KEY=JSONVALUE", default=[],
            help="set one preference (repeatable)"),
        arg("--preferences", metavar="JSON", help="replace all preferences"))),
)
MEMORY_COMMANDS = (
    Command("add", "add a memory (user level, or --project)", memory_out(
        lambda engine, args: engine.identity.add_memory(args.text, args.kind, args.project),
        "added"), (
        arg("text", help="the memory's text (secrets are redacted)"),
        arg("--kind", required=True, help=KIND_HELP),
        arg("--project", help="a project-level memory of this project (default: user-level)"))),
    Command("list", "visible memories, newest first", memory_list, (
        arg("--project", help="this project's memories (default: yours)"),
        arg("--scope", choices=["user"], help="only your user-level memories"),
        arg("--kind", help=KIND_HELP),
        arg("--status", default="active", help="active, superseded, pending or all"),
        arg("--source", help=SOURCE_HELP),
        arg("--search", metavar="Q", help="words to search for (the last one may be a prefix)"),
        arg("--stale", action="store_true",
            help="only stale memories: cited files or symbols gone, or unused for long"),
        LIMIT)),
    Command("recall", "memories that answer a question, best first", memory_recall, (
        arg("question", help="a question or a few words, in your own words"),
        arg("--project", help="this project's memories and yours (default: every project)"),
        limit_arg("at most this many (default 8)", 8))),
    Command("keep", "keep reviewed stale memories (marks them used now)", memory_keep, (
        arg("ids", nargs="+", metavar="ID", help="the memories to keep"),)),
    Command("show", "one memory",
            memory_out(lambda engine, args: engine.identity.get_memory(args.id)), (ID_ARG,)),
    Command("supersede", "correct a memory", memory_out(
        lambda engine, args: engine.identity.supersede(args.id, args.text, args.kind),
        "superseded {args.id} with"), (
        arg("id", help="the memory to correct"), arg("text", help="the corrected text"),
        arg("--kind", help=KIND_HELP))),
    Command("history", "the supersede chain, oldest first", memory_history,
            (arg("id", help="any version's id"),)),
    Command("forget", "delete a memory and its chain for good", memory_forget, (
        arg("id", help="the memory to forget, with its whole chain"),
        arg("--yes", action="store_true", help="confirm: forget is final"))),
)
COMMANDS = (
    Command("note", "an ad-hoc note (a memory with source = note)", memory_out(
        lambda engine, args: engine.identity.add_note(args.text, args.project, args.kind),
        "noted"), (
        arg("text", help="the note's text"),
        arg("--project", help="a note of this project (default: user-level)"),
        arg("--kind", default="fact", help=KIND_HELP))),
    Command("context", "the identity context", context,
            (arg("--project", help="this project (default: the working directory's)"),)),
    Command("audit", "your audit entries", audit, (
        limit_arg("at most this many entries (default 50)"),)),
)


TOP_LEVEL = (Group("project", "projects and members", PROJECT_COMMANDS),
             Group("profile", "your profile", PROFILE_COMMANDS),
             Group("memory", "identity memories", MEMORY_COMMANDS), *COMMANDS)
