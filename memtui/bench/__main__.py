"""``python -m memtui.bench``: every speed bar in one run (docs/performance.md).

    python -m memtui.bench [--size N] [--db PATH] [--seed S] [--quick] [--json]
                           [--pg URL [--pg-only]]
    python -m memtui.bench --generate N (--db PATH | --pg URL) [--seed S]

Exit status 1 when a bar is missed.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from functools import partial
from pathlib import Path

from memtui.bench.generate import DEFAULT_SEED, DEFAULT_SIZE, generate_store
from memtui.bench.runner import SECTIONS, Options, format_table, rows_json, run
from memtui.bench.timing import timed

QUICK_SIZE = 100_000


def build_parser() -> argparse.ArgumentParser:
    """The command line."""
    parser = argparse.ArgumentParser(prog="python -m memtui.bench",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--generate", type=int, metavar="N",
                        help="only write a generated store of N memories to --db")
    parser.add_argument("--size", type=int, metavar="N",
                        help=f"memories in the store (default {DEFAULT_SIZE:,}; "
                             f"{QUICK_SIZE:,} with --quick)")
    parser.add_argument("--db", type=Path, metavar="PATH",
                        help="use (or, if missing, generate) this store instead of the cache")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--quick", action="store_true",
                        help="fewer runs and smaller workloads (a smoke run, not the numbers)")
    parser.add_argument("--only", action="append", choices=SECTIONS,
                        help="run only these sections (repeatable)")
    parser.add_argument("--codex-rollouts", type=int, default=5_000, metavar="N",
                        help="rollouts in the generated sessions folder of the codex row")
    parser.add_argument("--pg", metavar="URL",
                        help="a PostgreSQL server URL where the benchmark may create databases: "
                             "PostgreSQL rows beside the SQLite ones (default: $MEMTUI_BENCH_PG)")
    parser.add_argument("--pg-only", action="store_true",
                        help="only the PostgreSQL rows (needs --pg or $MEMTUI_BENCH_PG)")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark (or only generate a store)."""
    from memtui.bench.postgres import BENCH_PG_ENV

    parser = build_parser()
    args = parser.parse_args(argv)
    pg = args.pg or os.environ.get(BENCH_PG_ENV) or None
    say = partial(print, file=sys.stderr, flush=True)
    if args.pg_only and pg is None:
        parser.error(f"--pg-only needs --pg URL or ${BENCH_PG_ENV}")
    if args.generate is not None and args.db is None and args.pg:
        from memtui.bench.postgres import cached_pg_store

        took, (url, was_cached) = timed(lambda: cached_pg_store(
            args.pg, args.generate, args.seed,
            progress=lambda done, n: say(f"loaded {done:,}/{n:,}")))
        say(f"{'already there' if was_cached else 'loaded'}: "
            f"{url.split('?')[0].rsplit('/', 1)[-1]} in {took:.1f} s")
        return 0
    if args.generate is not None:
        if args.db is None:
            parser.error("--generate needs --db PATH (or --pg URL)")
        took, result = timed(lambda: generate_store(
            args.db, args.generate, args.seed,
            progress=lambda done, n: say(f"generated {done:,}/{n:,}")))
        say(f"wrote {result.path} in {took:.1f} s: {result.counts}")
        return 0
    size = args.size or (QUICK_SIZE if args.quick else DEFAULT_SIZE)
    options = Options(size=size, seed=args.seed, db=args.db, quick=args.quick,
                      only=tuple(args.only or ()), progress=say,
                      codex_rollouts=args.codex_rollouts, pg=pg, pg_only=args.pg_only)
    took, rows = timed(lambda: run(options))
    if args.json:
        print(json.dumps({"size": size, "seed": args.seed, "quick": args.quick,
                          "seconds": round(took, 1),
                          "rows": rows_json(rows)}, indent=2, default=str))
    else:
        print(f"memtui benchmark: {size:,} memories, seed "
              f"{args.seed}{', quick' if args.quick else ''} ({took:.0f} s)\n")
        print(format_table(rows))
    return 0 if all(row.ok is not False for row in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
