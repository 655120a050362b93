"""The Python mirror of the full-text search (``store/search_terms.py``) against SQLite's own
FTS5 index, built the way ``memories_fts`` is: the matcher decides exactly what FTS5 matches,
says None where it cannot tell, and never claims a narrowing FTS5 disagrees with."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from memtui.store.search_terms import (
    MAX_QUERY_TERMS,
    SearchTerms,
    fts_query,
    narrowing_matcher,
    search_terms,
)

PROPERTY = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])
FTS_TABLE = ("CREATE VIRTUAL TABLE t USING fts5(content, tokenize='unicode61 "
             "remove_diacritics 2', prefix='1 2 3 4')")
"""``memories_fts``'s tokenizer and prefix indexes (schema.py, migration 2)."""

# words that share prefixes, so prefixes and narrowings meet real matches
VOCABULARY = ["pytest", "py", "pyt", "fixture", "fixtures", "fix", "fi", "file", "migrate",
              "migration", "in", "invoice", "inv", "Staging", "STAGE", "cluster", "x1",
              "2024", "a", "ab", "abc"]
SEPARATORS = [" ", "  ", "-", ".", ", ", "'", "/", "\n", "\t", "(", ")", "_", ":", "\x00"]

ascii_content = st.lists(
    st.tuples(st.sampled_from(VOCABULARY), st.sampled_from(SEPARATORS)),
    min_size=0, max_size=12).map(lambda parts: "".join(w + s for w, s in parts))
typed_text = st.lists(st.sampled_from(VOCABULARY + ["pyte", "mig", "clu", "zzz"]),
                      min_size=1, max_size=4).flatmap(
    lambda words: st.sampled_from([" ".join(words), " ".join(words) + " ",
                                   " ".join(words)[:-1] or words[0]]))


@pytest.fixture
def fts() -> Iterator[sqlite3.Connection]:
    conn = sqlite3.connect(":memory:")
    conn.execute(FTS_TABLE)
    yield conn
    conn.close()


def fts_matches(conn: sqlite3.Connection, contents: list[str], search: str) -> set[int]:
    """Row numbers of ``contents`` that SQLite's FTS5 matches for ``search``."""
    conn.execute("DELETE FROM t")
    conn.executemany("INSERT INTO t(rowid, content) VALUES (?, ?)", enumerate(contents))
    query = fts_query(search)
    assert query is not None
    return {row[0] for row in conn.execute("SELECT rowid FROM t WHERE t MATCH ?", (query,))}


@PROPERTY
@given(contents=st.lists(ascii_content, min_size=1, max_size=25), search=typed_text)
def test_the_matcher_decides_ascii_text_exactly_as_fts5(fts: sqlite3.Connection,
                                                        contents: list[str],
                                                        search: str) -> None:
    matches = narrowing_matcher(None, search)
    assert matches is not None  # ASCII words narrow the unsearched list
    expected = fts_matches(fts, contents, search)
    assert {index for index, text in enumerate(contents) if matches(text)} == expected


@PROPERTY
@given(contents=st.lists(ascii_content, min_size=1, max_size=25), old=typed_text,
       new=typed_text)
def test_a_narrowing_only_ever_drops_matches(fts: sqlite3.Connection, contents: list[str],
                                             old: str, new: str) -> None:
    assert search_terms(old) is not None and search_terms(new) is not None
    if narrowing_matcher(old, new) is not None:
        assert fts_matches(fts, contents, new) <= fts_matches(fts, contents, old)


@pytest.mark.parametrize("typed", ["pytest fixtures", "staging cluster", "migrate invoice",
                                   "a b c", "x1 2024"])
def test_typing_on_narrows_at_every_key(typed: str) -> None:
    for end in range(2, len(typed) + 1):
        before, after = typed[:end - 1], typed[:end]
        if before.strip():
            assert narrowing_matcher(before, after) is not None, (before, after)
        assert narrowing_matcher(None, after) is not None


@pytest.mark.parametrize(("old", "new"), [
    ("pytest", "pytes"),  # a key taken back widens the search
    ("pytest f", "pytest"),
    ("pytest ", "pytests"),  # a finished word is not a prefix any more
    ("migrate", "staging"),
    ("fix", "fi"),
    ("fixture ", "fixture"),  # a whole word, then a prefix: "fixtures" matches it too
])
def test_a_search_that_widens_or_changes_is_not_narrowed(old: str, new: str) -> None:
    assert narrowing_matcher(old, new) is None


