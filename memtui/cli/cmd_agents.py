"""Commands that connect coding agents to memtui: ``memtui mcp``, ``memtui hooks
show|install|uninstall AGENT``, and ``memtui hook session-start|session-end`` (answered by
``memtui.cli.hook`` before the parser is built; registered here for ``--help``)."""

from __future__ import annotations

import argparse
import os
import sys

from memtui.cli.common import Command, arg
from memtui.cli.context import CliContext
from memtui.cli.hook import HOOK_NAMES
from memtui.engine.agent_setup import INSTALL, UNINSTALL
from memtui.engine.sessions import AGENTS
from memtui.textsafe import safe_text


def mcp(ctx: CliContext, args: argparse.Namespace) -> int:
    """``mcp``: the MCP server on stdio, until the client closes it."""
    from memtui.mcp.server import serve

    return serve(ctx.db_target, ctx.user, create_folder=not ctx.db_named)


def _extra_options(ctx: CliContext) -> list[str]:
    """The global options the installed commands carry: the ones given to this command."""
    extra: list[str] = []
    if ctx.db_named:
        extra += ["--db", str(ctx.db_path.absolute()) if ctx.db_is_file else ctx.db_target]
    if getattr(ctx.args, "user", None):
        extra += ["--user", ctx.user]
    return extra


def _install_command(args: argparse.Namespace) -> tuple[str, ...]:
    """The words the installed entries start memtui with: ``--command``, else this memtui."""
    from memtui.engine.installed_command import chosen_command, running_command

    if getattr(args, "command", None):
        return tuple(chosen_command(args.command))
    return tuple(running_command(sys.argv[0], sys.executable))


def _gate_command(args: argparse.Namespace) -> tuple[str, ...] | None:
    """The write gate's words (``--gate``): this Python, isolated and without site-packages,
    running this memtui's ``gate_hook.py`` (absolute paths: Claude Code's PATH may lack
    both)."""
    from memtui.cli import gate_hook

    return (os.path.abspath(sys.executable), "-I", "-S", os.path.abspath(gate_hook.__file__)) \
        if getattr(args, "gate", False) else None


def hooks(ctx: CliContext, args: argparse.Namespace) -> int:
    """``hooks show|install|uninstall AGENT [--project DIR] [--command PATH] [--gate]
    [--write]``."""
    from memtui.engine.agent_setup import (
        installed_entries,
        plan,
        store_folder_problem,
        write_with_retry,
    )

    action = UNINSTALL if args.action == "uninstall" else INSTALL
    changes = plan(args.agent, action, args.project, _extra_options(ctx),
                   _install_command(args), _gate_command(args))
    write = args.write and args.action != "show"
    store_problem = store_folder_problem(_extra_options(ctx))
    if store_problem and args.action == "install":
        ctx.stderr.write(f"memtui: warning: {store_problem}: the installed hooks and MCP "
                         "server find no store until it does\n")
    backups: dict[str, str | None] = {}
    if write:
        for at, change in enumerate(changes):
            changes[at], backup = write_with_retry(change)
            backups[str(change.path)] = str(backup) if backup else None
    installed = (installed_entries(args.agent, args.project, run=True)
                 if args.action == "show" else [])
    if ctx.json:
        return ctx.answer({"agent": args.agent, "action": args.action, "written": write,
                           "files": [{**change.to_json(),
                                      "backup": backups.get(str(change.path))}
                                     for change in changes],
                           "installed": [{"agent": args.agent, **entry.to_json()}
                                         for entry in installed]})
    out = ctx.stdout
    for entry in installed:
        state = "runs" if entry.check.ok else f"BROKEN: {entry.check.problem}"
        out.write(safe_text(f"installed {entry.what} in {entry.path}: "
                            f"{' '.join(entry.check.command)} ({state})") + "\n")
    if any(not entry.check.ok for entry in installed):
        out.write(f"Run `memtui hooks install {args.agent} --write` again to name this "
                  "memtui's path (or --command PATH), and a --db whose folder exists.\n")
    if installed:
        out.write("\n")
    for change in changes:
        copy = backups.get(str(change.path))
        state = ("unchanged" if not change.changed else "would change" if not write else
                 f"written; the old file kept as {copy}" if copy else "written")
        out.write(safe_text(f"{change.path}: {change.summary} ({state})") + "\n")
        if args.action == "show" or (change.changed and not write):
            out.write(safe_text(change.shown_text().rstrip("\n") or "(empty)") + "\n\n")
    if not write and args.action != "show" and any(change.changed for change in changes):
        out.write("Nothing written: add --write to change these files "
                  "(a .bak copy of each is kept).\n")
    return 0


def hook(ctx: CliContext, args: argparse.Namespace) -> int:
    """``hook session-start|session-end``: when the fast path did not take the command line."""
    from memtui.cli.hook import run_hook

    options = {"name": args.name, "agent": args.agent}
    if ctx.db_named:
        options["db"] = ctx.db_target
    if getattr(ctx.args, "user", None):
        options["user"] = ctx.user
    return run_hook(options, ctx.stdout, ctx.stderr)


TOP_LEVEL = (
    Command("mcp", "run the MCP server on stdio for coding agents", mcp),
    Command("hooks", "show, install or uninstall memtui in an agent's settings", hooks, (
        arg("action", choices=("show", "install", "uninstall"),
            help="show the configuration, or install / uninstall it"),
        arg("agent", choices=AGENTS, help="the agent whose settings to change"),
        arg("--project", metavar="DIR", default=None,
            help="the project's own settings files instead of the user's"),
        arg("--command", metavar="PATH", default=None,
            help="the memtui the agents start (default: the absolute path of this one, so "
                 "agents need not have it on PATH)"),
        arg("--gate", action="store_true",
            help="Claude Code: also hold its memory writes for review in the inbox (a "
                 "PreToolUse hook; the claude_memory_gate setting picks the mode)"),
        arg("--write", action="store_true", help="write the change (else only show it)"))),
    Command("hook", "an agent's session hook: reads its JSON on stdin; fails open", hook, (
        arg("name", choices=HOOK_NAMES,
            help="session-start prints the memories; session-end records the session"),
        arg("--agent", default="claude-code", choices=("claude-code",),
            help="whose hook format stdin holds"))),
)
