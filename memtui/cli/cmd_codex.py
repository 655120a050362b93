"""``memtui codex show|import|import-rollouts|note|forget|export`` on the Codex home
(``--codex-home PATH``, else ``$CODEX_HOME``, else ``~/.codex``). ``show`` never writes;
``note`` and ``forget`` without ``--write`` only say what they would do (exit 4). A locked
``memories_1.sqlite`` is waited for up to ``--wait SECONDS``."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from rich import box
from rich.console import Group as RichGroup
from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from memtui.cli import render
from memtui.cli.cmd_agent_stores import LIMIT, agent_home
from memtui.cli.common import (
    Command,
    Group,
    arg,
    home_arg,
    limit_arg,
    number_type,
    print_more,
    print_notes,
    print_problems,
    report_out,
)
from memtui.cli.context import CliContext
from memtui.engine.agents.models import AGENT_CODEX
from memtui.engine.codex.browse import CodexThread, codex_threads
from memtui.engine.codex.config import codex_sqlite_home, config_reasons, describe_config
from memtui.engine.codex.curation import ForgetResult
from memtui.engine.codex.diagnosis import reason_words
from memtui.engine.codex.errors import CodexError, CodexWriteRefused
from memtui.engine.codex.export import check_export_target
from memtui.engine.codex.models import CodexHome, Job, Note, TaskGroup
from memtui.engine.codex.notes import MAX_NOTE_BYTES, notes_dir_parts, write_note
from memtui.engine.codex.paths import EXPORT_FOLDERS, MEMORIES_DIR, codex_db_path
from memtui.engine.validation import check_text
from memtui.errors import NotFound
from memtui.store.codex_db import CodexDbLocked
from memtui.textsafe import one_line

PREVIEW_CHARS = 70
WRITE_HINT = "add --write to do it"
MAX_WAIT_SECONDS = 600.0


def consolidation_stuck(codex: CodexHome) -> bool | None:
    """True when a job failed or holds a dead lease (a cooldown or a queued run is not);
    None (cannot be told) when no job failed but the memory database was not read or its
    layout is one memtui does not know."""
    if any(job.running_past_lease or job.status == "error" for job in codex.jobs):
        return True
    layout = codex.layout
    if layout is not None and (not layout.jobs_complete
                               or not codex.database_read and layout.memory_db is not None):
        return None
    return False


def layout_line(codex: CodexHome) -> Text:
    """``Codex database: <layout words> (<schema versions>)``."""
    layout = codex.layout
    if layout is None:
        return Text("Codex database: not looked at")
    return Text(f"Codex database: {layout.description} ({layout.schema_words})",
                style="" if layout.supported or layout.name == "none" else "yellow")


def _summary_line(codex: CodexHome) -> Text:
    if codex.summary is None and codex.layout is not None \
            and not codex.layout.summary_always_written \
            and not (Path(codex.memories_dir) / "memory_summary.md").exists():
        return Text("memory_summary.md: not written yet (Codex writes it when a consolidation "
                    "succeeds)")
    if codex.summary is None:
        return Text("memory_summary.md: not read (see problems)")
    if not codex.summary.valid_v1:
        return Text("memory_summary.md: first line is not 'v1' (Codex would not use it)",
                    style="yellow")
    return Text(f"memory_summary.md: v1, {len(codex.summary.topics)} topic(s)")


def _groups_table(groups: Sequence[TaskGroup]) -> Table:
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False)
    table.add_column("task group", overflow="fold", ratio=2)
    table.add_column("tasks", justify="right", no_wrap=True)
    table.add_column("cwd", overflow="fold", ratio=2)
    for group in groups:
        table.add_row(Text(one_line(group.name, PREVIEW_CHARS)), str(len(group.tasks)),
                      render.text(group.cwd or group.applies_to))
    return table


def _threads_table(threads: Sequence[CodexThread], database_read: bool) -> Table:
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False)
    table.add_column("thread", no_wrap=True)
    table.add_column("used", justify="right", no_wrap=True)
    table.add_column("last use", no_wrap=True)
    table.add_column("memory", no_wrap=True)
    table.add_column("what / cwd", overflow="fold", min_width=12)
    for thread in threads:
        used = "—" if thread.usage_count is None else str(thread.usage_count)
        what = thread.description or thread.cwd or ""
        if thread.git_branch:
            what = f"{what} [{thread.git_branch}]"
        if thread.job_status and thread.job_status != "done":
            what = f"[job {thread.job_status}] {what}".strip()
        if database_read and not thread.in_database:
            what = f"{what} (no stage-1 output)".strip()
        table.add_row(Text(one_line(thread.thread_id, 80)), used,
                      render.short_time(thread.last_usage)[:10],
                      Text(one_line(thread.memory_mode or "—", 12)),
                      Text(one_line(what, PREVIEW_CHARS)))
    return table


def _notes_table(notes: Sequence[Note]) -> Table:
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False)
    table.add_column("note", overflow="fold", ratio=1)
    table.add_column("text", overflow="fold", ratio=1)
    for note in notes:
        table.add_row(render.text(note.file_name), Text(one_line(note.text.strip(), PREVIEW_CHARS)))
    return table


def _job_line(job: Job) -> Text:
    """``- <key>  <kind> <status> · <retries>``, then its lease, retry and error (dim)."""
    key = "" if job.is_consolidation else f"{job.job_key}  "
    line = Text(f"- {one_line(f'{key}{job.kind_word} {job.status}{job.state_words}')}")
    notes = []
    if job.lease_until and job.status == "running":
        notes.append(f"lease until {render.short_time(job.lease_until)}")
    if job.retry_pending and job.retry_at:
        notes.append(f"retry at {render.short_time(job.retry_at)}")
    if job.last_error:
        notes.append(f"error: {reason_words(job.last_error)}")
    if notes:
        line.append(f"\n    {one_line('; '.join(notes), 2 * PREVIEW_CHARS)}", style="dim")
    return line


def _section(ctx: CliContext, title: str, items: Sequence[Any], limit: int, what: str,
             body: Callable[[Any], RenderableType]) -> None:
    """A heading, then the first ``limit`` items (when there are any) and how many more."""
    ctx.say(title, style="bold")
    if items:
        ctx.console.print(body(items[:limit]))
        print_more(ctx, limit, len(items), what)


def show(ctx: CliContext, args: argparse.Namespace) -> int:
    """``codex show``: the whole home, read-only."""
    home = agent_home(args, AGENT_CODEX)
    codex = ctx.engine.codex.browse(home, db_busy_timeout_s=args.wait)
    threads = codex_threads(codex)
    if ctx.json:  # everything read; a summary always has ``present`` and ``valid_v1``
        summary = codex.summary.to_json() if codex.summary else {
            "valid_v1": False, "sections": [], "topics": [], "older_topics": []}
        return ctx.answer(codex.to_json() | {
            "summary": {"present": codex.summary is not None, **summary},
            "threads": [thread.to_json() for thread in threads],
            "consolidation_stuck": consolidation_stuck(codex),
            "config_reasons": config_reasons(codex.config)})
    limit = args.limit
    ctx.say(f"Codex home {home}", style="bold")
    ctx.console.print(layout_line(codex))
    ctx.console.print(_summary_line(codex))
    _section(ctx, f"Task groups ({len(codex.task_groups)}) — MEMORY.md", codex.task_groups,
             limit, "task groups", _groups_table)
    _section(ctx, f"Threads ({len(threads)}) — usage from Codex's database, memory mode from "
             "state_5.sqlite", threads, limit, "threads",
             lambda shown: _threads_table(shown, codex.database_read))
    _section(ctx, f"Ad-hoc notes ({len(codex.notes)})", codex.notes, limit, "notes",
             _notes_table)
    _section(ctx, f"Job queue ({len(codex.jobs)})", codex.jobs, limit, "jobs",
             lambda shown: RichGroup(*map(_job_line, shown)))
    ctx.say("Why is consolidation stuck?", style="bold")
    for reason in codex.diagnosis:
        ctx.say(f"- {one_line(reason)}")
    if not codex.diagnosis:
        ctx.say("Nothing stuck: no job is failing or holding an expired lease." if
                codex.database_read else
                "Unknown: Codex's memory database could not be read (see problems).")
    for reason in config_reasons(codex.config):
        ctx.say(f"- {one_line(reason)}", style="yellow")
    settings = describe_config(codex.config, home_found=codex.home_found)
    if settings:
        ctx.say("Codex's memory settings (config.toml)", style="bold")
    for line in settings:
        ctx.say(f"- {one_line(line)}")
    print_problems(ctx, codex.problems, limit)
    return 0


def import_memories(ctx: CliContext, args: argparse.Namespace) -> int:
    """``codex import``: stage-1 outputs and ad-hoc notes become memories."""
    home = agent_home(args, AGENT_CODEX)
    report = ctx.engine.codex.import_memories(home, db_busy_timeout_s=args.wait)
    code = report_out(ctx, report, "memories", args.limit)
    if report.database_locked:
        ctx.stderr.write(f"memtui: error: {codex_db_path(codex_sqlite_home(home))}: "
                         f"{one_line(report.database_error or '')}; threads not imported "
                         "(notes were)\n")
        return CodexDbLocked.exit_code
    return code


def note(ctx: CliContext, args: argparse.Namespace) -> int:
    """``codex note TEXT --write``: a new ad-hoc note under Codex's naming rule."""
    home = agent_home(args, AGENT_CODEX)
    check_text(args.text, "a note", max_bytes=MAX_NOTE_BYTES)
    if not args.write:
        raise CodexWriteRefused(f"would add a note in {home.joinpath(*notes_dir_parts(home))}; "
                                f"{WRITE_HINT} (nothing was changed)")
    path = write_note(home, args.text)
    return ctx.answer({"path": str(path), "file_name": path.name, "written": True},
                      f"wrote note {one_line(str(path))}")


