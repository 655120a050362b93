"""``IdentityApi.narrowed_rows``: a narrowed search's first rows worked out from the rows in
hand are exactly the rows its own query reads first, on SQLite; never a guess (non-ASCII
text, another list, a widened search, PostgreSQL)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memtui.engine.api import Engine
from memtui.engine.identity import NarrowedRows

EngineFor = Callable[[str], Engine]
WORDS = ["pytest fixture", "pytest file", "staging cluster", "migrate invoice", "fix it",
         "Pytest-Fixtures run", "prefers small diffs", "in invoice", "fi", "pytests"]
PAGE = 50


@pytest.fixture
def alice(engine_for: EngineFor) -> Engine:
    """alice with user memories mixing the words above, newest last added."""
    engine = engine_for("alice")
    for number in range(60):
        engine.identity.add_memory(f"{WORDS[number % len(WORDS)]} {number}", "fact")
    return engine


@pytest.mark.sqlite_only
@pytest.mark.parametrize("typed", ["pytest fixtures", "migrate invoice", "fix it"])
def test_every_key_typed_on_gives_the_rows_its_query_reads_first(alice: Engine,
                                                                 typed: str) -> None:
    shown = alice.identity.memory_filter()
    rows = alice.identity.memory_page(shown, PAGE)
    whole, worked_out = len(rows) < PAGE, 0
    for end in range(1, len(typed) + 1):
        flt = alice.identity.memory_filter(search=typed[:end])
        narrowed = alice.identity.narrowed_rows(shown, flt, rows, whole=whole)
        read = alice.identity.memory_page(flt, PAGE)
        assert narrowed is not None, typed[:end]
        assert list(narrowed.rows) == read[:len(narrowed.rows)]
        worked_out += len(narrowed.rows)
        if narrowed.whole:
            assert list(narrowed.rows) == read and alice.identity.count_memories(flt) == len(read)
        shown, rows, whole = flt, read, len(read) < PAGE
    assert worked_out > len(typed)  # rows were worked out, not only empty answers


@pytest.mark.sqlite_only
def test_rows_in_hand_that_are_the_whole_list_give_the_whole_narrowed_list(
        alice: Engine) -> None:
    shown = alice.identity.memory_filter(search="pytest")
    rows = alice.identity.memory_page(shown, 100)
    assert len(rows) < 100
    flt = alice.identity.memory_filter(search="pytest fi")
    narrowed = alice.identity.narrowed_rows(shown, flt, rows, whole=True)
    assert narrowed is not None and narrowed.whole
    assert list(narrowed.rows) == alice.identity.memory_page(flt, 100)
    part = alice.identity.narrowed_rows(shown, flt, rows[:5], whole=False)
    assert part is not None and not part.whole and list(part.rows) == list(narrowed.rows)[
        :len(part.rows)]


@pytest.mark.sqlite_only
def test_the_rows_stop_at_the_first_the_index_must_judge(alice: Engine) -> None:
    alice.identity.add_memory("café pytest fixture", "fact")  # newest: not ASCII
    alice.identity.add_memory("pytest fixture again", "fact")
    shown = alice.identity.memory_filter()
    rows = alice.identity.memory_page(shown, PAGE)
    for whole in (False, True):  # a row it could not judge: never the whole list
        narrowed = alice.identity.narrowed_rows(
            shown, alice.identity.memory_filter(search="pytest"), rows, whole=whole)
        assert narrowed == NarrowedRows((rows[0],), whole=False)  # not the second


@pytest.mark.sqlite_only
def test_the_same_search_again_keeps_its_rows(alice: Engine) -> None:
    searched = alice.identity.memory_filter(search="pytest")
    rows = alice.identity.memory_page(searched, PAGE)
    again = alice.identity.narrowed_rows(searched, searched, rows, whole=True)
    assert again == NarrowedRows(tuple(rows), whole=True)


@pytest.mark.sqlite_only
def test_only_a_narrowing_of_the_same_list_is_worked_out(alice: Engine) -> None:
    plain = alice.identity.memory_filter()
    rows = alice.identity.memory_page(plain, PAGE)
    searched = alice.identity.memory_filter(search="pytest")
    identity = alice.identity
    assert identity.narrowed_rows(searched, plain, rows, whole=False) is None  # no search
    assert identity.narrowed_rows(searched, identity.memory_filter(search="pytes"), rows,
                                  whole=False) is None  # widened
    for other in (replace(searched, kind="decision"), replace(searched, status=None),
                  replace(searched, owner="bob"), replace(searched, scope="project")):
        assert identity.narrowed_rows(plain, other, rows, whole=False) is None
    assert identity.narrowed_rows(plain, identity.memory_filter(search="naïve"), rows,
                                  whole=False) is None


def test_postgresql_lists_always_wait_for_their_query(alice: Engine, backend: str) -> None:
    plain = alice.identity.memory_filter()
    rows = alice.identity.memory_page(plain, PAGE)
    narrowed = alice.identity.narrowed_rows(
        plain, alice.identity.memory_filter(search="pytest"), rows, whole=False)
    assert (narrowed is None) == (backend == "postgresql")


NOTE_WORDS = ["ruff", "rule", "run", "runner", "pytest", "py", "naïve", "café", "x_y", "R2",
              "2024", "staging", "stage", "déjà", "Run-time", "it's"]


@pytest.mark.sqlite_only
@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(notes=st.lists(st.lists(st.sampled_from(NOTE_WORDS), min_size=1, max_size=5),
                      min_size=1, max_size=30),
       typed=st.lists(st.sampled_from(["ru", "run", "py", "st", "r", "2", "n", "x", "caf"]),
                      min_size=1, max_size=3))
def test_narrowed_rows_are_always_the_top_of_the_query(engine_for: EngineFor,
                                                       notes: list[list[str]],
                                                       typed: list[str]) -> None:
    engine = engine_for(f"u{abs(hash((tuple(map(tuple, notes)), tuple(typed)))) % 10**9}")
    for words in notes:
        engine.identity.add_memory(" ".join(words), "fact")
    text = " ".join(typed)
    shown = engine.identity.memory_filter()
    rows = engine.identity.memory_page(shown, 10)
    whole = len(rows) < 10
    for end in range(1, len(text) + 1):
        flt = engine.identity.memory_filter(search=text[:end].strip() or None)
        read = engine.identity.memory_page(flt, 10)
        narrowed = engine.identity.narrowed_rows(shown, flt, rows, whole=whole)
        if narrowed is not None:
            assert list(narrowed.rows) == read[:len(narrowed.rows)]
            if narrowed.whole:
                assert list(narrowed.rows) == read
        shown, rows, whole = flt, read, len(read) < 10
