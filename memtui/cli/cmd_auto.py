"""Commands for auto memory: settings, tasks, follow-ups, flags, quota, run, log, inject."""

from __future__ import annotations

import argparse
from typing import Any

from rich import box
from rich.table import Table
from rich.text import Text

from memtui.cli import render
from memtui.cli.common import Command, Group, arg, limit_arg, list_out, number_type
from memtui.cli.context import CliContext
from memtui.engine.reasons import REASON_WORDS
from memtui.engine.settings import parse_cli_pairs
from memtui.engine.task_flags import FLAG_WORDS, flag_word
from memtui.errors import InvalidInput
from memtui.store.models import TASK_STATUSES, LogEntry, Task
from memtui.textsafe import one_line, safe_text

TASK_PREVIEW_CHARS = 60


def _settings_out(ctx: CliContext, settings: dict[str, Any], probe: bool = False) -> int:
    status = ctx.engine.settings.endpoint_status() if probe else None
    rows = []
    for spec in ctx.engine.settings.specs():
        value = settings[spec.name]
        shown = "null" if value is None else str(value)
        if value != spec.default:
            shown += f" (default {spec.default if spec.default is not None else 'null'})"
        rows.append((spec.name, f"{shown} — {spec.meaning}"))
    if status:
        rows.append(("model endpoint", status))
    return ctx.answer(settings | ({"model_endpoint": status} if status else {}),
                      render.key_value_table(rows, title="Auto-memory settings"))


def task_detail(task: Task) -> Table:
    """All fields of one task (store text made safe)."""
    return render.key_value_table([
        ("id", task.id), ("project", task.project), ("user", task.user),
        ("status", task.status), ("parent", task.parent), ("started", task.started_at),
        ("finished", task.finished_at), ("cost (USD)", f"{task.cost_usd:.4f}"),
        ("continuation", "yes" if task.continuation else "no"),
        ("external context", "yes" if task.external_context else "no"),
        ("source", task.source), ("use memories", flag_word(task.use_memories)),
        ("generate memories", flag_word(task.generate_memories)),
        ("goal", task.goal), ("prompt", task.prompt), ("result", task.result),
    ], title=f"Task {safe_text(task.id)}")


def task_table(tasks: list[Task]) -> Table:
    """Tasks as a compact table readable at 80 columns."""
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False)
    render.add_id_column(table, "id", (task.id for task in tasks))
    table.add_column("project", no_wrap=True, max_width=14)
    table.add_column("status", no_wrap=True)
    table.add_column("finished", no_wrap=True)
    table.add_column("goal / prompt", overflow="fold", min_width=20)
    for task in tasks:
        table.add_row(safe_text(task.id), render.text(task.project), task.status,
                      render.short_time(task.finished_at)[5:] if task.finished_at else "—",
                      Text(one_line(task.goal or task.prompt, TASK_PREVIEW_CHARS)))
    return table


def task_add(ctx: CliContext, args: argparse.Namespace) -> int:
    """``task add --project ID --goal G --prompt P --result R --started T --finished T``."""
    task = ctx.engine.tasks.add_task(
        args.project, args.goal, args.prompt, args.result, args.started, args.finished,
        status=args.status, cost_usd=args.cost, parent=args.parent,
        continuation=args.continuation, external_context=args.external_context)
    return ctx.answer(task.to_json(), task.id)


def task_followup(ctx: CliContext, args: argparse.Namespace) -> int:
    """``task followup TASK --from TASK2 --message M``."""
    followup = ctx.engine.tasks.add_followup(args.task, args.from_task, args.message)
    return ctx.answer({"seq": followup.seq, "from_task": followup.from_task,
                       "to_task": followup.to_task, "message": followup.message,
                       "created_at": followup.created_at},
                      f"recorded a follow-up from {safe_text(followup.from_task)} to "
                      f"{safe_text(followup.to_task)}")


def task_flags(ctx: CliContext, args: argparse.Namespace) -> int:
    """``task flags TASK [--use on|off|follow] [--generate on|off|follow]``."""
    if args.use is None and args.generate is None:
        task = ctx.engine.tasks.get_task(args.task)
    else:
        task = ctx.engine.tasks.set_flags(args.task, use=args.use, generate=args.generate)
    return ctx.answer({"id": task.id, "use_memories": task.use_memories,
                       "generate_memories": task.generate_memories},
                      f"{safe_text(task.id)}: use {flag_word(task.use_memories)}, "
                      f"generate {flag_word(task.generate_memories)}")


