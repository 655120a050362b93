"""``memtui agents show``, ``memtui claude …`` and ``memtui gemini …``: the agents' own memory
stores. ``show`` never writes; a write needs ``--write``, without it the command prints what
it would change and exits 4 (``agent_write_refused``)."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from rich import box
from rich.table import Table
from rich.text import Text

from memtui.cli import render
from memtui.cli.common import (
    DEFAULT_LIMIT,
    Command,
    Group,
    Handler,
    arg,
    home_arg,
    limit_arg,
    print_list,
    print_more,
    print_notes,
    print_problems,
    report_out,
)
from memtui.cli.context import CliContext
from memtui.engine.agents import curation, inbox, switches
from memtui.engine.agents.models import AGENT_CLAUDE, AGENT_CODEX, AGENT_GEMINI, SecretFinding
from memtui.engine.agents.overview import AGENT_TITLES, AgentHomeInfo, AgentRow, AgentsOverview
from memtui.engine.agents.plans import WritePlan, apply_plan
from memtui.errors import NotFound
from memtui.textsafe import one_line

FILE_HELP = "a memory file: a path, or one relative to the agent's home"
LABEL_CHARS = 60
"""Most characters of a project path shown in a table (its end)."""
MIN_LABEL_CHARS = 12


def human_size(size: int) -> str:
    """Bytes for people: ``812 B``, ``24.4 KB``."""
    return render.byte_size(size, "B", ("KB",))


def tail(text: str, chars: int) -> str:
    """One line of ``text``; when too long, its end (the informative part of a path)."""
    flat = one_line(text, 10 * chars)
    return flat if len(flat) <= chars else "…" + flat[-(chars - 1):]


def switch_text(row: AgentRow | AgentHomeInfo) -> str:
    """``on`` / ``off`` and where the winning switch is set."""
    state = "?" if row.auto_memory is None else "on" if row.auto_memory else "off"
    winners = [item for item in row.switches if item.effective and "autoMemory" in item.name
               or item.name in ("features.memories",)]
    where = winners[-1].where if winners else "default"
    return f"{state} ({where})"


def _given(args: argparse.Namespace, agent: str) -> str | None:
    value = getattr(args, f"{agent}_home", None)
    return str(value) if value else None


def agent_home(args: argparse.Namespace, agent: str) -> Path:
    """The home of ``agent`` (``claude``, ``gemini`` or ``codex``) named by the options;
    NotFound when it is not a folder."""
    from memtui.engine.agents import paths
    from memtui.engine.codex.paths import CODEX_HOME_ENV, resolve_codex_home

    resolve, env = {AGENT_CLAUDE: (paths.resolve_claude_home, paths.CLAUDE_HOME_ENV),
                    AGENT_GEMINI: (paths.resolve_gemini_home, paths.GEMINI_HOME_ENV),
                    AGENT_CODEX: (resolve_codex_home, CODEX_HOME_ENV)}[agent]
    home = resolve(_given(args, agent))
    if not home.is_dir():
        raise NotFound(f"{home}: {AGENT_TITLES[agent]} home not found (give --{agent}-home "
                       f"PATH or set {env})")
    return home


def rows_table(rows: Sequence[AgentRow], with_agent: bool, width: int) -> Table:
    """One line per agent and project; the project path gets what the other columns leave
    (its end shown when cut)."""
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, padding=(0, 1), collapse_padding=True)
    fixed = [("files", 5), ("size", 8), ("auto", 4), ("index", 11), ("secr", 4),
             ("inbox", 5), ("probl", 5)]
    if with_agent:
        table.add_column("agent", no_wrap=True, min_width=6)
    used = sum(size + 2 for _name, size in fixed) + (8 if with_agent else 0)
    label_chars = max(MIN_LABEL_CHARS, min(LABEL_CHARS, width - used - 1))
    table.add_column("project", no_wrap=True, overflow="ellipsis", min_width=label_chars,
                     max_width=label_chars)
    for name, size in fixed:
        table.add_column(name, justify="left" if name in ("auto", "index") else "right",
                         no_wrap=True, min_width=size, overflow="ellipsis")
    for row in rows:
        cells: list[Text | str] = [row.agent] if with_agent else []
        index = row.index  # the meter: ``174/250 -76`` (index lines loaded / all, entries cut)
        meter = "" if index is None else f"{index.loaded_lines}/{index.lines}" + (
            f" -{len(index.dropped)}" if index.over_limit else "")
        label = row.label + (f" (worktree of {row.worktree_of})" if row.worktree_of else "")
        cells += [render.text(tail(label, label_chars)), str(row.files), human_size(row.size),
                  "?" if row.auto_memory is None else "on" if row.auto_memory else "off",
                  Text(meter, style="yellow" if index and index.over_limit else ""),
                  Text(str(len(row.secrets)), style="bold red" if row.secrets else ""),
                  str(row.inbox) if row.inbox else "", str(len(row.problems))]
        table.add_row(*cells)
    return table


def _dropped(ctx: CliContext, rows: Sequence[AgentRow], limit: int) -> None:
    for row in rows:
        if row.index is None or not row.index.over_limit:
            continue
        names = row.index.dropped
        ctx.say(f"Not loaded at session start in {one_line(row.label, 120)} ({len(names)} entries "
                f"past {row.index.max_lines} lines / {row.index.max_bytes} bytes):", style="yellow")
        shown = ", ".join(one_line(name, 60) for name in names[:limit])
        ctx.say(f"  {shown}" + (" …" if len(names) > limit else ""))


def _folder_trust(ctx: CliContext, home: AgentHomeInfo, limit: int) -> None:
    """Gemini CLI: the folders where folder trust disables memtui's MCP server."""
    trust = home.folder_trust
    if trust is None:
        return
    if trust.problem:
        ctx.say(f"  folder trust: {one_line(trust.rules_file, 160)} cannot be "
                f"read ({one_line(trust.problem, 160)}); Gemini CLI will not "
                "start until it is fixed", style="yellow")
    if not trust.applies:
        return
    shown = ", ".join(one_line(folder, 120) for folder in trust.untrusted[:limit])
    more = " …" if len(trust.untrusted) > limit else ""
    ctx.say(f"  folder trust is on: memtui's MCP server is Disabled in "
            f"untrusted folders ({shown}{more}); trust them in Gemini CLI "
            f"(/permissions trust) or in {one_line(trust.rules_file, 160)}", style="yellow")


