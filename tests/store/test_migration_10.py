"""Migration 10 (``project_members.accepted``): a store made before it opens on each backend;
a project's creator still gets it for their folders, a membership made before it counts as
accepted (a team keeps working through the upgrade), one given after it waits for its member,
and the column holds 0 or 1 only."""

from __future__ import annotations

from pathlib import Path

import pytest
from pg_support import store_location

from memtui.engine.api import Engine
from memtui.store import database
from memtui.store.database import open_store
from memtui.store.postgres import store as pg_store
from memtui.store.schema import LATEST_VERSION, MIGRATIONS


def test_memberships_made_before_it_count_as_accepted(
        backend: str, request: pytest.FixtureRequest, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    target = store_location(backend, request, tmp_path)
    with monkeypatch.context() as patch:
        older = tuple(m for m in MIGRATIONS if m[0] < 10)
        patch.setattr(database, "MIGRATIONS", older)
        patch.setattr(database, "LATEST_VERSION", 9)
        patch.setattr(pg_store, "PG_MIGRATIONS",
                      tuple(m for m in pg_store.PG_MIGRATIONS if m[0] < 10))
        old = open_store(target)
        alice = Engine(old, "alice")
        alice.identity.create_project("web", root=str(tmp_path))
        alice.identity.set_member("web", "bob", "member")
        assert old.schema_version() == 9
        old.close()
    store = open_store(target)
    try:
        assert store.schema_version() == LATEST_VERSION
        alice, bob = Engine(store, "alice"), Engine(store, "bob")
        assert alice.identity.project_for_path(tmp_path).id == "web"
        assert bob.identity.project_for_path(tmp_path).id == "web"
        assert bob.identity.role("web") == "member"  # what bob may do is unchanged
        alice.identity.set_member("web", "carol", "member")  # after it: an invitation
        carol = Engine(store, "carol")
        assert carol.identity.project_for_path(tmp_path) is None
        assert carol.identity.accept_project("web")
        assert carol.identity.project_for_path(tmp_path).id == "web"
        with pytest.raises(Exception, match="(?i)check"), store.transaction():
            store.execute("UPDATE project_members SET accepted = 2 WHERE user_id = 'bob'")
    finally:
        store.close()