def _removed(result: ForgetResult, last: str = ",") -> str:
    return (f"{result.stage1_rows} stage-1 row(s), {result.job_rows} stage-1 job(s){last} "
            f"{len(result.summary_files)} rollout summary file(s)")


def _plan_words(result: ForgetResult) -> str:
    words = _removed(result, " and")
    if result.thread_found:
        words += ", mark the thread polluted"
    if result.consolidation_enqueued:
        words += ", queue Codex's consolidation"
    return words


def _check_found(result: ForgetResult, home: Path, thread_id: str) -> None:
    if result.found:
        return
    db_problems = [p for p in result.problems if p.path.endswith(".sqlite")]
    if db_problems and "not found" not in db_problems[0].reason:
        raise CodexError(f"{one_line(db_problems[0].reason)}; nothing was changed")
    raise NotFound(f"thread {thread_id!r} not found in {home}")


def forget(ctx: CliContext, args: argparse.Namespace) -> int:
    """``codex forget THREAD_ID --write``: forget one thread the way Codex forgets."""
    home = agent_home(args, AGENT_CODEX)
    codex = ctx.engine.codex
    if not args.write:
        plan = codex.plan_forget(home, args.thread_id)
        _check_found(plan, home, args.thread_id)
        raise CodexWriteRefused(f"would remove {_plan_words(plan)} of thread "
                                f"{args.thread_id}; {WRITE_HINT} (nothing was changed)",
                                plan=plan.to_json())
    result = codex.forget(home, args.thread_id, True, busy_timeout_s=args.wait)
    _check_found(result, home, args.thread_id)
    if ctx.json:
        return ctx.answer(result.to_json())
    ctx.say(f"forgot thread {args.thread_id}: removed {_removed(result)}")
    if result.marked_polluted or result.thread_found:
        ctx.say("marked polluted: Codex will not extract this thread again")
    if result.consolidation_enqueued:
        ctx.say("queued Codex's global consolidation (the row had been consolidated)")
    if result.still_in:
        files = ", ".join(Path(path).name for path in result.still_in)
        ctx.say(f"still holding its text until Codex's next consolidation: {files}", style="yellow")
    print_notes(ctx, map(str, result.problems))
    return 0