def print_overview(ctx: CliContext, overview: AgentsOverview, limit: int,
                   with_agent: bool = True) -> None:
    """The human form of ``agents show`` (and of ``claude show`` / ``gemini show``)."""
    for home in overview.homes:
        state = "found" if home.found else "not found"
        title = AGENT_TITLES.get(home.agent, home.agent)
        ctx.say(f"{title} home {home.home} ({state}); auto memory "
                f"{switch_text(home)}", style="bold")
        for switch in home.switches:
            mark = "" if switch.effective else " (overridden)"
            ctx.say(f"  {switch.name} = {one_line(switch.value_text, 80)} — "
                    f"{one_line(switch.where, 160)}{mark}", style="dim")
        if home.version is not None:
            ctx.say(f"  version: {home.version.words}", style="dim")
        if home.layout:
            ctx.say(f"  layout: {one_line(home.layout, 160)}", style="dim")
        for item in home.broken_commands:
            ctx.say(f"  memtui's {item.what} entry in {item.path} will not "
                    f"start: {one_line(item.check.problem or '', 200)} "
                    "(run `memtui hooks install … --write` again)", style="yellow")
        _folder_trust(ctx, home, limit)
        if home.instruction_files:  # the missing ones are in --json only
            ctx.say(f"  instruction files: {len(home.instruction_files)} "
                    "(read-only; --json lists them with their origin)", style="dim")
    rows = overview.rows
    if rows:
        ctx.console.print(rows_table(rows[:limit], with_agent, ctx.console.width))
        print_more(ctx, limit, len(rows), "rows")
    _dropped(ctx, rows, limit)
    places: list[AgentHomeInfo | AgentRow] = [*overview.homes, *rows]
    secrets: list[SecretFinding] = [finding for place in places for finding in place.secrets]
    print_list(ctx, Text(f"Secrets found ({len(secrets)}) — file, line, kind; values never "
                         "shown", style="bold red"), secrets,
               lambda finding: Text(f"- {one_line(finding.path, 200)}:{finding.line}  "
                                    f"{finding.kind}"), limit, "secrets")
    print_problems(ctx, [problem for place in places for problem in place.problems], limit)