def task_list(ctx: CliContext, args: argparse.Namespace) -> int:
    """``task list [--project ID] [--mine] [--status S] [--limit N]``."""
    tasks = ctx.engine.tasks.list_tasks(args.project, args.limit, mine=args.mine,
                                        status=args.status)
    return list_out(ctx, tasks, task_table(tasks),
                     "No tasks yet — record one with: memtui task add ...")


def task_show(ctx: CliContext, args: argparse.Namespace) -> int:
    """``task show TASK``."""
    task = ctx.engine.tasks.get_task(args.task)
    return ctx.answer(task.to_json(), task_detail(task))


def _quota_out(ctx: CliContext, status: Any) -> int:
    limit = "unlimited" if status.unlimited else f"{status.limit_usd:.2f} USD"
    if status.is_default:
        limit += " (default)"
    return ctx.answer(status.to_json(), render.key_value_table([
        ("monthly limit", limit), ("spent this month", f"{status.spent_usd:.2f} USD"),
        ("remaining", f"{status.remaining_percent:.1f}%")], title="Quota"))


def quota_set(ctx: CliContext, args: argparse.Namespace) -> int:
    """``quota set [--limit USD | --unlimited]``."""
    if args.limit is None and not args.unlimited:
        raise InvalidInput("give --limit USD or --unlimited")
    return _quota_out(ctx, ctx.engine.tasks.set_quota(args.limit, unlimited=args.unlimited))


def run(ctx: CliContext, args: argparse.Namespace) -> int:
    """``run [--force] [--backfill]``: one extraction round (or all due tasks), after turning
    the agent sessions the hooks recorded into tasks, as the worker's round does."""
    ctx.engine.sessions.process_waiting()
    auto = ctx.engine.extraction
    summary = auto.backfill(force=args.force) if args.backfill else auto.run_round(args.force)
    skipped = ", ".join(f"{REASON_WORDS.get(reason, reason)}: {count}"
                        for reason, count in sorted(summary.skipped.items()))
    return ctx.answer(summary.to_json(), render.key_value_table([
        ("scanned", summary.scanned), ("extracted", summary.extracted),
        ("superseded previous", summary.superseded),
        ("skipped", skipped or "0"), ("errors", summary.errors)],
        title="Extraction run" + (" (forced)" if args.force else "")))


def log_table(entries: list[LogEntry]) -> Table:
    """Log rows as a table readable at 80 columns."""
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False)
    render.add_id_column(table, "task", (entry.task_id for entry in entries))
    for column in ("project", "outcome", "why / memory", "at"):
        table.add_column(column, overflow="fold")
    for entry in entries:
        why = REASON_WORDS.get(entry.reason or "", entry.reason or "") if entry.reason \
            else (entry.memory_id or "")
        if entry.detail:
            why += f" — {entry.detail}"
        if entry.retry_at:
            why += f"; next try {render.short_time(entry.retry_at)}"
        if entry.forced:
            why += " (forced)"
        table.add_row(safe_text(entry.task_id), render.text(entry.project), entry.outcome,
                      render.text(why), render.short_time(entry.at)[5:])
    return table


def cost(ctx: CliContext, limit: int) -> int:
    """``log --cost``: the model cost ledger (tokens today and this month against the
    caps, then per day, round and task)."""
    ledger = ctx.engine.extraction.cost(limit)
    if ctx.json:
        return ctx.answer(ledger)
    ctx.console.print(render.key_value_table([
        (span, f"{ledger[span]['calls']} calls, {ledger[span]['tokens_in']:,} tokens in, "
               f"{ledger[span]['tokens_out']:,} out (cap {ledger[span]['cap']:,})")
        for span in ("today", "month")], title="Model cost ledger"))
    for name in ("day", "round", "task"):
        table = Table(box=box.SIMPLE_HEAD, pad_edge=False, title=f"per {name}")
        for column in (name, "calls", "tokens in", "tokens out", "last call"):
            table.add_column(column, overflow="fold")
        for row in ledger[f"by_{name}"]:
            table.add_row(safe_text(row["key"]), str(row["calls"]), f"{row['tokens_in']:,}",
                          f"{row['tokens_out']:,}", render.short_time(row["last_at"]))
        if ledger[f"by_{name}"]:
            ctx.console.print(table)
    return 0


def log(ctx: CliContext, args: argparse.Namespace) -> int:
    """``log [--limit N] [--cost]``: the extraction log of the user's tasks, or the model
    cost ledger."""
    if args.cost:
        return cost(ctx, args.limit)
    entries = ctx.engine.extraction.log(args.limit)
    return list_out(ctx, entries, log_table(entries),
                     "The extraction log is empty — run a round with: memtui run")


