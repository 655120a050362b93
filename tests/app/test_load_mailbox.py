"""``LoadMailbox``: the newest load request for a list's loader thread, and the loader's
waits, which end the moment a newer request comes (no polling)."""

from __future__ import annotations

import threading

from memtui.app.widgets.load_mailbox import LoadMailbox

SAFETY_TIMEOUT_S = 30
"""A wait that should end at once gives up after this long (only if the code is broken)."""


def _in_thread(work) -> tuple[threading.Thread, list[object]]:  # noqa: ANN001
    """Run ``work`` in a thread; its result lands in the list."""
    result: list[object] = []
    thread = threading.Thread(target=lambda: result.append(work()), daemon=True)
    thread.start()
    return thread, result


def _ended(thread: threading.Thread, result: list[object]) -> list[object]:
    """What the thread's work answered, once the thread ended (it must, within the safety
    timeout)."""
    thread.join(SAFETY_TIMEOUT_S)
    assert not thread.is_alive()
    return result


def test_a_put_replaces_the_request_still_waiting() -> None:
    box: LoadMailbox[str] = LoadMailbox()
    box.put("r")
    box.put("ru")
    box.put("ruf")
    assert box.take(0) == "ruf"  # the older ones were never started
    assert box.take(0) is None  # nothing waits: the time ran out


def test_take_waits_for_a_put_from_another_thread() -> None:
    box: LoadMailbox[str] = LoadMailbox()
    thread, result = _in_thread(lambda: box.take(SAFETY_TIMEOUT_S))
    box.put("ru")
    assert _ended(thread, result) == ["ru"]


def test_close_ends_the_loader_at_once_and_drops_what_waits() -> None:
    box: LoadMailbox[str] = LoadMailbox()
    thread, result = _in_thread(lambda: box.take(SAFETY_TIMEOUT_S))
    box.close()
    assert _ended(thread, result) == [None]
    box.put("late")  # a put after the close is dropped
    assert box.closed and box.take(0) is None and box.quiet_for(0) is False


def _waiting_in(box: LoadMailbox[str], until: threading.Event | None = None,
                ) -> tuple[threading.Thread, list[object], list[int]]:
    """A thread in ``box.quiet_for`` (up to the safety timeout, ``until`` its condition),
    returned once it waits: it has looked at its condition, under the box's lock, which it
    only lets go of by waiting. Also how many times it looked."""
    looks: list[int] = []
    looked = threading.Event()

    def condition() -> bool:
        looks.append(1)
        looked.set()
        return until is not None and until.is_set()

    thread, result = _in_thread(lambda: box.quiet_for(SAFETY_TIMEOUT_S, condition))
    assert looked.wait(SAFETY_TIMEOUT_S)
    with box._changed:  # taken once the thread waits
        pass
    return thread, result, looks


def test_a_wait_ends_false_the_moment_a_newer_request_comes() -> None:
    box: LoadMailbox[str] = LoadMailbox()
    thread, result, _ = _waiting_in(box)
    assert thread.is_alive()  # waiting: nothing came yet
    box.put("ru")
    assert _ended(thread, result) == [False]
    assert box.take(0) == "ru"  # the newer request is still there for the loader


def test_a_wait_ends_false_when_the_box_closes() -> None:
    box: LoadMailbox[str] = LoadMailbox()
    thread, result = _in_thread(lambda: box.quiet_for(SAFETY_TIMEOUT_S))
    box.close()
    assert _ended(thread, result) == [False]


def test_a_wait_for_a_condition_ends_true_when_woken_with_it_met() -> None:
    box: LoadMailbox[str] = LoadMailbox()
    painted = threading.Event()
    thread, result, looks = _waiting_in(box, painted)
    box.wake()  # not met yet: it looks again and goes on waiting
    for _ in range(SAFETY_TIMEOUT_S * 1000):
        if len(looks) >= 2:
            break
        thread.join(0.001)
    with box._changed:
        pass
    assert len(looks) == 2 and thread.is_alive() and result == []
    painted.set()
    box.wake()
    assert _ended(thread, result) == [True] and len(looks) == 3


def test_a_quiet_wait_runs_out_true() -> None:
    box: LoadMailbox[str] = LoadMailbox()
    assert box.quiet_for(0) is True
    assert box.quiet_for(0.001, lambda: False) is True  # the time ran out, nothing came
    box.put("r")
    assert box.quiet_for(0) is False and not box.idle


def test_idle_means_nothing_waits_and_nothing_runs() -> None:
    box: LoadMailbox[str] = LoadMailbox()
    assert box.idle
    box.put("r")
    assert not box.idle  # waiting
    assert box.take(0) == "r"
    assert not box.idle  # running: the loader took it
    assert box.take(0) is None  # the loader asks for the next: the last one is done
    assert box.idle