def agents_show(ctx: CliContext, args: argparse.Namespace) -> int:
    """``agents show``: every agent home on the machine, read-only."""
    from memtui.engine.agents.overview import agents_overview

    overview = agents_overview(*(_given(args, agent) for agent in ("claude", "gemini", "codex")))
    if ctx.json:
        return ctx.answer(overview.to_json())
    print_overview(ctx, overview, args.limit)
    return 0


def claude_show(ctx: CliContext, args: argparse.Namespace) -> int:
    """``claude show``: the Claude Code home, read-only."""
    from memtui.engine.agents.claude import read_claude_home
    from memtui.engine.agents.overview import claude_rows

    read = read_claude_home(agent_home(args, AGENT_CLAUDE))
    if ctx.json:
        return ctx.answer(read.to_json())
    info, rows = claude_rows(read)
    print_overview(ctx, AgentsOverview((info,), tuple(rows)), args.limit, with_agent=False)
    return 0


def gemini_show(ctx: CliContext, args: argparse.Namespace) -> int:
    """``gemini show``: the Gemini CLI home, read-only (with its inbox)."""
    from memtui.engine.agents.gemini import read_gemini_home
    from memtui.engine.agents.overview import gemini_rows

    read = read_gemini_home(agent_home(args, AGENT_GEMINI))
    if ctx.json:
        return ctx.answer(read.to_json() | {"inbox": [patch.to_json() for patch in read.inbox]})
    info, rows = gemini_rows(read)
    print_overview(ctx, AgentsOverview((info,), tuple(rows)), args.limit, with_agent=False)
    ctx.say(f"Global memories ({len(read.global_memories)}): the bullets of "
            f"{read.context_files[0]}", style="bold")
    for fact in read.global_memories[:args.limit]:
        ctx.say(f"- {one_line(fact, 200)}")
    print_more(ctx, args.limit, len(read.global_memories), "global memories")
    _print_inbox(ctx, read.inbox, args.limit)
    return 0


def _print_inbox(ctx: CliContext, patches: Sequence[Any], limit: int) -> None:
    ctx.say(f"Inbox ({len(patches)} patch(es) waiting)", style="bold")
    for patch in patches[:limit]:
        where = f"{patch.project}:" if patch.project else ""
        state = f"+{patch.added} -{patch.removed} → {', '.join(patch.targets)}" if patch.valid \
            else f"cannot apply: {patch.reason}"
        ctx.say(f"- {one_line(where + patch.id, 120)}  {one_line(state, 200)}")


def run_plan(ctx: CliContext, args: argparse.Namespace, make: Callable[[], WritePlan]) -> int:
    """Make a plan; without ``--write`` print it and refuse (exit 4), else write it (a plan
    that changes nothing: its summary, exit 0)."""
    plan = make()
    if not args.write and plan.changes and not ctx.json:
        ctx.say(f"would {plan.summary}", style="bold")
        if diff := plan.diff():
            ctx.say(diff.rstrip("\n"))
        print_notes(ctx, plan.notes, 300)
    applied = apply_plan(plan, bool(args.write))
    if ctx.json:
        return ctx.answer(applied.to_json())
    ctx.say(f"done: {plan.summary}" if plan.changes else plan.summary)
    print_notes(ctx, plan.notes, 300)
    return 0


def _claude_memory_folder(home: Path, ref: str) -> Path:
    path = Path(ref).expanduser().absolute()
    if path.is_dir() and (home.absolute() in path.parents):
        return path if path.name == "memory" else path / "memory"
    from memtui.engine.agents.claude import read_claude_home

    row = read_claude_home(home, instructions=False).project(ref)
    if row is None or row.memory_dir is None:
        raise NotFound(f"no Claude Code memory folder for {ref!r} in {home}")
    return Path(row.memory_dir)


Plan = Callable[[Path, argparse.Namespace], WritePlan]
"""A write's plan, from the agent's home and the command's options."""