def inject(ctx: CliContext, args: argparse.Namespace) -> int:
    """``inject TASK [--apply]``: the first-turn text (a preview unless ``--apply``)."""
    result = ctx.engine.injection.prepare_first_turn(args.task, apply=args.apply)
    state = "injected" if result.injected else f"nothing injected ({result.reason})"
    applied = " — applied" if args.apply and result.injected else ""
    goal = [Text("goal:", style="bold"), Text(safe_text(result.goal))] if result.goal else []
    return ctx.answer(result.to_json(), f"{safe_text(args.task)}: {state}{applied}", *goal,
                      Text("prompt:", style="bold"), safe_text(result.prompt))


_usd = number_type(float, "a number of USD")
LIMIT = limit_arg("at most this many rows (default 50)")
TASK_ID = arg("task", help="the task's id")

SETTINGS_COMMANDS = (
    Command("show", "your settings (with defaults)",
            lambda ctx, _args: _settings_out(ctx, ctx.engine.settings.get(), probe=True)),
    Command("set", "change settings: KEY=VALUE ... (all or nothing)", lambda ctx, args:
            _settings_out(ctx, ctx.engine.settings.set_many(parse_cli_pairs(args.pairs))),
            (arg("pairs", nargs="+", metavar="KEY=VALUE",
                 help="settings to change (see settings show)"),)),
)
TASK_COMMANDS = (
    Command("add", "record a task; prints its id", task_add, (
        arg("--project", required=True, help="the task's project"),
        arg("--goal", default="", help="what the task set out to do"),
        arg("--prompt", default="", help="the request the task was given"),
        arg("--result", default="", help="what the task produced"),
        arg("--started", metavar="TIME", help="ISO-8601 start time"),
        arg("--finished", metavar="TIME", help="ISO-8601 finish time"),
        arg("--status", default="completed", help=", ".join(TASK_STATUSES)),
        arg("--cost", type=_usd, default=0.0, metavar="USD",
            help="what the task cost in US dollars"),
        arg("--parent", metavar="TASK", help="the coordinator this is a sub-task of"),
        arg("--continuation", action="store_true", help="a continuation or resume"),
        arg("--external-context", action="store_true",
            help="the task used MCP tools or web search"))),
    Command("followup", "record a message between tasks", task_followup, (
        arg("task", help="the task receiving the message"),
        arg("--from", dest="from_task", required=True, metavar="TASK2",
            help="the task the message came from"),
        arg("--message", required=True, help="the message's text"))),
    Command("flags", "per-task override of use/generate", task_flags, (
        TASK_ID,
        arg("--use", choices=FLAG_WORDS, help="use memories in this task (follow: the setting)"),
        arg("--generate", choices=FLAG_WORDS,
            help="make memories from this task (follow: the setting)"))),
    Command("list", "visible tasks, newest first", task_list, (
        arg("--project", help="only this project's tasks"),
        arg("--mine", action="store_true", help="your own tasks only"),
        arg("--status", help=", ".join(TASK_STATUSES)),
        limit_arg("at most this many tasks (default 50)"))),
    Command("show", "one task", task_show, (TASK_ID,)),
)
TOP_LEVEL = (
    Group("settings", "auto-memory settings", SETTINGS_COMMANDS),
    Group("task", "tasks, follow-ups and per-task flags", TASK_COMMANDS),
    Group("quota", "your monthly quota", (
        Command("set", "set the monthly limit", quota_set, (
            arg("--limit", type=_usd, metavar="USD", help="the monthly limit in US dollars"),
            arg("--unlimited", action="store_true", help="no monthly limit")), exclusive=True),
        Command("show", "limit, spend and what is left",
                lambda ctx, _args: _quota_out(ctx, ctx.engine.tasks.quota_status())))),
    Command("run", "one extraction round for your tasks", run, (
        arg("--force", action="store_true", help="skip the idle and shape gates"),
        arg("--backfill", action="store_true",
            help="work through every due task, not one bounded round"))),
    Command("log", "the extraction log of your tasks", log, (
        LIMIT, arg("--cost", action="store_true",
                   help="the model cost ledger: tokens per day, round and task, and the caps"))),
    Command("inject", "the first-turn text a task would receive", inject, (
        TASK_ID, arg("--apply", action="store_true",
                     help="perform the injection (audited, usage counts bumped)"))),
)

