"""Small helpers every command module shares: argument types and list output."""

from __future__ import annotations

import argparse
from typing import Any

from rich.table import Table
from rich.text import Text

from memtui.cli.context import CliContext


def positive_int(value: str) -> int:
    """An argparse type: a whole number of at least 1."""
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {value!r}") from None
    if number < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return number


def list_out(ctx: CliContext, items: list[Any], table: Table, empty: str) -> int:
    """Print a list: ``{"items", "count"}`` with --json, else the table (or ``empty``)."""
    if ctx.json:
        ctx.emit_json({"items": [item.to_json() for item in items], "count": len(items)})
    elif not items:
        ctx.console.print(Text(empty))
    else:
        ctx.console.print(table)
    return 0
