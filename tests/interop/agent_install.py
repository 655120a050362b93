"""Install the pinned agent CLIs from npm into a cache folder, once, and find their programs.

Each agent gets a folder of its own, ``<cache>/<agent>-<version>/``, so changing one pin does
not reinstall the others. The cache is ``$MEMTUI_AGENTS_CACHE``, else
``~/.cache/memtui/agents``. ``$MEMTUI_AGENT_VERSIONS`` overrides pins for a run, for example
``claude-code=latest,codex=0.171.0`` (``latest`` asks npm for the newest version).

Run as a script to install ahead of the tests (``.ci/run`` does): ``python
tests/interop/agent_install.py``; it prints one line per agent with the version and the path.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

PINS_FILE = Path(__file__).with_name("agent_versions.json")
NPM_TIMEOUT_S = 900
"""How long one ``npm install`` may take (three agents are about 740 MB unpacked)."""
VIEW_TIMEOUT_S = 60
READY_MARK = ".memtui-installed"


class AgentsUnavailable(RuntimeError):
    """npm is missing or the registry could not be reached: the suite cannot run here."""


@dataclass(frozen=True)
class AgentProgram:
    """One installed agent CLI: its name in memtui, npm package, version and program path."""

    agent: str
    package: str
    version: str
    program: Path


def cache_root() -> Path:
    """Where installed agents are kept."""
    configured = os.environ.get("MEMTUI_AGENTS_CACHE")
    if configured:
        return Path(configured)
    return Path.home() / ".cache" / "memtui" / "agents"


def pinned() -> dict[str, dict[str, str]]:
    """The pins of ``agent_versions.json`` with ``$MEMTUI_AGENT_VERSIONS`` applied."""
    pins: dict[str, dict[str, str]] = json.loads(PINS_FILE.read_text(encoding="utf-8"))
    override = os.environ.get("MEMTUI_AGENT_VERSIONS", "").strip()
    for part in filter(None, (p.strip() for p in override.split(","))):
        name, _, version = part.partition("=")
        if name not in pins or not version:
            raise ValueError(f"MEMTUI_AGENT_VERSIONS: {part!r} is not agent=version "
                             f"(agents: {', '.join(pins)})")
        pins[name] = {**pins[name], "version": version}
    return pins


def _npm() -> str:
    npm = shutil.which("npm")
    if npm is None:
        raise AgentsUnavailable("npm is not installed (Debian: apt-get install nodejs npm)")
    return npm


def _resolve(package: str, version: str) -> str:
    if version != "latest":
        return version
    done = subprocess.run([_npm(), "view", f"{package}@latest", "version"], capture_output=True,
                          text=True, timeout=VIEW_TIMEOUT_S, check=False)
    if done.returncode != 0 or not done.stdout.strip():
        raise AgentsUnavailable(f"npm view {package}: {done.stderr.strip()[:200]}")
    return done.stdout.strip().splitlines()[-1]


def install(agent: str) -> AgentProgram:
    """The agent's program, installed into the cache first when it is not there yet."""
    pin = pinned()[agent]
    version = _resolve(pin["package"], pin["version"])
    folder = cache_root() / f"{agent}-{version}"
    program = folder / "node_modules" / ".bin" / pin["bin"]
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # two test workers install once
        if not (folder / READY_MARK).exists() or not program.exists():
            done = subprocess.run(
                [_npm(), "install", "--no-audit", "--no-fund", "--no-save", "--prefix",
                 str(folder), f"{pin['package']}@{version}"],
                capture_output=True, text=True, timeout=NPM_TIMEOUT_S, check=False)
            if done.returncode != 0 or not program.exists():
                raise AgentsUnavailable(
                    f"npm install {pin['package']}@{version} failed: "
                    f"{(done.stderr or done.stdout).strip().splitlines()[-1:]}")
            (folder / READY_MARK).write_text(version + "\n", encoding="utf-8")
    return AgentProgram(agent, pin["package"], version, program)


def main() -> int:
    """Install every pinned agent; one line each."""
    status = 0
    for agent in pinned():
        try:
            found = install(agent)
        except AgentsUnavailable as error:
            print(f"{agent}: {error}", file=sys.stderr)
            status = 1
            continue
        print(f"{agent} {found.version}: {found.program}")
    return status


if __name__ == "__main__":
    raise SystemExit(main())
