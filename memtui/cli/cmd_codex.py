"""Commands of this area are registered here (filled in by its issue)."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    """Add this area's commands."""
