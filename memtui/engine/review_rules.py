"""The one rule that decides whether a new memory waits for review (``status_for_new``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from memtui.engine.settings import load_settings
from memtui.engine.validation import echo
from memtui.errors import InvalidInput
from memtui.store.models import SOURCES

if TYPE_CHECKING:
    from memtui.store.backend import StoreBackend

ACTIVE = "active"
PENDING = "pending"
REVIEW_SETTING = "review_new_memories"
USER_SOURCES = frozenset({"manual", "note"})
"""What the person writes themselves, in the app or the CLI: active at once."""
AGENT_SOURCES = frozenset({"auto", "import", "service", "mcp"})
"""What agents write (the extractor, imports, the socket service, MCP)."""


def check_source(source: object) -> str:
    """A known memory source, else InvalidInput naming the known ones."""
    if not isinstance(source, str) or source not in SOURCES:
        raise InvalidInput(f"unknown source {echo(source, 40)}: use one of {', '.join(SOURCES)}")
    return source


def is_agent_source(source: str) -> bool:
    """Whether memories from this source are an agent's (reviewed when review is on)."""
    return check_source(source) in AGENT_SOURCES


def status_for_new(store: StoreBackend, user_id: str, source: str,
                   settings: Mapping[str, Any] | None = None) -> str:
    """The status of a new memory ``user_id`` writes from ``source``: ``pending`` for an agent
    source while the user's ``review_new_memories`` is on, else ``active``."""
    if not is_agent_source(source):
        return ACTIVE
    values = settings if settings is not None else load_settings(store, user_id)
    return PENDING if values.get(REVIEW_SETTING) else ACTIVE
