"""Ordinary agent text (prose, code, shell sessions, paths, ids, hashes, configs with
placeholders) must come through redaction unchanged."""

from __future__ import annotations

from pathlib import Path

import pytest

from memtui.bench.redaction import ordinary_sample
from memtui.engine.redaction import scan

DATA = Path(__file__).parents[1] / "data" / "ordinary_text"
FILES = sorted(p for p in DATA.iterdir() if p.is_file())


def test_fixture_corpus_exists() -> None:
    assert len(FILES) >= 8
    assert sum(p.stat().st_size for p in FILES) > 20_000


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_file_is_unchanged(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    result = scan(text)
    found = [(f.kind, text[max(0, f.start - 30) : f.end]) for f in result.findings]
    assert result.text == text, found


def test_line_by_line_is_unchanged() -> None:
    # Context must not be what saves a line: every line alone is ordinary too.
    for path in FILES:
        for line in path.read_text(encoding="utf-8").splitlines():
            assert scan(line).text == line, (path.name, line)


def test_benchmark_sample_is_unchanged() -> None:
    text = ordinary_sample(300_000)
    assert scan(text).findings == ()