def planned(agent: str, make: Plan) -> Handler:
    """A command that writes into ``agent``'s home: ``make``'s plan, run by ``run_plan``."""
    def run(ctx: CliContext, args: argparse.Namespace) -> int:
        home = agent_home(args, agent)
        return run_plan(ctx, args, lambda: make(home, args))

    return run


def file_or_fact(action: str, by_file: Callable[[Path, str], WritePlan],
                 by_fact: Callable[[Path, str], WritePlan]) -> Plan:
    """Gemini's ``forget`` / ``promote``: by a FILE or by ``--fact TEXT`` (one of them)."""
    def make(home: Path, args: argparse.Namespace) -> WritePlan:
        if bool(args.file) == bool(args.fact):
            from memtui.cli.main import UsageError

            raise UsageError(f"memtui gemini {action}: give a FILE or --fact TEXT (one of them)")
        return by_fact(home, args.fact) if args.fact else by_file(home, args.file)

    return make


def gemini_inbox_list(ctx: CliContext, args: argparse.Namespace) -> int:
    """``gemini inbox list``: every pending patch."""
    from memtui.engine.agents.gemini import list_gemini_inbox

    patches = list_gemini_inbox(agent_home(args, AGENT_GEMINI))
    if ctx.json:
        return ctx.answer({"items": [patch.to_json() for patch in patches],
                           "count": len(patches)})
    _print_inbox(ctx, patches, DEFAULT_LIMIT)
    return 0


def import_command(name: str, words: str, agent: str, method: str, what: str) -> Command:
    """An import command: ``ctx.engine.agents.<method>`` on the agent's home, its report (of
    ``what``) printed."""
    def run(ctx: CliContext, args: argparse.Namespace) -> int:
        report = getattr(ctx.engine.agents, method)(agent_home(args, agent))
        return report_out(ctx, report, what, args.limit)

    return Command(name, words, run, (LIMIT,))


def export(ctx: CliContext, args: argparse.Namespace) -> int:
    """``claude export DIR`` / ``gemini export DIR``: the store in the agent's format."""
    agent = "claude" if getattr(args, "claude_command", None) == "export" else "gemini"
    result = ctx.engine.agents.export(agent, args.dir)
    if ctx.json:
        return ctx.answer(result)
    ctx.say(f"exported {result['memories']} memories to "
            f"{one_line(result['path'])} ({len(result['files'])} files)")
    flag = "--claude-home" if agent == "claude" else "--gemini-home"
    ctx.say(f"browse it with: memtui {agent} show {flag} {one_line(result['path'])}", style="dim")
    print_notes(ctx, result["notes"], 300)
    return 0


LIMIT = limit_arg("rows per list in human output")
"""Rows per list in human output (JSON always has everything)."""
WRITE = arg("--write", action="store_true",
            help="really change the agent's files (else: show what would change)")
FILE = arg("file", metavar="FILE", help=FILE_HELP)
STATE = arg("state", choices=("on", "off"), help="switch auto memory on or off")
EXPORT_DIR = arg("dir", metavar="DIR", help="a new (or empty) folder")
claude, gemini = (partial(planned, agent) for agent in (AGENT_CLAUDE, AGENT_GEMINI))
"""``planned`` for each agent: a write command's handler from its plan."""

