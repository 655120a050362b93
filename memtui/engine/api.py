"""``Engine``: the one API the app, the command line, the worker and the service all use: a
store plus the acting user, each area of rules a sub-API created (and imported) on first use.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any, Generic, TypeVar, cast, overload

from memtui.engine.validation import check_id

if TYPE_CHECKING:
    from memtui.engine.agents.interop import AgentsApi
    from memtui.engine.agents.write_gate import WriteGateApi
    from memtui.engine.codex.api import CodexApi
    from memtui.engine.extraction import ExtractionApi
    from memtui.engine.identity import IdentityApi
    from memtui.engine.injection import InjectionApi
    from memtui.engine.maintenance import MaintenanceApi
    from memtui.engine.recall import RecallApi
    from memtui.engine.review import ReviewApi
    from memtui.engine.sessions import SessionsApi
    from memtui.engine.settings import SettingsApi
    from memtui.engine.staleness import StalenessApi
    from memtui.engine.tasks import TaskApi
    from memtui.store.backend import Lane, StoreBackend

Area = TypeVar("Area")


class _Area(Generic[Area]):
    """An engine attribute holding one area's sub-API: its module imported and the sub-API
    made on first use, then kept on the engine (like ``functools.cached_property``)."""

    def __init__(self, module: str, name: str) -> None:
        self._module, self._name, self._attribute = module, name, ""

    def __set_name__(self, owner: type, attribute: str) -> None:
        self._attribute = attribute

    @overload
    def __get__(self, engine: None, owner: type) -> _Area[Area]: ...

    @overload
    def __get__(self, engine: Engine, owner: type) -> Area: ...

    def __get__(self, engine: Engine | None, owner: type) -> _Area[Area] | Area:
        if engine is None:
            return self
        area = getattr(import_module(self._module), self._name)(engine)
        engine.__dict__[self._attribute] = area  # read from the instance from now on
        return cast(Area, area)


class Engine:
    """The store seen by one acting user, with every rule of the spec applied."""

    def __init__(self, store: StoreBackend, actor: str, client: str | None = None) -> None:
        self.store = store
        self.actor = check_id(actor, "user id")
        self.client = client
        """The program writing through this engine when it is not memtui itself (an MCP
        client's name, an agent's hook): audit entries of its writes name it."""

    identity: _Area[IdentityApi] = _Area("memtui.engine.identity", "IdentityApi")
    """Projects, members, profiles, memories, context, audit."""
    tasks: _Area[TaskApi] = _Area("memtui.engine.tasks", "TaskApi")
    """Tasks, follow-ups, per-task flags, quota."""
    settings: _Area[SettingsApi] = _Area("memtui.engine.settings", "SettingsApi")
    """Auto-memory settings."""
    extraction: _Area[ExtractionApi] = _Area("memtui.engine.extraction", "ExtractionApi")
    """Extraction rounds, the extraction log, consolidation."""
    injection: _Area[InjectionApi] = _Area("memtui.engine.injection", "InjectionApi")
    """First-turn injection."""
    recall: _Area[RecallApi] = _Area("memtui.engine.recall", "RecallApi")
    """Interactions, recall, bundles, task transitions (what the service serves)."""
    staleness: _Area[StalenessApi] = _Area("memtui.engine.staleness", "StalenessApi")
    """Stale memories: cited code gone, unused for long; kept after a review."""
    review: _Area[ReviewApi] = _Area("memtui.engine.review", "ReviewApi")
    """The review inbox: pending memories, approve, reject."""
    codex: _Area[CodexApi] = _Area("memtui.engine.codex.api", "CodexApi")
    """Codex home interop: browse, import memories and rollouts, export, curate."""
    agents: _Area[AgentsApi] = _Area("memtui.engine.agents.interop", "AgentsApi")
    """Claude Code and Gemini CLI interop: import memories and transcripts, export."""
    gate: _Area[WriteGateApi] = _Area("memtui.engine.agents.write_gate", "WriteGateApi")
    """Claude Code's memory writes held by the write gate: the hook's answer, the inbox
    items, approve (writes the file), redo, reject."""
    maintenance: _Area[MaintenanceApi] = _Area("memtui.engine.maintenance", "MaintenanceApi")
    """Doctor, export, import."""
    sessions: _Area[SessionsApi] = _Area("memtui.engine.sessions", "SessionsApi")
    """Agent sessions recorded by the session hooks, turned into tasks by the worker."""

    def query_lane(self) -> Lane:
        """A stream of reads where each newer request interrupts the older one (search as
        you type): ``lane.begin()`` then the reads inside ``lane.reading(ticket)``."""
        return self.store.lane()

    def audit_detail(self, detail: dict[str, Any]) -> dict[str, Any]:
        """An audit entry's detail, naming the client program when there is one."""
        return detail if self.client is None else {**detail, "client": self.client}

    def for_client(self, client: str | None) -> Engine:
        """The same store and user, writing for another program (``client``: an agent's
        name, named in the audit entries of its writes)."""
        return Engine(self.store, self.actor, client)

    def for_user(self, actor: str) -> Engine:
        """The same store seen by another user (tests, the demo builder)."""
        return Engine(self.store, actor, self.client)
