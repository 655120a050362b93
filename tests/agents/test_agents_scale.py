"""Reading agent homes scales with the number of projects (a home of 100 projects
in well under a second; the bench row ``memtui.bench.agents`` times it). Here it is bound by
operation counts, never by the clock: the files opened and folders listed grow linearly."""

from __future__ import annotations

from pathlib import Path

import pytest

from memtui.bench.agents import TOPICS_PER_PROJECT, build_agent_homes
from memtui.engine import safe_files
from memtui.engine.agents.overview import agents_overview
from memtui.engine.safe_files import SafeFiles


def _count(tmp_path: Path, projects: int, monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    counts = {"open": 0, "list": 0, "realpath": 0}
    real_open, real_list = SafeFiles.open_regular, SafeFiles.list_folder
    real_resolve = safe_files.os.path.realpath

    def counted_open(files: SafeFiles, path: Path, root: Path,
                     max_bytes: int | None = None) -> int:
        counts["open"] += 1
        return real_open(files, path, root, max_bytes)

    def counted_list(files: SafeFiles, folder: Path, root: Path) -> list[Path]:
        counts["list"] += 1
        return real_list(files, folder, root)

    def counted_realpath(path: str, *args: object, **kwargs: object) -> str:
        counts["realpath"] += 1
        return real_resolve(path, *args, **kwargs)  # type: ignore[arg-type]

    root = tmp_path / f"n{projects}"
    claude, gemini = build_agent_homes(root, projects)
    with monkeypatch.context() as patch:
        patch.setattr(SafeFiles, "open_regular", counted_open)
        patch.setattr(SafeFiles, "list_folder", counted_list)
        patch.setattr(safe_files.os.path, "realpath", counted_realpath)
        overview = agents_overview(claude, gemini, root / "no-codex",
                                   env={"HOME": str(root)})
    assert len(overview.rows) == 2 * projects + 1
    return counts


def test_reading_homes_is_linear_in_projects(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    small = _count(tmp_path, 10, monkeypatch)
    big = _count(tmp_path, 100, monkeypatch)
    # every Claude project: index + topics + a transcript head; every Gemini one: 4 files
    per_project = (TOPICS_PER_PROJECT + 2) + 4
    assert big["open"] <= per_project * 100 + 20
    assert big["open"] - small["open"] == pytest.approx(90 * per_project, abs=90)
    assert big["list"] <= 10 * 100
    # folders are resolved once per read (a few per project, one of them for Gemini CLI's
    # folder trust), not once per file
    assert big["realpath"] <= 9 * 100
    assert big["realpath"] - small["realpath"] <= 9 * 90