CLAUDE_COMMANDS = (
    Command("show", "the Claude Code home (read-only)", claude_show, (LIMIT,)),
    import_command("import", "topic files become memories", AGENT_CLAUDE, "import_claude",
                   "memories"),
    import_command("import-transcripts", "sessions become completed tasks", AGENT_CLAUDE,
                   "import_transcripts", "sessions as tasks"),
    Command("export", "write the store as a Claude Code home", export, (EXPORT_DIR,)),
    Command("forget", "remove a topic file and its index line (needs --write)",
            claude(lambda home, args: curation.plan_forget(home, args.file)), (FILE, WRITE)),
    Command("redact", "replace the secrets in a memory file (needs --write)",
            claude(lambda home, args: curation.plan_redact(home, args.file)), (FILE, WRITE)),
    Command("promote", "move a project memory to ~/.claude/CLAUDE.md (needs --write)",
            claude(lambda home, args: curation.plan_promote_claude(home, args.file)),
            (FILE, WRITE)),
    Command("edit", "replace a topic file's text (needs --write)",
            claude(lambda home, args: curation.plan_edit(home, args.file, args.text)),
            (FILE, arg("text", metavar="TEXT", help="the new text (the front matter is kept)"),
             WRITE)),
    Command("fix-index", "repair a MEMORY.md (needs --write)", claude(
        lambda home, args: curation.plan_fix_index(home, _claude_memory_folder(home, args.folder))),
            (arg("folder", metavar="FOLDER|SLUG|PROJECT_PATH",
                 help="the memory folder, its project folder's name or the project path"),
             WRITE)),
    Command("auto-memory", "switch auto memory on or off (needs --write)", claude(
        lambda home, args: switches.plan_auto_memory(AGENT_CLAUDE, home, args.state == "on",
                                                     args.project, with_user=not args.project)),
            (STATE, arg("--project", metavar="DIR", default=None,
                        help="in DIR/.claude/settings.local.json when it sets it, else "
                        "DIR/.claude/settings.json (without: ~/.claude/settings.json)"),
             WRITE)),
)
PATCH = arg("patch", metavar="PATCH", help="[<slug>:]<scope>/<name>.patch or a path")
GEMINI_COMMANDS = (
    Command("show", "the Gemini CLI home (read-only)", gemini_show, (LIMIT,)),
    import_command("import", "Gemini memories become memories", AGENT_GEMINI, "import_gemini",
                   "memories"),
    Command("export", "write the store as a Gemini CLI home", export, (EXPORT_DIR,)),
    Command("forget", "remove a memory file or a global memory (needs --write)",
            gemini(file_or_fact("forget", curation.plan_forget, curation.plan_forget_fact)),
            (arg("file", metavar="FILE", nargs="?", default=None, help=FILE_HELP),
             arg("--fact", metavar="TEXT", default=None,
                 help="a bullet of the global GEMINI.md (exact, or a unique part)"),
             WRITE)),
    Command("redact", "replace the secrets in a memory file (needs --write)",
            gemini(lambda home, args: curation.plan_redact(home, args.file, gemini=True)),
            (FILE, WRITE)),
    Command("promote", "move a project memory (a file, or with --fact one MEMORY.md bullet) "
            "to the global GEMINI.md as plain bullets (needs --write)", gemini(file_or_fact(
                "promote", curation.plan_promote_gemini, curation.plan_promote_index_fact)),
            (arg("file", metavar="FILE", nargs="?", default=None, help=FILE_HELP),
             arg("--fact", metavar="TEXT", default=None,
                 help="a bullet of a project's MEMORY.md (exact, or a unique part)"),
             WRITE)),
    Command("note", "add a '- fact' line to the global GEMINI.md, Gemini CLI 0.61's global "
            "memory (it has no save_memory tool; a file with the old '## Gemini Added "
            "Memories' section gets it there) (needs --write)",
            gemini(lambda home, args: curation.plan_add_fact(home, args.text)),
            (arg("text", metavar="TEXT", help="the fact to remember (redacted, one line)"),
             WRITE)),
    Command("auto-memory", "switch experimental.autoMemory (needs --write)", gemini(
        lambda home, args: switches.plan_auto_memory(AGENT_GEMINI, home, args.state == "on")),
            (STATE, WRITE)),
    Group("inbox", "pending auto-memory patches", (
        Command("list", "every pending patch", gemini_inbox_list),
        Command("apply", "apply a patch (needs --write)",
                gemini(lambda home, args: inbox.plan_apply_patch(home, args.patch)),
                (PATCH, WRITE)),
        Command("dismiss", "dismiss a patch (needs --write)",
                gemini(lambda home, args: inbox.plan_dismiss_patch(home, args.patch)),
                (PATCH, WRITE))), (home_arg("gemini"),)),
)
TOP_LEVEL = (
    Group("agents", "every agent's memory on this machine", (Command(
        "show", "Claude Code, Gemini CLI and Codex, one row per project", agents_show,
        (LIMIT, *(home_arg(agent) for agent in ("claude", "gemini", "codex")))),)),
    Group("claude", "browse, curate, import and export Claude Code memory", CLAUDE_COMMANDS,
          (home_arg("claude"),)),
    Group("gemini", "browse, curate, import and export Gemini CLI memory", GEMINI_COMMANDS,
          (home_arg("gemini"),)),
)

