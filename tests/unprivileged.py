"""Run memtui in a child process as an unprivileged user, from any checkout.

Tests that need a file the user cannot write (a read-only Codex home) drop privileges when
they run as root (``setpriv`` to ``nobody``). That child must still be able to run Python and
import memtui and its dependencies, which it cannot when the checkout or the virtual
environment sits in a private (0700) folder. ``child_command`` probes that, and when the
child cannot import memtui it copies the package and its runtime dependencies into a
world-readable folder and points ``PYTHONPATH`` there.
"""

from __future__ import annotations

import importlib.metadata as metadata
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from packaging.requirements import Requirement

NOBODY = 65534
"""The uid and gid the child runs as when the tests run as root."""
PROBE = "import memtui.cli.main, memtui.engine.codex.reader, rich, zstandard"
"""What the child must be able to import."""
PROBE_TIMEOUT_S = 60
SKIPPED_PARTS = ("__pycache__", "bin")
"""Files of a distribution the child never needs."""
CHECKOUT = Path(__file__).resolve().parents[1]


def other_user_prefix() -> list[str]:
    """What runs a command as ``NOBODY`` when the tests run as root (nothing otherwise)."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv to drop privileges")
    return [setpriv, f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]


def _probe(command: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*command, "-c", PROBE], capture_output=True, text=True, env=env,
                          cwd=str(cwd), timeout=PROBE_TIMEOUT_S, check=False)


def _runtime_distributions() -> list[metadata.Distribution]:
    """memtui's runtime dependencies, recursively (no extras, no memtui itself)."""
    found: dict[str, metadata.Distribution] = {}
    todo = ["memtui"]
    while todo:
        name = todo.pop()
        key = name.lower().replace("_", "-")
        if key in found:
            continue
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        found[key] = dist
        for line in dist.requires or []:
            requirement = Requirement(line)
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                todo.append(requirement.name)
    return [dist for key, dist in found.items() if key != "memtui"]


def _readable(folder: Path) -> None:
    for item in [folder, *folder.rglob("*")]:
        if not item.is_symlink():
            item.chmod(0o755 if item.is_dir() else 0o644)


def copy_python_path(target: Path) -> Path:
    """memtui and its runtime dependencies copied into ``target`` (made world-readable)."""
    target.mkdir(parents=True, exist_ok=True)
    shutil.copytree(CHECKOUT / "memtui", target / "memtui",
                    ignore=shutil.ignore_patterns("__pycache__"), dirs_exist_ok=True)
    for dist in _runtime_distributions():
        for file in dist.files or []:
            parts = Path(str(file)).parts
            if parts[0] == ".." or any(part in SKIPPED_PARTS for part in parts):
                continue
            source = Path(str(dist.locate_file(file)))
            if source.is_file():
                destination = target.joinpath(*parts)
                destination.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(source, destination)
    _readable(target)
    return target


def child_command(workdir: Path) -> tuple[list[str], dict[str, str]]:
    """The command prefix (dropping privileges when root, then a Python) and the
    environment with which a child run in ``workdir`` (world-readable) imports memtui."""
    prefix = other_user_prefix()
    env = {**os.environ, "PYTHONPATH": str(CHECKOUT), "HOME": str(workdir)}
    pythons = [sys.executable]
    base = getattr(sys, "_base_executable", None)
    if base and base not in pythons:
        pythons.append(base)
    pythons += [p for p in (shutil.which(f"python{sys.version_info[0]}.{sys.version_info[1]}"),)
                if p and p not in pythons]
    for python in pythons:
        if _probe([*prefix, python], env, workdir).returncode == 0:
            return [*prefix, python], env
    env["PYTHONPATH"] = str(copy_python_path(workdir / "pythonpath"))
    failures = []
    for python in pythons:
        probe = _probe([*prefix, python], env, workdir)
        if probe.returncode == 0:
            return [*prefix, python], env
        failures.append(f"{python}: {probe.stderr.strip().splitlines()[-1:]}")
    pytest.fail("an unprivileged child cannot run memtui: " + "; ".join(failures))
