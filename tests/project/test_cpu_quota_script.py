"""``scripts/cpu-quota``: refuses bad arguments; with a cgroup CPU controller it runs the
command throttled, passes its exit status on and leaves no cgroup behind.

The cgroup tests look at their own cgroup only (the script names it by its process id): other
runs of the script -- another test on another pytest-xdist worker, another checkout's suite --
may make and remove theirs at the same time. They wait for nothing by the clock: the command
says on its stdout, once it runs in the cgroup with ``SIGINT`` at its default action, that it
is there, and it ends when the test closes its stdin.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "cpu-quota"
V2_ROOT = Path("/sys/fs/cgroup")
V1_ROOT = Path("/sys/fs/cgroup/cpu")
CGROUP_ROOT = V2_ROOT if (V2_ROOT / "cgroup.controllers").is_file() else V1_ROOT
"""Where the script makes its cgroup (the same choice as the script's)."""
INTERRUPTED = 130
"""The script's exit status after ``SIGINT`` (128 + 2, as a shell's)."""
COMMAND_STATUS = 3
COMMAND = f"""
import signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)  # whatever the test runner's parent chose
print(*open("/proc/self/cgroup").read().split(), flush=True)  # "I run, in this cgroup"
sys.stdin.read()  # until the test closes stdin
sys.exit({COMMAND_STATUS})
"""
"""The command run under the quota: it prints its cgroups on one line, then waits."""


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", str(SCRIPT), *args], capture_output=True, text=True,
                          check=False)


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
    if CGROUP_ROOT is V2_ROOT:
        controllers = V2_ROOT / "cgroup.subtree_control"
        return controllers.is_file() and "cpu" in controllers.read_text().split()
    return (V1_ROOT / "cpu.cfs_quota_us").is_file()


needs_cgroups = pytest.mark.skipif(not _can_make_cgroups(),
                                   reason="needs root and a cgroup CPU controller")


def _group(child: subprocess.Popen[str]) -> Path:
    """The cgroup the script run ``child`` makes (``memtui-cpu-quota-$$``)."""
    return CGROUP_ROOT / f"memtui-cpu-quota-{child.pid}"


Start = Callable[[str], subprocess.Popen[str]]


@pytest.fixture
def start() -> Iterator[Start]:
    """Start ``scripts/cpu-quota PERCENT -- python -c COMMAND`` in a process group of its own
    and return once the command runs in its cgroup; a run the test left running is killed."""
    children: list[subprocess.Popen[str]] = []

    def run(percent: str) -> subprocess.Popen[str]:
        child = subprocess.Popen(["bash", str(SCRIPT), percent, "--", sys.executable, "-c",
                                  COMMAND], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 text=True, start_new_session=True)
        children.append(child)
        assert child.stdout is not None
        cgroups = child.stdout.readline().split()  # none when the script ended without it
        assert any(line.endswith(f":/{_group(child).name}") for line in cgroups), cgroups
        assert _group(child).is_dir()
        return child

    yield run
    for child in children:
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()
            if _group(child).exists():
                _group(child).rmdir()  # empty once its processes are gone
        for pipe in (child.stdin, child.stdout):
            if pipe is not None:
                pipe.close()


@needs_cgroups
def test_the_command_runs_in_the_quota_and_its_status_comes_back(start: Start) -> None:
    child = start("25")
    assert child.stdin is not None
    child.stdin.close()  # the command ends
    assert child.wait() == COMMAND_STATUS
    assert not _group(child).exists()


@needs_cgroups
def test_an_interrupted_run_leaves_no_cgroup(start: Start) -> None:
    child = start("50")
    os.killpg(child.pid, signal.SIGINT)  # as a terminal's Ctrl-C: the script and the command
    assert child.stdin is not None
    child.stdin.close()  # (had the command lived on, it would end now, with its own status)
    assert child.wait() == INTERRUPTED
    assert not _group(child).exists()
