"""Property-based tests: parsers never crash, text never escapes, the store round-trips."""

from __future__ import annotations

import dataclasses
import io
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memtui.engine.api import Engine
from memtui.engine.redaction import redact
from memtui.engine.validation import strip_controls
from memtui.errors import InvalidInput, MemtuiError
from memtui.store.backend import StoreBackend
from memtui.store.database import open_store
from memtui.store.ids import SequentialIds, encode_id
from memtui.store.memories import MEMORY_COLUMNS, row_to_memory
from memtui.store.models import Memory
from memtui.store.repository import row_values
from memtui.store.search_terms import fts_query
from memtui.store.timeutil import parse_time
from memtui.textsafe import UNSAFE_CHARACTERS, one_line, safe_text

FAST = settings(max_examples=60, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow])
UNSAFE_CLASSES = {
    "C0 controls but tab and newline": [*range(0x00, 0x09), *range(0x0B, 0x20)],
    "DEL and C1 controls": list(range(0x7F, 0xA0)),
    "line and paragraph separators": [0x2028, 0x2029],
    "bidi marks": [0x200E, 0x200F],
    "bidi embeddings and overrides": list(range(0x202A, 0x202F)),
    "bidi isolates": list(range(0x2066, 0x206A)),
}
"""Every character class safe_text must escape, written out here (not read from the module),
so that dropping a class from the module's pattern fails a test."""
SAFE_NEIGHBOURS = [0x09, 0x0A, 0x20, 0x7E, 0xA0, 0x200D, 0x2027, 0x202F, 0x2065, 0x206A, 0x1F600]
"""Characters next to those classes that must pass through unchanged."""


def _engine() -> Engine:
    folder = Path(tempfile.mkdtemp(prefix="memtui-prop-"))
    store = open_store(folder / "p.db", ids=SequentialIds())
    engine = Engine(store, "alice")
    engine.identity.create_project("web")
    return engine


ENGINE = _engine()


@FAST
@given(st.text())
def test_safe_text_never_lets_control_characters_through(text: str) -> None:
    assert not UNSAFE_CHARACTERS.search(safe_text(text))
    assert "\n" not in one_line(text) and not UNSAFE_CHARACTERS.search(one_line(text))


def test_safe_text_escapes_every_character_class() -> None:
    for name, codes in UNSAFE_CLASSES.items():
        for code in codes:
            escaped = f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
            assert safe_text(f"a{chr(code)}b") == f"a{escaped}b", (name, hex(code))
            assert one_line(chr(code)) == escaped, (name, hex(code))
            assert UNSAFE_CHARACTERS.fullmatch(chr(code)), (name, hex(code))
    for code in SAFE_NEIGHBOURS:
        assert safe_text(chr(code)) == chr(code), hex(code)


@FAST
@given(st.text(max_size=200))
def test_any_typed_search_is_a_valid_query(text: str) -> None:
    query = fts_query(text)
    assert query is None or query.count('"') % 2 == 0
    try:
        ENGINE.identity.list_memories("web", search=text, limit=5)
    except InvalidInput:
        assert "\x00" in text or len(text.encode("utf-8", "surrogatepass")) > 1024


@FAST
@given(st.text(max_size=60))
def test_time_parser_answers_a_time_or_invalid_input(text: str) -> None:
    try:
        moment = parse_time(text)
    except InvalidInput:
        return
    assert moment.tzinfo is not None


@FAST
@given(st.text(min_size=1, max_size=400).filter(lambda s: s.strip() and "\x00" not in s))
def test_memory_content_round_trips_exactly_as_cleaned(text: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return
    expected = redact(strip_controls(text).strip())
    if not expected.strip():
        return
    memory = ENGINE.identity.add_memory(text, "fact", "web")
    assert ENGINE.identity.get_memory(memory.id).content == expected


@FAST
@given(st.lists(st.one_of(st.text(max_size=80), st.binary(max_size=80).map(
    lambda b: b.decode("latin-1"))), max_size=6))
def test_import_of_arbitrary_lines_is_refused_cleanly(lines: list[str]) -> None:
    engine = Engine(open_store(Path(tempfile.mkdtemp()) / "i.db"), "alice")
    try:
        engine.maintenance.import_lines(lines)
    except MemtuiError:
        pass
    engine.store.close()


ID_MS = st.integers(min_value=0, max_value=32 ** 9 - 1)
ID_RANDOM = st.integers(min_value=0, max_value=32 ** 7 - 1)


@FAST
@given(ID_MS, ID_RANDOM, ID_MS, ID_RANDOM)
def test_ids_sort_by_time_then_random_part(ms: int, rand: int, ms2: int, rand2: int) -> None:
    first, second = encode_id("mem", ms, rand), encode_id("mem", ms2, rand2)
    assert len(first) == len(second) == len("mem_") + 16
    assert (first < second) == ((ms, rand) < (ms2, rand2))
    assert (first == second) == ((ms, rand) == (ms2, rand2))


def test_a_memory_row_reads_back_as_the_same_memory() -> None:
    memory = ENGINE.identity.add_memory("rows read back", "fact", "web")
    row = row_values(memory)
    assert len(row) == len(MEMORY_COLUMNS.split(","))
    assert row_to_memory(row) == memory
    # Every field, in the dataclass's order, under the column of the same name.
    assert row == dataclasses.astuple(memory)
    assert [c.strip() for c in MEMORY_COLUMNS.split(",")] == [
        f.name for f in dataclasses.fields(memory)]


def _all_memories(store: StoreBackend) -> list[Memory]:
    """Every memory of the store, oldest first."""
    return store.memories.get_many([row[0] for row in store.execute("SELECT id FROM memories")])


def test_store_round_trip_through_export_and_import_keeps_hypothesis_data() -> None:
    buffer = io.StringIO()
    ENGINE.maintenance.export_to(buffer, everything=True)
    copy = Engine(open_store(Path(tempfile.mkdtemp()) / "copy.db"), "alice")
    copy.maintenance.import_lines(io.StringIO(buffer.getvalue()))
    original = [m.to_json() for m in _all_memories(ENGINE.store)]
    restored = [m.to_json() for m in _all_memories(copy.store)]
    assert original == restored
    copy.store.close()
