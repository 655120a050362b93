"""The one copy of the safe-file rules (``memtui.engine.safe_files``), tested on its own:
each home's ``SafeFiles`` raises that home's error classes; reads refuse symlink escapes,
FIFOs, huge, binary and non-UTF-8 files; writes are atomic, keep the mode, and refuse
symlinks and files changed since they were read."""

from __future__ import annotations

import dataclasses
import io
import os
import stat
from pathlib import Path

import pytest

from memtui.engine.agents.errors import AGENT_FILES, AgentError, AgentFileProblem, ChangedSinceRead
from memtui.engine.codex.errors import CODEX_FILES, CodexError, FileProblemError
from memtui.engine.safe_files import (
    TEMP_PREFIX,
    FileProblem,
    SafeFiles,
    encode_like,
    json_lines,
    publish_new_file,
    real_root,
    replace_atomically,
    write_new_file,
)
from memtui.errors import AgentFileWriteFailed, Conflict, PermissionDenied, UnsafePath

SMALL = SafeFiles(max_bytes=64)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A home folder with a text file, and a file outside it."""
    folder = tmp_path / "home"
    folder.mkdir()
    (folder / "note.md").write_text("hello\n", encoding="utf-8")
    (tmp_path / "secret.txt").write_text("outside\n", encoding="utf-8")
    return folder


def _no_temp_left(folder: Path) -> bool:
    return not any(path.name.startswith(TEMP_PREFIX) for path in folder.iterdir())


def test_each_home_raises_its_own_classes(home: Path) -> None:
    os.symlink(home.parent / "secret.txt", home / "escape.md")
    root = real_root(home)
    with pytest.raises(FileProblemError) as codex:
        CODEX_FILES.read_text(home / "escape.md", root)
    assert isinstance(codex.value, CodexError) and isinstance(codex.value, FileProblem)
    assert codex.value.code == "codex_file_problem"
    assert codex.value.reason == "symlink points outside the Codex home; not followed"
    with pytest.raises(AgentFileProblem) as agent:
        AGENT_FILES.read_text(home / "escape.md", root)
    assert isinstance(agent.value, AgentError) and agent.value.code == "agent_file_problem"
    assert agent.value.reason == f"symlink points outside {root}; not followed"
    with pytest.raises(FileProblem) as plain:
        SafeFiles().check_inside(home / "escape.md", root)
    assert type(plain.value) is FileProblem and plain.value.code == "file_problem"


def test_reads_inside_the_home(home: Path) -> None:
    root = real_root(home)
    (home / "sub").mkdir()
    os.symlink(home / "note.md", home / "sub" / "inner.md")  # a symlink that stays inside
    assert SMALL.read_text(home / "sub" / "inner.md", root) == "hello\n"
    text, stamp = SMALL.read_text_stamped(home / "note.md", root)
    assert text == "hello\n" and stamp.size == 6 and stamp.path == str(home / "note.md")
    assert stamp.mode == stat.S_IMODE((home / "note.md").stat().st_mode)
    assert SMALL.read_prefix(home / "note.md", root, 3) == b"hel"
    assert SMALL.list_folder(home, root) == [home / "note.md", home / "sub"]
    assert SMALL.list_folder(home / "absent", root) == []
    (home / "bom.md").write_bytes(b"\xef\xbb\xbfwith a BOM")
    assert SMALL.read_text(home / "bom.md", root) == "with a BOM"


@pytest.mark.parametrize("name,content,reason", [
    ("binary.md", b"a\x00b", "binary file (contains NUL bytes); not text"),
    ("latin.md", b"caf\xe9", "not valid UTF-8 (bad byte at offset 3)"),
    ("huge.md", b"x" * 65, "too large (65 bytes; the limit is 64)"),
])
def test_bad_files_are_problems(home: Path, name: str, content: bytes, reason: str) -> None:
    (home / name).write_bytes(content)
    with pytest.raises(FileProblem) as caught:
        SMALL.read_text(home / name, real_root(home))
    assert caught.value.reason == reason


def test_a_huge_file_still_gives_its_head_and_a_larger_cap_reads_it(home: Path) -> None:
    (home / "huge.md").write_bytes(b"x" * 100)
    root = real_root(home)
    assert SMALL.read_prefix(home / "huge.md", root, 10) == b"x" * 10
    assert SMALL.read_bytes(home / "huge.md", root, max_bytes=100) == b"x" * 100


def test_not_regular_files_and_missing_ones(home: Path) -> None:
    root = real_root(home)
    os.mkfifo(home / "pipe.md")  # would block a plain open() forever
    with pytest.raises(FileProblem, match="not a regular file"):
        SMALL.read_text(home / "pipe.md", root)
    with pytest.raises(FileProblem, match="not a regular file"):
        SMALL.read_text(home, root)
    with pytest.raises(FileProblem, match="file not found"):
        SMALL.read_text(home / "absent.md", root)
    with pytest.raises(FileProblem, match="not a folder"):
        SMALL.list_folder(home / "note.md", root)
    os.symlink(home.parent, home / "up")
    with pytest.raises(FileProblem, match="points outside"):
        SMALL.list_folder(home / "up", root)


def test_replace_keeps_the_mode_and_refuses_changes(home: Path) -> None:
    root = real_root(home)
    path = home / "note.md"
    path.chmod(0o640)
    _text, stamp = AGENT_FILES.read_text_stamped(path, root)
    umask = os.umask(0o077)  # the mode is kept whatever the umask would give
    try:
        new = AGENT_FILES.replace_file(stamp, "second\n", root)
    finally:
        os.umask(umask)
    assert path.read_text(encoding="utf-8") == "second\n" and new.size == 7
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert _no_temp_left(home)
    # same size and time, other bytes: the hash tells
    path.write_text("SECOND\n", encoding="utf-8")
    os.utime(path, ns=(new.mtime_ns, new.mtime_ns))
    with pytest.raises(ChangedSinceRead, match="changed since it was read"):
        AGENT_FILES.replace_file(new, "third\n", root)
    assert path.read_text(encoding="utf-8") == "SECOND\n"
    with pytest.raises(ChangedSinceRead):
        AGENT_FILES.remove_file(new, root)
    path.unlink()
    with pytest.raises(ChangedSinceRead, match="file not found"):
        AGENT_FILES.replace_file(new, "third\n", root)


def test_writes_never_go_through_a_symlink(home: Path) -> None:
    root = real_root(home)
    outside = home.parent / "secret.txt"
    os.symlink(home / "note.md", home / "inner.md")
    _text, stamp = AGENT_FILES.read_text_stamped(home / "inner.md", root)
    with pytest.raises(UnsafePath, match="is a symlink"):
        AGENT_FILES.replace_file(stamp, "x\n", root)
    os.symlink(home.parent, home / "up")
    with pytest.raises(UnsafePath, match="leads outside"):
        AGENT_FILES.create_file(home / "up" / "new.md", "x\n", root)
    assert outside.read_text(encoding="utf-8") == "outside\n"
    assert not (home.parent / "new.md").exists()
    # the defaults of a home that sets no classes of its own
    with pytest.raises(PermissionDenied):
        SafeFiles().replace_file(stamp, "x\n", root)


def test_create_makes_folders_and_never_overwrites(home: Path) -> None:
    root = real_root(home)
    stamp = AGENT_FILES.create_file(home / "a" / "b" / "new.md", "fresh\n", root)
    made = home / "a" / "b" / "new.md"
    assert made.read_text(encoding="utf-8") == "fresh\n" and stamp.size == 6
    assert stat.S_IMODE(made.stat().st_mode) == 0o600
    with pytest.raises(AgentFileWriteFailed, match="already exists"):
        AGENT_FILES.create_file(made, "other\n", root)
    assert made.read_text(encoding="utf-8") == "fresh\n"
    assert _no_temp_left(made.parent)
    with pytest.raises(Conflict):  # a stamp the file no longer has, with the defaults
        SafeFiles().remove_file(dataclasses.replace(stamp, size=0), root)
    assert made.exists()
    AGENT_FILES.remove_file(stamp, root)
    assert not made.exists()


def test_create_makes_no_folder_outside_the_home(home: Path) -> None:
    root = real_root(home)
    top = Path("/") / f"memtui-test-{os.getpid()}"
    for target, first_made in ((home.parent / "elsewhere" / "new.md", home.parent / "elsewhere"),
                               (home / ".." / "up" / "deep" / "n.md", home.parent / "up"),
                               (top / "n.md", top)):
        with pytest.raises(UnsafePath, match="outside"):
            AGENT_FILES.create_file(target, "x\n", root)
        assert not first_made.exists()
    (home / "link").symlink_to(home.parent)  # a folder through a link out of the home
    with pytest.raises(UnsafePath, match="outside"):
        AGENT_FILES.create_file(home / "link" / "made" / "n.md", "x\n", root)
    assert not (home.parent / "made").exists()


def test_publish_never_replaces_a_file(tmp_path: Path) -> None:
    write_new_file(tmp_path / "temp", b"new", 0o600)
    (tmp_path / "taken").write_bytes(b"old")
    assert not publish_new_file(tmp_path / "temp", tmp_path / "taken", b"new", 0o600)
    assert (tmp_path / "taken").read_bytes() == b"old"
    assert publish_new_file(tmp_path / "temp", tmp_path / "free", b"new", 0o600)
    assert (tmp_path / "free").read_bytes() == b"new"
    with pytest.raises(FileExistsError):
        write_new_file(tmp_path / "taken", b"x", 0o600)
    assert (tmp_path / "taken").read_bytes() == b"old"  # a refused create removes nothing


def test_json_lines_skips_long_lines_and_counts_bytes() -> None:
    data = b'{"a": 1}\n' + b"x" * 50 + b"\n" + b'{"b": 2}\n{"cut'
    lines = list(json_lines(io.BytesIO(data), max_line_bytes=20, first_number=3))
    assert [number for number, _raw, _consumed in lines] == [4, 5, 6, 7]
    assert [raw for _number, raw, _consumed in lines] == [b'{"a": 1}\n', None, b'{"b": 2}\n',
                                                         b'{"cut']
    assert sum(consumed for _number, _raw, consumed in lines) == len(data)


def test_replace_atomically_is_whole_or_nothing(tmp_path: Path) -> None:
    target = tmp_path / "settings.json"
    target.write_text("{}\n", encoding="utf-8")

    def refuse() -> None:
        raise Conflict("changed meanwhile")

    with pytest.raises(Conflict):
        replace_atomically(target, b'{"a": 1}\n', 0o640, refuse)
    assert target.read_text(encoding="utf-8") == "{}\n" and _no_temp_left(tmp_path)
    replace_atomically(target, b'{"a": 1}\n', 0o640)
    assert target.read_bytes() == b'{"a": 1}\n' and _no_temp_left(tmp_path)
    assert stat.S_IMODE(target.stat().st_mode) == 0o640


def test_settings_files_are_read_with_the_same_rules(tmp_path: Path) -> None:
    from memtui.engine.agent_setup import read_settings
    from memtui.errors import InvalidInput

    (tmp_path / "binary.json").write_bytes(b'{"a": "\x00"}')
    with pytest.raises(InvalidInput, match="binary.json: binary file"):
        read_settings(tmp_path / "binary.json", tmp_path)
    (tmp_path / "secret").write_text("{}", encoding="utf-8")
    folder = tmp_path / "home"
    folder.mkdir()
    os.symlink(tmp_path / "secret", folder / "settings.json")
    with pytest.raises(InvalidInput, match="points outside"):
        read_settings(folder / "settings.json", folder)
    assert read_settings(folder / "absent.json", folder) is None


BOM = b"\xef\xbb\xbf"


@pytest.mark.parametrize("original,text,expected", [
    (BOM + b"a\r\nb\r\n", "a\r\nb\r\nc\n", BOM + b"a\r\nb\r\nc\r\n"),
    (b"a\r\nb", "a\r\nb\nc", b"a\r\nb\r\nc"),
    (b"a\nb\r\n", "a\nb\r\nc\n", b"a\nb\r\nc\n"),  # mixed: nothing converted
    (b"a\n", "a\nb\n", b"a\nb\n"),
    (BOM + b"x", "xy", BOM + b"xy"),
    (None, "a\n", b"a\n"),
    (b"", "a\n", b"a\n"),
])
def test_encode_like_keeps_the_bom_and_crlf_lines(original: bytes | None, text: str,
                                                   expected: bytes) -> None:
    assert encode_like(text, original) == expected


def test_replace_keeps_the_bom_and_crlf_of_the_file(home: Path) -> None:
    path = home / "crlf.md"
    path.write_bytes(BOM + b"# Notes\r\n- one\r\n")
    text, stamp = AGENT_FILES.read_text_stamped(path, real_root(home))
    assert text == "# Notes\r\n- one\r\n"  # readers never see the BOM
    AGENT_FILES.replace_file(stamp, text + "- two\n", real_root(home))
    assert path.read_bytes() == BOM + b"# Notes\r\n- one\r\n- two\r\n"


def _as_other_user(monkeypatch: pytest.MonkeyPatch) -> None:
    """memtui runs as a user who owns none of the test's files."""
    other = os.geteuid() + 4242
    monkeypatch.setattr(os, "geteuid", lambda: other)


