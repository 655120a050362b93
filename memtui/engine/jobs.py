"""The names of the extraction jobs: what the app starts and the audit's ``auto_memory_run``
entries record as their ``kind`` (a small module: the app imports it at start)."""

from __future__ import annotations

ROUND = "round"
"""One bounded extraction round (``ExtractionApi.run_round``)."""
BACKFILL = "backfill"
"""Rounds until every past task was scanned once (``ExtractionApi.backfill``)."""
CONSOLIDATE = "consolidate"
"""Superseding duplicate active memories (``ExtractionApi.consolidate``)."""
