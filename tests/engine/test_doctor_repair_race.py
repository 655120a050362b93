"""``doctor --repair`` rewrites a value only if it is still the value it checked: a row that a
writer changed between the check and the repair keeps the writer's value (the next check
looks at it again), it is never overwritten with a fix of the older value."""

from __future__ import annotations

import pytest

from memtui.engine.api import Engine
from memtui.engine.maintenance import MaintenanceApi
from memtui.store.database import Store

TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


def _profile_with_secret(store: Store, engine: Engine) -> None:
    engine.identity.update_profile(display_name="Alice")
    with store.transaction():  # as an older memtui (or a hand edit) left it
        store.execute("UPDATE profiles SET display_name = ? WHERE user_id = 'alice'",
                      (f"Alice {TOKEN}",))


def test_repair_keeps_a_value_changed_after_the_check(store: Store,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    engine = Engine(store, "alice")
    _profile_with_secret(store, engine)
    original = MaintenanceApi._check
    calls = {"n": 0}

    def check_then_write(self: MaintenanceApi):  # type: ignore[no-untyped-def]
        result = original(self)
        calls["n"] += 1
        if calls["n"] == 1:  # a writer changes the row while doctor works
            engine.identity.update_profile(display_name="Alice Liddell")
        return result

    monkeypatch.setattr(MaintenanceApi, "_check", check_then_write)
    engine.maintenance.doctor(repair=True)
    assert engine.identity.profile().display_name == "Alice Liddell"
    assert engine.maintenance.doctor().healthy


def test_repair_still_fixes_an_unchanged_value(store: Store) -> None:
    engine = Engine(store, "alice")
    _profile_with_secret(store, engine)
    report = engine.maintenance.doctor(repair=True)
    assert report.healthy, report.problems
    assert TOKEN not in engine.identity.profile().display_name