def test_another_users_file_is_never_written(home: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    path = home / "note.md"
    root = real_root(home)
    stamp = AGENT_FILES.read_stamped(path, root)[1]
    _as_other_user(monkeypatch)
    with pytest.raises(UnsafePath, match="belongs to another user") as refused:
        AGENT_FILES.replace_file(stamp, "changed\n", root)
    assert refused.value.exit_code == 4
    with pytest.raises(UnsafePath, match="belongs to another user"):
        AGENT_FILES.remove_file(stamp, root)
    with pytest.raises(UnsafePath, match=r"its folder .*belongs to another user"):
        AGENT_FILES.create_file(home / "new" / "made.md", "x\n", root)
    assert path.read_text(encoding="utf-8") == "hello\n" and not (home / "new").exists()


def test_replace_keeps_the_group(tmp_path: Path) -> None:
    group = 4242 if os.geteuid() == 0 else next(
        (gid for gid in os.getgroups() if gid != os.getegid()), None)
    if group is None:
        pytest.skip("no second group to give the file")
    path = tmp_path / "shared.json"
    path.write_text("{}", encoding="utf-8")
    os.chown(path, -1, group)
    replace_atomically(path, b"{ }", 0o640)
    assert path.stat().st_gid == group and path.read_bytes() == b"{ }"