@pytest.mark.parametrize("new", ["naïve", "snake_case", "日本", "!!!", "", "   "])
def test_words_fts5_would_read_its_own_way_are_left_to_it(new: str) -> None:
    assert narrowing_matcher(None, new) is None


def test_a_search_that_matched_nothing_is_no_start_for_a_narrowing() -> None:
    assert narrowing_matcher("!!", "!!a") is None  # "!!" has no word: its list was empty


@pytest.mark.parametrize("content", ["fixture café", "naïve fixture", "fixture 🎉",
                                     "ﬁxture"])
def test_text_with_any_non_ascii_character_is_not_decided(content: str) -> None:
    matches = narrowing_matcher(None, "fixture")
    assert matches is not None and matches(content) is None


@pytest.mark.parametrize(("content", "search", "matched"), [
    ("PyTest Fixtures", "pytest fix", True),
    ("pytest-fixtures", "pytest fixtures", True),  # '-' separates tokens
    ("pytestfixtures", "pytest fix", False),
    ("fix pytest", "pytest fix", True),  # words in any order
    ("pytest", "pytest fix", False),
    ("don't", "don t", True),
    ("snake_case word", "case", True),  # '_' separates tokens under unicode61
    ("v2024 release", "2024", False),
    ("", "a", False),
])
def test_examples(content: str, search: str, matched: bool) -> None:
    matches = narrowing_matcher(None, search)
    assert matches is not None and matches(content) is matched


def test_search_terms_keep_fts_querys_rules() -> None:
    assert search_terms("pytest fi") == SearchTerms(("pytest", "fi"), True)
    assert search_terms("pytest ") == SearchTerms(("pytest",), False)
    assert search_terms("'\"*") is None
    many = " ".join(f"w{i}" for i in range(MAX_QUERY_TERMS + 3))
    terms = search_terms(many)
    assert terms is not None and len(terms.words) == MAX_QUERY_TERMS
    assert fts_query("pytest fi") == '"pytest" "fi"*'


@PROPERTY
@given(contents=st.lists(ascii_content, min_size=1, max_size=25), typed=typed_text,
       cuts=st.tuples(st.integers(1, 40), st.integers(0, 3)), other=typed_text)
@example(contents=["fixture", "fix", "pytest fixtures", "fix it"], typed="fix it",
         cuts=(3, 1), other="x")
def test_the_matcher_decides_the_old_searchs_rows_exactly_as_fts5(
        fts: sqlite3.Connection, contents: list[str], typed: str, cuts: tuple[int, int],
        other: str) -> None:
    """Words the old search already requires are not checked again: the matcher is exact
    for the rows the old search matched (the rows it is given). The searches: two points of
    one typed text (typing on), or two unrelated ones."""
    start = min(cuts[0], len(typed))
    old, new = typed[:start], typed[:start + cuts[1]]
    if search_terms(old) is None:
        old, new = other, typed
    matches = narrowing_matcher(old, new)
    if matches is None:
        return
    kept = sorted(fts_matches(fts, contents, old))
    expected = fts_matches(fts, contents, new)
    assert {index for index in kept if matches(contents[index])} == expected


@pytest.mark.parametrize(("old", "new", "checked"), [
    ("migrate in", "migrate inv", 1), ("migrate", "migrate ", 1), ("migrate ", "migrate i", 1),
    ("pytest ", "pytest fixture", 1), ("pytest", "pytest fixture", 2), (None, "pytest f", 2),
    ("pytest", "pytest", 0), ("pytest fixture", "pytest fixture ", 1)])
def test_only_the_words_the_old_search_does_not_require_are_checked(
        old: str | None, new: str, checked: int, monkeypatch: pytest.MonkeyPatch) -> None:
    import memtui.store.search_terms as module

    seen: list[list[tuple[str, bool]]] = []
    matcher = module._ascii_matcher
    monkeypatch.setattr(module, "_ascii_matcher", lambda words: seen.append(words)
                        or matcher(words))
    matches = narrowing_matcher(old, new)
    assert matches is not None
    assert (len(seen[0]) if seen else 0) == checked
    if not checked:  # nothing more required: any row the old search matched, any text
        assert matches("déjà vu") is True and seen == []
