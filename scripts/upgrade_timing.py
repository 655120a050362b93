"""Time the upgrade of a big store made by an older schema (the cost of the migrations a
release adds, on the data people already have).

    python scripts/upgrade_timing.py make --schema 2 -n 200000 --db /tmp/old.db
    python scripts/upgrade_timing.py upgrade --db /tmp/old.db [--keep]

``make`` writes a store with the bench generator's rows (``memtui.bench.generate``) while
only the migrations up to ``--schema`` exist, so the file is exactly what that schema's
code made. ``upgrade`` copies the file (``--keep``: upgrades it in place), opens the copy
with the current code -- which runs every missing migration -- and prints the seconds the
open took, the schema version before and after, and the load average.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import time
from pathlib import Path
from unittest import mock

from memtui.bench.generate import generate_store
from memtui.store import database
from memtui.store.schema import MIGRATIONS


def make(schema: int, n: int, path: Path) -> None:
    """A generated store at ``schema``."""
    older = tuple(item for item in MIGRATIONS if item[0] <= schema)
    with mock.patch.object(database, "MIGRATIONS", older), \
            mock.patch.object(database, "LATEST_VERSION", older[-1][0]):
        result = generate_store(path, n)
    print(f"made {result.path} at schema {schema}: {result.counts} in {result.seconds:.1f} s")


def _version(path: Path) -> int:
    conn = sqlite3.connect(path)
    try:
        return int(conn.execute("PRAGMA user_version").fetchone()[0])
    finally:
        conn.close()


def upgrade(path: Path, keep: bool) -> None:
    """Open (and so upgrade) a copy of the store; print how long it took."""
    target = path
    if not keep:
        target = path.with_name(path.name + ".upgrading")
        for suffix in ("", "-wal", "-shm"):
            Path(f"{target}{suffix}").unlink(missing_ok=True)
        shutil.copyfile(path, target)
    before = _version(target)
    load = os.getloadavg()
    began = time.perf_counter()
    store = database.open_store(target)
    seconds = time.perf_counter() - began
    after = store.schema_version()
    rows = store.execute("SELECT count(*) FROM memories").fetchone()[0]
    store.close()
    print(f"upgraded {target} ({rows} memories) from schema {before} to {after} in "
          f"{seconds:.2f} s; load average before {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}, "
          f"after {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


def main() -> None:
    """The command line (see the module doc)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    made = sub.add_parser("make", help="generate a store at an older schema")
    made.add_argument("--schema", type=int, required=True)
    made.add_argument("-n", type=int, required=True, help="memories to generate")
    made.add_argument("--db", type=Path, required=True)
    upgraded = sub.add_parser("upgrade", help="time opening (upgrading) a copy of a store")
    upgraded.add_argument("--db", type=Path, required=True)
    upgraded.add_argument("--keep", action="store_true", help="upgrade the file in place")
    args = parser.parse_args()
    if args.command == "make":
        make(args.schema, args.n, args.db)
    else:
        upgrade(args.db, args.keep)


if __name__ == "__main__":
    main()
