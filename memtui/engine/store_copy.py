"""Copy a whole store into an empty one, between any two backends (``memtui store copy``):
the source's whole-store export is imported in one destination transaction, exported again and
compared table by table before it commits. A new SQLite destination is removed on failure.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
from collections.abc import Generator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

from memtui.engine.api import Engine
from memtui.engine.paths import is_database_url
from memtui.errors import InvalidInput, MemtuiError, NotFound, StoreError
from memtui.store.database import check_store_file, discard_empty_store, open_store

if TYPE_CHECKING:
    from memtui.store.backend import StoreBackend as Store

DIGEST_MODULUS = 2 ** 256
MAX_DETAIL_CHARS = 120
_QUOTED_TEXT = re.compile(r" with text '.*$")
"""Stored text a driver's decode error quotes (it may hold anything: never shown)."""


def shown_location(location: str) -> str:
    """A location as memtui prints it: a URL's password (if any) replaced by ``***``."""
    if not is_database_url(location):
        return location
    parts = urlsplit(location)
    if parts.password is None:
        return location
    user = parts.username or ""
    host = parts.netloc.rsplit("@", 1)[1]
    return urlunsplit((parts.scheme, f"{user}:***@{host}", parts.path, parts.query,
                       parts.fragment))


def _detail(error: BaseException) -> str:
    text = _QUOTED_TEXT.sub("", " ".join(str(error).split())) or type(error).__name__
    if len(text) > MAX_DETAIL_CHARS:
        text = text[:MAX_DETAIL_CHARS - 1] + "…"
    return text


@dataclass
class ExportDigest:
    """Every table of an export (the header left out), order-independently: how many rows,
    and the sum of their SHA-256 digests as canonical JSON."""

    tables: dict[str, tuple[int, int]] = field(default_factory=dict)

    def add_line(self, line: str) -> None:
        """Count one line of an export."""
        record = json.loads(line)
        table = record.get("table")
        if table is None:
            return
        canonical = json.dumps(record["row"], sort_keys=True, ensure_ascii=False,
                               separators=(",", ":"))
        digest = hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).digest()
        count, total = self.tables.get(table, (0, 0))
        self.tables[table] = (count + 1, (total + int.from_bytes(digest, "big")) % DIGEST_MODULUS)

    def differences(self, other: ExportDigest) -> list[str]:
        """The tables whose rows differ, each as ``table (N rows read, M written)``."""
        return [f"{name} ({self.tables.get(name, (0, 0))[0]} rows read, "
                f"{other.tables.get(name, (0, 0))[0]} written)"
                for name in sorted(set(self.tables) | set(other.tables))
                if self.tables.get(name) != other.tables.get(name)]


@dataclass(frozen=True)
class CopyReport:
    """A finished copy: where from and to (passwords hidden), rows per table."""

    source: str
    destination: str
    rows: dict[str, int]
    created: bool

    @property
    def total(self) -> int:
        """Rows copied, all tables."""
        return sum(self.rows.values())

    def to_json(self) -> dict[str, Any]:
        """The report as JSON (``verified``: a copy that differs is rolled back instead)."""
        return {"from": self.source, "to": self.destination, "rows": self.rows,
                "total": self.total, "created": self.created, "verified": True}


def _open_source(location: str) -> Store:
    """The source store, opened without creating anything (``NotFound`` for no store)."""
    if not is_database_url(location):
        path = Path(location).expanduser()
        if not path.exists():
            raise NotFound(f"{location}: no such store")
        if not check_store_file(path, allow_read_only=True):
            raise NotFound(f"{location}: an empty file, not a memtui store")
        return open_store(path, allow_read_only=True)
    return open_store(location)


def _same_store(source: str, destination: str) -> bool:
    if is_database_url(source) or is_database_url(destination):
        return source == destination
    first, second = Path(source).expanduser(), Path(destination).expanduser()
    try:
        return first.resolve() == second.resolve() or (
            second.exists() and first.samefile(second))
    except OSError:
        return False


def _read_source(lines: Generator[str, None, None], digest: ExportDigest,
                 shown: str) -> Iterator[str]:
    """The source's export lines, each counted into ``digest``; a failure to read the source
    becomes one line naming it (the driver's error says no stored text)."""
    try:
        for line in lines:
            digest.add_line(line)
            yield line
    except MemtuiError:
        raise
    except Exception as error:  # the source's driver: a damaged file, a lost server
        raise StoreError(f"{shown}: cannot read the source store ({_detail(error)}); "
                         f"run `memtui --db {shown} doctor`") from None
    finally:
        lines.close()


def copy_store(source: str, destination: str, actor: str) -> CopyReport:
    """Copy the whole store at ``source`` into the empty one at ``destination``."""
    shown_source, shown_destination = shown_location(source), shown_location(destination)
    if _same_store(source, destination):
        raise InvalidInput(f"--from and --to name the same store ({shown_source})")
    target = None if is_database_url(destination) else Path(destination).expanduser()
    created_path = target if target is not None and not target.exists() else None
    with contextlib.ExitStack() as stack:
        source_store = _open_source(source)
        stack.callback(source_store.close)
        try:
            destination_store = open_store(destination)
            stack.callback(destination_store.close)
            rows = _copy(Engine(source_store, actor), Engine(destination_store, actor),
                         shown_source, shown_destination)
        except BaseException:
            if created_path is not None:
                stack.close()  # the new file is closed before it is removed
                discard_empty_store(created_path)
            raise
    return CopyReport(shown_source, shown_destination, rows, created_path is not None)


def _copy(source: Engine, destination: Engine, shown_source: str,
          shown_destination: str) -> dict[str, int]:
    read = ExportDigest()
    try:
        with destination.store.transaction():
            if not destination.store.is_empty():
                raise InvalidInput(
                    f"{shown_destination}: holds memtui data; store copy fills only an empty "
                    "store (a new file or a new database); to add a store to one that has "
                    "data use export --all and import --merge")
            lines = _read_source(source.maintenance.export_lines(everything=True), read,
                                 shown_source)
            report = destination.maintenance.import_lines(lines)
            written = ExportDigest()
            for line in destination.maintenance.export_lines(everything=True):
                written.add_line(line)
            differ = read.differences(written)
            if differ:
                raise StoreError(
                    f"the copy in {shown_destination} would differ from {shown_source} in "
                    f"{', '.join(differ)}; nothing was copied (`memtui --db {shown_source} "
                    "doctor` names rows the write rules would store differently)")
    except MemtuiError as error:
        if "FOREIGN KEY" in error.message:
            raise InvalidInput(f"{shown_source}: has rows that refer to rows it does not hold "
                               f"(`memtui --db {shown_source} doctor` lists them); nothing "
                               "was copied") from None
        raise
    except Exception as error:  # the destination's driver: a damaged file, a lost server
        raise StoreError(f"{shown_destination}: cannot write the copy ({_detail(error)}); "
                         "nothing was copied") from None
    return report.loaded
