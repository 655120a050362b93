"""``Engine``: the one API the app, the command line, the worker and the service all use: a
store plus the acting user, each area of rules a sub-API created (and imported) on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memtui.engine.validation import check_id
from memtui.store.backend import Lazy

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


class Engine:
    """The store seen by one acting user, with every rule of the spec applied."""

    def __init__(self, store: StoreBackend, actor: str, client: str | None = None) -> None:
        self.store = store
        self.actor = check_id(actor, "user id")
        self.client = client
        """The program writing through this engine when it is not memtui itself (an MCP
        client's name, an agent's hook): audit entries of its writes name it."""

    # The sub-APIs (docs/ARCHITECTURE.md lists what each holds).
    identity: Lazy[IdentityApi] = Lazy("memtui.engine.identity", "IdentityApi")
    tasks: Lazy[TaskApi] = Lazy("memtui.engine.tasks", "TaskApi")
    settings: Lazy[SettingsApi] = Lazy("memtui.engine.settings", "SettingsApi")
    extraction: Lazy[ExtractionApi] = Lazy("memtui.engine.extraction", "ExtractionApi")
    injection: Lazy[InjectionApi] = Lazy("memtui.engine.injection", "InjectionApi")
    recall: Lazy[RecallApi] = Lazy("memtui.engine.recall", "RecallApi")
    staleness: Lazy[StalenessApi] = Lazy("memtui.engine.staleness", "StalenessApi")
    review: Lazy[ReviewApi] = Lazy("memtui.engine.review", "ReviewApi")
    codex: Lazy[CodexApi] = Lazy("memtui.engine.codex.api", "CodexApi")
    agents: Lazy[AgentsApi] = Lazy("memtui.engine.agents.interop", "AgentsApi")
    gate: Lazy[WriteGateApi] = Lazy("memtui.engine.agents.write_gate", "WriteGateApi")
    """Claude Code's memory writes held by the write gate."""
    maintenance: Lazy[MaintenanceApi] = Lazy("memtui.engine.maintenance", "MaintenanceApi")
    sessions: Lazy[SessionsApi] = Lazy("memtui.engine.sessions", "SessionsApi")

    def query_lane(self) -> Lane:
        """A stream of reads where each newer request interrupts the older one."""
        return self.store.lane()

    def audit_detail(self, detail: dict[str, Any]) -> dict[str, Any]:
        """An audit entry's detail, naming the client program when there is one."""
        return detail if self.client is None else {**detail, "client": self.client}

    def for_client(self, client: str | None) -> Engine:
        """The same store and user, writing for another program (``client``)."""
        return Engine(self.store, self.actor, client)
