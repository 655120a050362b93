"""Human tables at 80 columns: an id is never broken across lines (a copied id is whole);
the other columns give way."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

LONG = ("a long goal text that has to wrap over several lines of the table at eighty "
        "columns so that every other column is squeezed")
PROJECT = "payments-platform-with-a-long-id-2026"


@pytest.fixture
def narrow(monkeypatch: pytest.MonkeyPatch) -> None:
    """A terminal 80 columns wide, whatever the test runner's own terminal is."""
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setenv("LINES", "24")


def _whole_on_a_line(out: str, ids: list[str]) -> None:
    lines = out.splitlines()
    assert max(len(line) for line in lines) <= 80, out
    for value in ids:
        assert any(value in line for line in lines), (value, out)


def test_every_table_keeps_its_ids_whole(cli: Callable[..., Any], narrow: None) -> None:
    assert cli("--user", "alice", "project", "add", PROJECT, "--name", LONG,
               "--root", "/srv/" + "deep/" * 12).code == 0
    tasks = []
    for n in range(3):
        result = cli("--user", "alice", "--json", "task", "add", "--project", PROJECT,
                     "--goal", f"{LONG} {n}", "--prompt", "p", "--result", "r",
                     "--started", "2026-12-01T10:00:00Z", "--finished", "2026-12-01T10:05:00Z")
        assert result.code == 0, result.err
        tasks.append(result.json["id"])
    memory = cli("--user", "alice", "--json", "memory", "add", LONG, "--kind", "fact",
                 "--project", PROJECT).json["id"]
    assert cli("--user", "alice", "run", "--force").code == 0
    for args, ids in ((("log",), tasks), (("task", "list", "--project", PROJECT), tasks),
                      (("memory", "list", "--project", PROJECT), [memory]),
                      (("project", "list"), [PROJECT])):
        result = cli("--user", "alice", *args)
        assert result.code == 0, (args, result.err)
        _whole_on_a_line(result.out, ids)
        for value in ids:  # the column is as wide as the id: no stray tail on the next line
            tail = value[-3:]
            assert not re.search(rf"^\s*{re.escape(tail)}\s*$", result.out, re.MULTILINE)


def _export_to(cli: Callable[..., Any], folder: Any) -> Any:
    assert cli("--user", "alice", "memory", "add", "Prefers pytest", "--kind", "fact").code == 0
    result = cli("--user", "alice", "claude", "export", str(folder))
    assert result.code == 0, result.err
    return result


def test_piped_text_is_never_wrapped(cli: Callable[..., Any], narrow: None,
                                     tmp_path: Any) -> None:
    folder = tmp_path / ("a-folder-with-a-long-name-" * 4) / "out"
    folder.parent.mkdir()
    out = _export_to(cli, folder).out
    assert f"exported 1 memories to {folder} (1 files)" in out.splitlines()
    assert f"browse it with: memtui claude show --claude-home {folder}" in out.splitlines()


def test_in_a_terminal_text_wraps_between_words(cli: Callable[..., Any],
                                                terminal_80: None, tmp_path: Any) -> None:
    folder = tmp_path / "out"
    assert len(str(folder)) < 80
    lines = _export_to(cli, folder).out.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert any(line.strip() in (str(folder), f"{folder} (1 files)") or
               line.endswith(f" {folder}") for line in lines), lines


@pytest.mark.parametrize(("count", "doctor", "agents"), [
    (0, "0 bytes", "0 B"), (1023, "1023 bytes", "1023 B"), (1024, "1.0 KiB", "1.0 KB"),
    (25_000, "24.4 KiB", "24.4 KB"), (5 * 1024 ** 2, "5.0 MiB", "5120.0 KB"),
    (3 * 1024 ** 3, "3.0 GiB", "3145728.0 KB"), (2 * 1024 ** 4, "2048.0 GiB", "2147483648.0 KB"),
])
def test_byte_sizes_read_the_same_in_doctor_and_in_the_agents_table(
        count: int, doctor: str, agents: str) -> None:
    from memtui.cli.cmd_agent_stores import human_size
    from memtui.cli.render import byte_size

    assert (byte_size(count), human_size(count)) == (doctor, agents)


def test_codex_job_lines_say_lease_retry_and_error() -> None:
    """``codex show``'s job queue: a job's key, kind and status, then (dim) its lease, retry
    and last error; the global job without its key."""
    from memtui.cli.cmd_codex import _job_line
    from memtui.engine.codex.models import Job

    def job(kind: str, key: str, status: str, **fields: Any) -> Job:
        values: dict[str, Any] = dict.fromkeys(
            ("worker_id", "ownership_token", "started_at", "finished_at", "lease_until",
             "retry_at", "retry_remaining", "last_error", "input_watermark",
             "last_success_watermark"))
        return Job(kind, key, status, **(values | fields))

    running = _job_line(job("memory_stage1", "0199-a", "running", retry_remaining=3,
                            lease_until="2026-12-01T10:00:00Z", is_stage1=True))
    assert running.plain == ("- 0199-a  stage-1 running · 3 retries left\n"
                             "    lease until 2026-12-01 10:00")
    assert [span.style for span in running.spans] == ["dim"]
    failed = _job_line(job("memory_stage1", "0199-b", "error", retry_remaining=2,
                           retry_at="2026-12-02T08:30:00Z", retry_pending=True,
                           last_error="stream disconnected " * 10, is_stage1=True))
    assert failed.plain.startswith("- 0199-b  stage-1 error · 2 retries left\n    retry at "
                                   "2026-12-02 08:30; error: stream disconnected")
    assert failed.plain.endswith("strea…")
    done = _job_line(job("memory_consolidate_global", "global", "done", is_consolidation=True))
    assert done.plain == "- global done" and not done.spans