def export(ctx: CliContext, args: argparse.Namespace) -> int:
    """``codex export DIR [--home-layout]``: the store as a Codex memories folder."""
    check_export_target(args.dir)  # refuse before rendering anything
    plan = ctx.engine.codex.plan_export()
    path = ctx.engine.codex.write_plan(plan, args.dir, home_layout=args.home_layout,
                                       folder=args.codex_layout)
    if ctx.json:
        return ctx.answer({"path": str(path), "home_layout": args.home_layout,
                           "folder": args.codex_layout, **plan.to_json()})
    ctx.say(f"exported {plan.memories} memories to {one_line(str(path))}: {plan.groups} task "
            f"group(s), {plan.threads} thread(s), {plan.notes} note(s)")
    browse = path if args.home_layout else path.parent
    hint = "" if args.home_layout or path.name == "memories" else \
        " (Codex reads a folder named 'memories'; or export with --home-layout)"
    ctx.say(f"browse it with: memtui codex show --codex-home "
            f"{one_line(str(browse))}{hint}", style="dim")
    print_notes(ctx, plan.left_out)
    return 0


WAIT = arg("--wait", type=number_type(float, "a number of seconds",
                                      lambda n: 0 <= n <= MAX_WAIT_SECONDS,
                                      f"must be between 0 and {MAX_WAIT_SECONDS}"),
           default=None, metavar="SECONDS",
           help="how long to wait for Codex's database while a running Codex holds it locked")


CODEX_COMMANDS = (
    Command("show", "everything in the Codex home (read-only)", show,
            (LIMIT, WAIT)),
    Command("import", "stage-1 outputs and notes become memories", import_memories,
            (limit_arg("at most this many items"), WAIT)),
    Command("import-rollouts", "session rollouts become completed tasks", lambda ctx, args:
            report_out(ctx, ctx.engine.codex.import_rollouts(agent_home(args, AGENT_CODEX)),
                       "rollouts as tasks", args.limit),
            (limit_arg("at most this many rollouts"),)),
    Command("note", "add an ad-hoc note (needs --write)", note,
            (arg("text", help="the note's text"),
             arg("--write", action="store_true", help="really write into the Codex home"))),
    Command("forget", "forget one thread's memory (needs --write)", forget,
            (arg("thread_id", metavar="THREAD_ID", help="the Codex thread to forget"),
             arg("--write", action="store_true", help="really change the Codex home"), WAIT)),
    Command("export", "write the store as a Codex memories folder", export,
            (arg("dir", metavar="DIR", help="a new (or empty) folder"),
             arg("--home-layout", action="store_true",
                 help="write DIR/memories/... so DIR opens as a Codex home"),
             arg("--codex-layout", choices=EXPORT_FOLDERS, default=MEMORIES_DIR,
                 help="with --home-layout, the memories folder: memories (Codex before "
                      "0.169) or memories_v2 (Codex 0.169)"))),
)


TOP_LEVEL = (Group("codex", "browse, import, curate and export a Codex home", CODEX_COMMANDS,
                   (home_arg("codex"),)),)
