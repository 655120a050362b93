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
    narrowed = alice.identity.narrowed_rows(
        shown, alice.identity.memory_filter(search="pytest"), rows, whole=False)
    assert narrowed == NarrowedRows((rows[0],), whole=False, judged=1)  # not the second
    whole = alice.identity.narrowed_rows(
        shown, alice.identity.memory_filter(search="pytest"), rows, whole=True)
    assert whole is not None and not whole.whole  # a row it could not judge: not whole


@pytest.mark.sqlite_only
def test_enough_rows_end_the_work(alice: Engine) -> None:
    shown = alice.identity.memory_filter()
    rows = alice.identity.memory_page(shown, 100)
    flt = alice.identity.memory_filter(search="pytest")
    every = alice.identity.narrowed_rows(shown, flt, rows, whole=True)
    some = alice.identity.narrowed_rows(shown, flt, rows, whole=True, enough=3)
    assert every is not None and every.whole and len(every.rows) > 3
    assert every.judged == len(rows)
    assert some == NarrowedRows(every.rows[:3], whole=False,
                                judged=rows.index(every.rows[2]) + 1)  # no row further
    last = alice.identity.narrowed_rows(shown, flt, rows, whole=True, enough=len(every.rows))
    assert last is not None and list(last.rows) == list(every.rows)
    assert last.whole == (every.rows[-1] is rows[-1])  # whole only if no row was left


@pytest.mark.sqlite_only
def test_the_same_search_again_keeps_its_rows(alice: Engine) -> None:
    searched = alice.identity.memory_filter(search="pytest")
    rows = alice.identity.memory_page(searched, PAGE)
    again = alice.identity.narrowed_rows(searched, searched, rows, whole=True)
    assert again == NarrowedRows(tuple(rows), whole=True, judged=len(rows))


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


PLANS = {"few": {}, "some": {"FEW_MATCHES": 0}, "dense": {"FEW_MATCHES": 0, "DENSE_MATCHES": 1}}
"""Store thresholds that send this small store's searches down each of SearchPages' plans."""


@pytest.mark.parametrize("plan", sorted(PLANS))
@pytest.mark.parametrize("typed", ["pytest", "pytest f", "migrate inv", "fi", "in", "zzz"])
@pytest.mark.parametrize(("offset", "limit"), [(0, 1), (0, 26), (3, 20), (0, 100)])
def test_what_was_seen_near_the_top_never_changes_the_rows(
        alice: Engine, typed: str, offset: int, limit: int, plan: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    from memtui.store import search_pages

    for name, value in PLANS[plan].items():
        monkeypatch.setattr(search_pages, name, value)
    flt = alice.identity.memory_filter(search=typed)
    plain = alice.identity.memories_at(flt, offset, limit)
    assert plain == alice.identity.memory_page(flt, offset + limit)[offset:]
    for seen in ((0, 100), (3, 200), (50, 100), (1, 10**6)):
        assert alice.identity.memories_at(flt, offset, limit, near_top=seen) == plain
    from_end = alice.identity.memories_at(flt, offset, limit, from_end=True)
    for seen in ((0, 100), (1, 10**6)):  # (the app only says it of the top; still the same)
        assert alice.identity.memories_at(flt, offset, limit, from_end=True,
                                          near_top=seen) == from_end


def _statements(engine: Engine) -> list[str]:
    """Every SQL statement the engine's store runs from now on (SQLite's trace)."""
    statements: list[str] = []
    engine.store.conn.set_trace_callback(statements.append)
    return statements


@pytest.mark.sqlite_only
@pytest.mark.parametrize(("seen", "guessed"), [
    ((1, 10**6), True), ((0, 100), True), ((10, 22_170), True), ((13, 2_574), False),
    ((1, 600), False)])
def test_a_search_said_to_be_rare_is_read_from_its_matches_in_one_full_text_query(
        alice: Engine, seen: tuple[int, int], guessed: bool,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Under ``near_top``, a search that would match at most ``FEW_MATCHES`` rows were the
    whole store its list (matches per row seen times the store's size, here as if a million
    rows) has its matches read at once and its rows read from them: no count first.
    Otherwise the plan is counted, as without the hint. (The benchmark's 'migrate inv' and
    'prefers sm' told the store (10, 22170) and (13, 2574).)"""
    monkeypatch.setattr(alice.store.memories, "size_guess", lambda: 10**6)
    flt = alice.identity.memory_filter(search="migrate inv")
    plain = alice.identity.memories_at(flt, 0, 26)
    statements = _statements(alice)
    assert alice.identity.memories_at(flt, 0, 26, near_top=seen) == plain
    matching = [sql for sql in statements if "MATCH" in sql]
    counted = [sql for sql in statements if "count(*)" in sql]
    assert (len(matching), bool(counted)) == ((1, False) if guessed else (2, True))


@pytest.mark.sqlite_only
def test_a_wrong_guess_of_a_rare_search_falls_back_to_counting_its_matches(
        alice: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    """The guess is checked: more than ``FEW_MATCHES`` matches, and the page is planned by
    the count, with the same rows."""
    from memtui.store import search_pages

    flt = alice.identity.memory_filter(search="pytest")
    plain = alice.identity.memories_at(flt, 0, 26)
    monkeypatch.setattr(search_pages, "FEW_MATCHES", 3)
    statements = _statements(alice)
    assert alice.identity.memories_at(flt, 0, 26, near_top=(0, 10**6)) == plain
    assert any("count(*)" in sql for sql in statements)


@pytest.mark.sqlite_only
def test_the_stores_size_guess_is_read_again_only_after_a_while(
        alice: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    from memtui.store import memories

    repository = alice.store.memories
    monkeypatch.setattr(memories, "SIZE_GUESS_SECONDS", 10.0**9)
    size = repository.size_guess()
    assert size >= 60
    alice.identity.add_memory("one more", "fact")
    statements = _statements(alice)
    assert repository.size_guess() == size  # kept: no query
    assert not [sql for sql in statements if "max(seq)" in sql]
    monkeypatch.setattr(memories, "SIZE_GUESS_SECONDS", -1.0)  # (any clock: out of date)
    assert repository.size_guess() == size + 1


@pytest.mark.sqlite_only
@pytest.mark.parametrize(("seen", "walked"), [
    (None, True), ((2, 200), False), ((7, 200), False), ((8, 200), True), ((15, 100), True),
    ((0, 100), False)])
def test_only_fewer_than_one_match_in_a_walks_rows_skips_the_walk(
        alice: Engine, monkeypatch: pytest.MonkeyPatch, seen: tuple[int, int] | None,
        walked: bool) -> None:
    """A walk's first batch fills the page at one match in ``WALK_ROWS_PER_RESULT`` (25)
    rows: a common word's walk is kept (skipping it would read every match)."""
    from memtui.store.search_pages import SearchPages

    walks: list[int] = []
    walk = SearchPages._walk

    def counted(self: SearchPages, need: int, *args: object, **kwargs: object) -> object:
        walks.append(need)
        return walk(self, need, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(SearchPages, "_walk", counted)
    flt = alice.identity.memory_filter(search="migrate inv")
    alice.identity.memories_at(flt, 0, 26, near_top=seen)
    assert (walks[:1] == [26]) == walked


def test_only_sqlite_narrows_rows_in_hand(alice: Engine, backend: str) -> None:
    assert alice.identity.narrows_in_hand == (backend == "sqlite")
