"""``scripts/cpu-quota``: refuses bad arguments; with a cgroup CPU controller it runs the
command throttled, passes its exit status on and leaves no cgroup behind."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "cpu-quota"
CGROUP_ROOTS = (Path("/sys/fs/cgroup"), Path("/sys/fs/cgroup/cpu"))


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", str(SCRIPT), *args], capture_output=True, text=True,
                          timeout=120, check=False)


@pytest.mark.parametrize("args", [(), ("50",), ("50", "true"), ("0", "--", "true"),
                                  ("5", "--", "true"), ("101", "--", "true"),
                                  ("half", "--", "true")])
def test_bad_arguments_are_refused(args: tuple[str, ...]) -> None:
    done = _run(*args)
    assert done.returncode == 2
    assert "cpu-quota" in done.stderr


def _can_make_cgroups() -> bool:
    if os.geteuid() != 0:
        return False
    v2 = Path("/sys/fs/cgroup/cgroup.subtree_control")
    if Path("/sys/fs/cgroup/cgroup.controllers").is_file():
        return v2.is_file() and "cpu" in v2.read_text().split()
    return Path("/sys/fs/cgroup/cpu/cpu.cfs_quota_us").is_file()


def _leftovers() -> list[Path]:
    return [p for root in CGROUP_ROOTS if root.is_dir()
            for p in root.glob("memtui-cpu-quota-*")]


@pytest.mark.skipif(not _can_make_cgroups(), reason="needs root and a cgroup CPU controller")
def test_the_command_runs_in_the_quota_and_its_status_comes_back() -> None:
    before = _leftovers()
    done = _run("25", "--", sys.executable, "-c",
                "import sys; print(open('/proc/self/cgroup').read()); sys.exit(3)")
    assert done.returncode == 3
    assert "memtui-cpu-quota-" in done.stdout  # the command ran inside the new cgroup
    assert _leftovers() == before


@pytest.mark.skipif(not _can_make_cgroups(), reason="needs root and a cgroup CPU controller")
def test_an_interrupted_run_leaves_no_cgroup() -> None:
    import signal
    import time

    before = _leftovers()
    child = subprocess.Popen(["bash", str(SCRIPT), "50", "--", "sleep", "30"],
                             start_new_session=True)
    for _ in range(2000):  # until the command runs in its cgroup (bounded by count)
        if len(_leftovers()) > len(before):
            break
        time.sleep(0.01)
    assert len(_leftovers()) == len(before) + 1
    os.killpg(child.pid, signal.SIGINT)
    assert child.wait(timeout=60) != 0
    assert _leftovers() == before
