"""Tool commands: ``redact``, ``doctor``, ``export``, ``import``, ``store copy``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from rich.text import Text

from memtui.cli.common import Command, Group, arg
from memtui.cli.context import CliContext
from memtui.cli.render import byte_size
from memtui.engine.maintenance import DoctorReport
from memtui.engine.validation import MAX_JSON_DEPTH, json_depth
from memtui.errors import InvalidInput, NotFound, StoreError
from memtui.private_files import private_replacement
from memtui.store.database import backend_name, check_store_owner

REDACT_MAX_LINE_BYTES = 16 * 1024 * 1024


def redact_command(ctx: CliContext, args: argparse.Namespace) -> int:
    """``redact [--jsonl]``: stdin to stdout with secrets replaced. The output never holds
    the original text: with ``--jsonl`` each object's ``text`` is replaced by the redacted
    text (as is ``redacted``), with ``--json`` the whole input is one
    ``{"redacted", "findings"}`` object."""
    from memtui.engine.redaction import findings_as_json, redact, scan

    if not args.jsonl:
        # The whole input at once: a secret can span lines (a PEM private key block).
        if ctx.json:
            whole = scan(sys.stdin.read())
            ctx.emit_json({"redacted": whole.text,
                           "findings": findings_as_json(whole.findings)})
        else:
            ctx.stdout.write(redact(sys.stdin.read()))
        return 0
    bad = 0
    for number, line in enumerate(sys.stdin, start=1):
        if not line.strip():
            continue
        try:
            if len(line) > REDACT_MAX_LINE_BYTES:
                raise ValueError("line too long")
            record = json.loads(line)
            if not isinstance(record, dict) or not isinstance(record.get("text"), str) \
                    or json_depth(record) > MAX_JSON_DEPTH:
                raise ValueError('each line must be an object with a "text" string')
        except (ValueError, RecursionError) as error:
            bad += 1
            ctx.stderr.write(f"memtui: line {number}: skipped ({str(error)[:80]})\n")
            continue
        result = scan(record["text"])
        record["text"] = record["redacted"] = result.text  # never echo the original text
        record["findings"] = findings_as_json(result.findings)
        ctx.stdout.write(json.dumps(record, ensure_ascii=False) + "\n")
    return 5 if bad else 0


def doctor_command(ctx: CliContext, args: argparse.Namespace) -> int:
    """``doctor [--repair] [--vacuum [--full]]``: exit 0 when healthy (and an asked-for
    vacuum finished), 1 with the list of problems (a store too damaged to open is reported
    as a problem too)."""
    if args.full and not args.vacuum:
        from memtui.cli.main import UsageError

        raise UsageError("doctor: --full goes with --vacuum (VACUUM FULL)")
    try:
        engine = ctx.engine
    except StoreError as error:
        report = DoctorReport(problems=[f"{backend_name(ctx.db_target)}: {error.message}"],
                              vacuum_asked=args.vacuum,
                              vacuum_skipped="the store cannot be opened")
    else:
        report = engine.maintenance.doctor(repair=args.repair, vacuum=args.vacuum,
                                           full=args.full)
    lines = [f"repaired: {line}" for line in report.repaired]
    if report.healthy:  # a database server by its URL without the password
        lines.append(f"{ctx.db_target if ctx.db_is_file else ctx.store.location}: healthy")
    ctx.answer(report.to_json(), *lines, *(f"problem: {problem}" for problem in report.problems),
               *(f"vacuum: {line}" for line in _vacuum_lines(report)))
    return 0 if report.finished else 1


def _vacuum_lines(report: DoctorReport) -> list[str]:
    result = report.vacuum
    lines = [] if report.vacuum_skipped is None else [f"skipped: {report.vacuum_skipped}"]
    if result is not None:
        lines += [*result.done, f"{byte_size(result.bytes_before)} before, "
                  f"{byte_size(result.bytes_after)} after"]
        lines += [] if result.pending is None else [f"not finished: {result.pending}"]
    return lines


def export_command(ctx: CliContext, args: argparse.Namespace) -> int:
    """``export --jsonl FILE [--all]``: what the acting user may read, as JSON Lines (``-``
    for stdout); ``--all``: a lossless backup of the whole store, for the OS user who owns
    the store file (exit 4 otherwise)."""
    everything = bool(args.all)
    if everything and ctx.db_is_file:  # before it is opened: a typo makes no store, another
        check_store_owner(ctx.db_path)  # user's file is not migrated (the engine checks too)
    if args.jsonl == "-":
        ctx.engine.maintenance.export_to(ctx.stdout, everything=everything)
        return 0
    target = Path(args.jsonl)
    if target.exists() and not args.force:
        raise InvalidInput(f"{target} exists; add --force to overwrite it")
    try:
        with private_replacement(target) as out:
            counts = ctx.engine.maintenance.export_to(out, everything=everything)
    except OSError as error:
        raise StoreError(f"{target}: cannot write ({error.strerror})") from None
    return ctx.answer({"file": str(target), "rows": counts},
                      f"exported {sum(counts.values())} rows to {target}")


def import_command(ctx: CliContext, args: argparse.Namespace) -> int:
    """``import --jsonl FILE [--merge]``: restore a backup, all or nothing. A store file that
    this command created is removed again when the import is refused."""
    source = Path(args.jsonl)
    try:
        handle = sys.stdin if args.jsonl == "-" else source.open(encoding="utf-8",
                                                                  errors="strict")
    except FileNotFoundError:
        raise NotFound(f"{source}: no such file") from None
    except OSError as error:
        raise InvalidInput(f"{source}: cannot read ({error.strerror})") from None
    new_store = ctx.db_is_file and not ctx.db_path.exists()
    try:
        report = ctx.engine.maintenance.import_lines(handle, merge=args.merge)
    except BaseException as error:
        if new_store:
            ctx.discard_new_store()
        if isinstance(error, UnicodeDecodeError):
            raise InvalidInput(f"{source}: not valid UTF-8") from None
        raise
    finally:
        if handle is not sys.stdin:
            handle.close()
    skipped = f", skipped {sum(report.skipped.values())} already present" if report.skipped else ""
    return ctx.answer(report.to_json(), f"imported {sum(report.loaded.values())} rows{skipped}")


def store_copy_command(ctx: CliContext, args: argparse.Namespace) -> int:
    """``store copy --from SRC --to DST``: the whole store at SRC into the empty store at DST
    (paths or postgresql:// URLs), checked by comparing exports before it commits."""
    from memtui.engine.store_copy import copy_store

    report = copy_store(args.source, args.destination, ctx.user)
    if ctx.json:
        ctx.emit_json(report.to_json())
    else:
        # one line, however long: the locations stay whole for copying
        ctx.console.print(Text(f"copied {report.total} rows from {report.source} to "
                               f"{report.destination} (checked: its export equals the "
                               "source's)"), soft_wrap=True)
    return 0


TOP_LEVEL = (
    Command("redact", "redact secrets from stdin to stdout", redact_command, (
        arg("--jsonl", action="store_true",
            help='one {"text"} object a line in; out the same object with "text" and '
                 '"redacted" holding the redacted text and "findings" (kind and span, never '
                 'the value)'),)),
    Command("doctor", "check the store's integrity and invariants", doctor_command, (
        arg("--repair", action="store_true", help="fix what is safe to fix"),
        arg("--vacuum", action="store_true",
            help="then give back the space of deleted rows and rewrite the pages that held "
                 "them (SQLite: VACUUM; PostgreSQL: VACUUM of the memory tables)"),
        arg("--full", action="store_true",
            help="with --vacuum: VACUUM FULL on PostgreSQL (rewrites the tables, locking them "
                 "meanwhile); SQLite's VACUUM always rewrites the whole file"))),
    Command("export", "what you may read as JSON Lines (--all: whole store)", export_command, (
        arg("--jsonl", required=True, metavar="FILE", help="the file to write (- for stdout)"),
        arg("--all", action="store_true",
            help="the whole store, every user's data: a lossless backup (only for the OS user "
                 "who owns the store file)"),
        arg("--force", action="store_true", help="overwrite an existing file"))),
    Command("import", "restore a JSON Lines backup", import_command, (
        arg("--jsonl", required=True, metavar="FILE", help="the backup to read (- for stdin)"),
        arg("--merge", action="store_true",
            help="add to a store that already has data, skipping what exists"))),
    Group("store", "whole stores: copy one into another", (Command(
        "copy", "copy a whole store into an empty one (SQLite paths or postgresql:// URLs, "
        "either way), checked by comparing exports", store_copy_command, (
            arg("--from", dest="source", required=True, metavar="SRC",
                help="the store to copy: a path or a postgresql:// URL (read, never changed)"),
            arg("--to", dest="destination", required=True, metavar="DST",
                help="an empty store: a new file, an empty memtui file, or an empty "
                     "PostgreSQL database"))),)),
)
