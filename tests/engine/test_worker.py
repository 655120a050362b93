"""The background loop: rounds on a timer and on demand, events, errors, clean stop."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest
from fixtures_auto import Team, add_done, make_team

from memtui.engine.api import Engine
from memtui.engine.extraction import BATCH_SIZE, ExtractionApi
from memtui.engine.worker import IDLE, STOPPED, BackgroundLoop, LoopEvent
from memtui.store.database import Store, open_store
from memtui.store.timeutil import FixedClock

WAIT_S = 30.0
"""How long a test waits for the loop's event (a bound for a stuck loop, not a speed bar)."""


@pytest.fixture
def team(store: Store, clock: FixedClock, engine_for: Callable[[str], Engine]) -> Team:
    """alice owns web and api (generate and use on)."""
    return make_team(store, clock, engine_for)


class Recorder:
    """Collects events; lets a test wait for one kind."""

    def __init__(self) -> None:
        self.events: list[LoopEvent] = []
        self._cond = threading.Condition()

    def __call__(self, event: LoopEvent) -> None:
        with self._cond:
            self.events.append(event)
            self._cond.notify_all()

    def wait_for(self, kind: str, count: int = 1) -> None:
        with self._cond:
            assert self._cond.wait_for(lambda: self.kinds().count(kind) >= count, WAIT_S), \
                self.kinds()

    def kinds(self) -> list[str]:
        return [e.kind for e in self.events]


def test_run_once_reports_and_updates_state(team: Team) -> None:
    add_done(team.alice, team.clock)
    recorder = Recorder()
    loop = BackgroundLoop(team.store, "alice", interval_s=None, on_event=recorder)
    summary = loop.run_once()
    assert summary is not None and summary.extracted == 1
    assert recorder.kinds() == ["started", "progress", "finished"]
    assert recorder.events[1].done == recorder.events[1].total == 1
    assert recorder.events[-1].summary is summary
    state = loop.state
    assert state.status == IDLE and state.runs == 1 and state.last_summary is summary
    assert state.last_run_at == "2026-12-01T09:00:00.000Z" and state.last_error is None
    assert state.to_json()["last_summary"]["extracted"] == 1


def test_run_once_with_force_passes_it_to_the_round(team: Team) -> None:
    task = add_done(team.alice, team.clock, finished_ago=0)  # not idle: only force takes it
    recorder = Recorder()
    loop = BackgroundLoop(team.store, "alice", interval_s=None, on_event=recorder)
    summary = loop.run_once(force=True)
    assert summary is not None and summary.forced and summary.extracted == 1
    assert all(event.forced for event in recorder.events)
    entry = team.store.tasks.get_log(task.id)
    assert entry is not None and entry.forced


def test_loop_runs_on_a_timer(team: Team) -> None:
    add_done(team.alice, team.clock)
    recorder = Recorder()
    loop = BackgroundLoop(team.store, "alice", interval_s=0.01, on_event=recorder)
    loop.start()
    try:
        recorder.wait_for("finished")
        finished = next(e for e in recorder.events if e.kind == "finished")
        assert not finished.forced and finished.summary.extracted == 1
    finally:
        assert loop.stop() and not loop.running
    assert recorder.kinds()[-1] == "stopped" and loop.state.status == STOPPED


def test_a_failing_round_is_reported_and_the_loop_goes_on(
        team: Team, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = {"n": 0}
    real = ExtractionApi.run_round
    checked = threading.Event()

    def flaky(self: ExtractionApi, *args: object, **kwargs: object) -> object:
        calls["n"] += 1
        if calls["n"] == 1:
            raise RuntimeError("store on fire")
        checked.wait(WAIT_S)  # the next round's result must not replace the error unseen
        return real(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(ExtractionApi, "run_round", flaky)
    recorder = Recorder()
    loop = BackgroundLoop(team.store, "alice", interval_s=0.01, on_event=recorder)
    loop.start()
    try:
        recorder.wait_for("error")
        assert "store on fire" in (loop.state.last_error or "")
        checked.set()
        recorder.wait_for("finished")
        assert loop.state.last_error is None and loop.state.runs >= 2
    finally:
        checked.set()
        loop.stop()


def test_a_broken_listener_does_not_stop_the_loop(team: Team) -> None:
    def listener(_event: LoopEvent) -> None:
        raise ValueError("bad listener")

    loop = BackgroundLoop(team.store, "alice", interval_s=None, on_event=listener)
    assert loop.run_once() is not None
    assert loop.run_once() is not None


def test_stop_lands_between_transactions(team: Team) -> None:
    for i in range(BATCH_SIZE * 4):
        add_done(team.alice, team.clock, goal=f"goal {i}")
    stopper: dict[str, BackgroundLoop] = {}

    def on_event(event: LoopEvent) -> None:
        if event.kind == "progress" and event.done == BATCH_SIZE:
            threading.Thread(target=stopper["loop"].stop).start()
            threading.Event().wait(0.2)  # let stop() set its flag before the next batch

    loop = BackgroundLoop(team.store, "alice", interval_s=0.01, on_event=on_event)
    stopper["loop"] = loop
    loop.start()
    for _ in range(200):
        if not loop.running:
            break
        threading.Event().wait(0.05)
    assert not loop.running
    memories = team.store.execute("SELECT count(*) FROM memories").fetchone()[0]
    logged = team.store.execute("SELECT count(*) FROM extraction_log").fetchone()[0]
    assert memories == logged and memories % BATCH_SIZE == 0 and memories < BATCH_SIZE * 4
    summary = loop.state.last_summary
    assert summary is not None and summary.stopped and summary.scanned == memories


def test_loop_with_a_store_factory_opens_and_closes_its_own(team: Team, store_target: str,
                                                            clock: FixedClock) -> None:
    add_done(team.alice, team.clock)
    opened: list[Store] = []

    def factory() -> Store:
        opened.append(open_store(store_target, clock=clock))
        return opened[-1]

    recorder = Recorder()
    loop = BackgroundLoop(factory, "alice", interval_s=0.01, on_event=recorder)
    loop.start()
    recorder.wait_for("finished")
    assert loop.stop()
    assert len(opened) == 1
    with pytest.raises(Exception, match="closed"):
        opened[0].execute("SELECT 1")
    assert team.store.execute("SELECT count(*) FROM memories").fetchone()[0] == 1


def test_bad_interval() -> None:
    with pytest.raises(ValueError):
        BackgroundLoop(lambda: None, "alice", interval_s=0)  # type: ignore[arg-type,return-value]
