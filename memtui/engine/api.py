"""``Engine``: the one API the app, the command line, the worker and the service all use: a
store plus the acting user, each area of rules a sub-API created (and imported) on first use.
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, Any

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


class Engine:
    """The store seen by one acting user, with every rule of the spec applied."""

    def __init__(self, store: StoreBackend, actor: str, client: str | None = None) -> None:
        self.store = store
        self.actor = check_id(actor, "user id")
        self.client = client
        """The program writing through this engine when it is not memtui itself (an MCP
        client's name, an agent's hook): audit entries of its writes name it."""

    @cached_property
    def identity(self) -> IdentityApi:
        """Projects, members, profiles, memories, context, audit."""
        from memtui.engine.identity import IdentityApi

        return IdentityApi(self)

    @cached_property
    def tasks(self) -> TaskApi:
        """Tasks, follow-ups, per-task flags, quota."""
        from memtui.engine.tasks import TaskApi

        return TaskApi(self)

    @cached_property
    def settings(self) -> SettingsApi:
        """Auto-memory settings."""
        from memtui.engine.settings import SettingsApi

        return SettingsApi(self)

    @cached_property
    def extraction(self) -> ExtractionApi:
        """Extraction rounds, the extraction log, consolidation."""
        from memtui.engine.extraction import ExtractionApi

        return ExtractionApi(self)

    @cached_property
    def injection(self) -> InjectionApi:
        """First-turn injection."""
        from memtui.engine.injection import InjectionApi

        return InjectionApi(self)

    @cached_property
    def recall(self) -> RecallApi:
        """Interactions, recall, bundles, task transitions (what the service serves)."""
        from memtui.engine.recall import RecallApi

        return RecallApi(self)

    @cached_property
    def staleness(self) -> StalenessApi:
        """Stale memories: cited code gone, unused for long; kept after a review."""
        from memtui.engine.staleness import StalenessApi

        return StalenessApi(self)

    @cached_property
    def review(self) -> ReviewApi:
        """The review inbox: pending memories, approve, reject."""
        from memtui.engine.review import ReviewApi

        return ReviewApi(self)

    @cached_property
    def codex(self) -> CodexApi:
        """Codex home interop: browse, import memories and rollouts, export, curate."""
        from memtui.engine.codex.api import CodexApi

        return CodexApi(self)

    @cached_property
    def agents(self) -> AgentsApi:
        """Claude Code and Gemini CLI interop: import memories and transcripts, export."""
        from memtui.engine.agents.interop import AgentsApi

        return AgentsApi(self)

    @cached_property
    def gate(self) -> WriteGateApi:
        """Claude Code's memory writes held by the write gate: the hook's answer, the inbox
        items, approve (writes the file), redo, reject."""
        from memtui.engine.agents.write_gate import WriteGateApi

        return WriteGateApi(self)

    @cached_property
    def maintenance(self) -> MaintenanceApi:
        """Doctor, export, import."""
        from memtui.engine.maintenance import MaintenanceApi

        return MaintenanceApi(self)

    def query_lane(self) -> Lane:
        """A stream of reads where each newer request interrupts the older one (search as
        you type): ``lane.begin()`` then the reads inside ``lane.reading(ticket)``."""
        return self.store.lane()

    @cached_property
    def sessions(self) -> SessionsApi:
        """Agent sessions recorded by the session hooks, turned into tasks by the worker."""
        from memtui.engine.sessions import SessionsApi

        return SessionsApi(self)

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
