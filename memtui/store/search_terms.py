"""What a typed search asks of the full-text index, and the same test in Python for rows
already in hand.

A search is its words (``\\w+``, at most ``MAX_QUERY_TERMS``), all required; the last is a
prefix unless the text ends in a space. When a new search narrows the old one, its newest
rows are the rows on screen that match it (``narrowing_matcher``, which decides as
``memories_fts``'s tokenizer does on ASCII text; anything else is ``None``, never guessed).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import NamedTuple

__all__ = ["MAX_QUERY_TERMS", "SearchTerms", "fts_query", "narrowing_matcher", "pg_tsquery",
           "search_terms"]

MAX_QUERY_TERMS = 16
"""A search keeps at most this many words (longer queries rank no better and cost more)."""
_WORD = re.compile(r"\w+", re.UNICODE)
_ASCII_WORD = re.compile(r"[A-Za-z0-9]+\Z")


class SearchTerms(NamedTuple):
    """A search's words as typed (all required) and whether the last is a prefix (a named
    tuple: this module is imported before the app's first frame, where a frozen dataclass
    is slower to define)."""

    words: tuple[str, ...]
    last_is_prefix: bool


def search_terms(text: str | None) -> SearchTerms | None:
    """What a person typed as ``SearchTerms`` (the last a prefix unless a space follows)."""
    words = tuple(_WORD.findall(text or "")[:MAX_QUERY_TERMS])
    if not words:
        return None
    return SearchTerms(words, bool(text and not text[-1].isspace()))


def fts_query(text: str) -> str | None:
    """What a person typed as a safe FTS5 query (None without a searchable word): quoted
    words, all required, the last a prefix; typed operators and quotes are only text."""
    return _query(text, '"', "*", " ")


def pg_tsquery(text: str) -> str | None:
    """``fts_query`` for PostgreSQL's ``to_tsquery('simple', ...)`` (``'a' & 'migr':*``)."""
    return _query(text, "'", ":*", " & ")


def _query(text: str, quote: str, prefix: str, join: str) -> str | None:
    terms = search_terms(text)
    if terms is None:
        return None
    parts = [f"{quote}{word}{quote}" for word in terms.words]
    if terms.last_is_prefix:
        parts[-1] += prefix
    return join.join(parts)


def _folded(terms: SearchTerms) -> list[tuple[str, bool]] | None:
    """(word in lower case, is a prefix) for each word, or None when a word is not one
    ASCII token (FTS5 would read it as a phrase of several, or fold it its own way)."""
    if not all(_ASCII_WORD.match(word) for word in terms.words):
        return None
    last = len(terms.words) - 1
    return [(word.lower(), terms.last_is_prefix and index == last)
            for index, word in enumerate(terms.words)]


def _covers(old_words: list[tuple[str, bool]], new_words: list[tuple[str, bool]]) -> bool:
    """Whether every row the (folded) ``new_words`` match is matched by ``old_words``: each
    old word is required again by a new word -- for an old prefix, any word that starts with
    it (``pytest f`` -> ``pytest fi``), for an old whole word the same whole word."""
    for word, is_prefix in old_words:
        if is_prefix:
            implied = any(other.startswith(word) for other, _ in new_words)
        else:  # a new prefix (``fixture*``) also matches other words (``fixtures``)
            implied = (word, False) in new_words
        if not implied:
            return False
    return True


def _ascii_matcher(words: list[tuple[str, bool]]) -> Callable[[str], bool | None]:
    """The test of ``narrowing_matcher`` for folded ASCII words: each word must start a token
    of the lower-cased text (a token: a run of letters and digits), and a word that is not a
    prefix must end it too."""
    checks = [(word, re.compile(rf"(?<![a-z0-9]){re.escape(word)}"
                                + ("" if is_prefix else "(?![a-z0-9])")))
              for word, is_prefix in words]

    def matches(content: str) -> bool | None:
        """Whether FTS5 matches ``content`` (None: not ASCII, not decided here)."""
        if not content.isascii():
            return None
        folded = content.lower()
        for word, pattern in checks:  # (a plain substring test first: most rows fail it)
            if word not in folded or pattern.search(folded) is None:
                return False
        return True

    return matches


def narrowing_matcher(old_search: str | None,
                      new_search: str) -> Callable[[str], bool | None] | None:
    """When ``new_search`` narrows ``old_search`` (None: the unsearched list): a test of the
    content of a memory ``old_search`` matches, True exactly when ``memories_fts`` matches
    it for ``new_search`` too (None: cannot tell); words the old search already requires are
    not checked again. None when it does not narrow, or is not decided here."""
    new = search_terms(new_search)
    if new is None:
        return None
    words = _folded(new)
    if words is None:
        return None
    required: set[tuple[str, bool]] = set()
    if old_search is not None:
        old = search_terms(old_search)
        if old is None:
            return None  # the old search matched nothing: nothing to narrow from
        old_words = _folded(old)
        if old_words is None or not _covers(old_words, words):
            return None
        required = set(old_words)
    checked = [word for word in reversed(words) if not _implied(word, required)]
    if not checked:
        return lambda _content: True  # (a space typed after a whole word, say: any text)
    return _ascii_matcher(checked)


def _implied(word: tuple[str, bool], required: set[tuple[str, bool]]) -> bool:
    """Whether every memory holding the (folded) words ``required`` holds ``word``: the
    same whole word, or for a prefix the same prefix or a whole word that is it."""
    text, is_prefix = word
    return (text, False) in required or (is_prefix and (text, True) in required)
