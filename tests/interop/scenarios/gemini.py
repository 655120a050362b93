"""Gemini CLI's scenario: the real program in a throwaway home against the fake model.

``prepare`` writes the settings a user of the fake model needs (API-key auth, telemetry,
usage statistics and update checks off) and, unless told not to, trusts the project folder
in ``~/.gemini/trustedFolders.json`` (folder trust is on by default: in an untrusted folder
Gemini CLI disables every MCP server and overrides ``--yolo``). ``run`` is one
non-interactive session (``gemini -p ... --yolo``) against a ``FakeModelServer``.

``remember_policy`` does what Gemini CLI 0.61's system prompt tells the model to do to
remember ("There is no ``save_memory`` tool"): it reads the private project memory index
path and the global personal memory path from the prompt and writes a brief fact into each
with the ``write_file`` tool, the private one ``MEMORY.md`` entry directly.

``regenerate(dest)`` runs ``memtui hooks install gemini --write``, an MCP session and the
remembering session, and keeps what memtui reads of the home the program left.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..agent_install import AgentProgram, install
from ..conftest import AgentHome
from ..fake_model.exchange import CallTool, Exchange, Policy, Reply, Say, add_then_recall
from ..fake_model.gemini import GeminiAdapter
from ..fake_model.server import FakeModelServer

GEMINI_DIR = ".gemini"
FAKE_API_KEY = "fake-gemini-key"
PRIVATE_FACT = "On my machine the test database listens on port 5433."
GLOBAL_FACT = "I prefer tabs over spaces in every project."
MCP_MEMORY = "The shop project deploys from the release branch only."
MCP_QUERY = "deploys release branch"
DONE = "Done."
REMEMBER_PROMPT = ("Remember two things: on my machine the test database listens on port "
                   "5433, and across all my projects I prefer tabs over spaces.")
MCP_PROMPT = "Store in memtui that the shop project deploys from the release branch, then " \
             "recall it."
_PRIVATE_RE = re.compile(r"\*\*Private Project Memory\*\* \(`(?P<path>[^`]+)`\)")
_GLOBAL_RE = re.compile(r"\*\*Global Personal Memory\*\* \(`(?P<path>[^`]+)`\)")
WRITE_TOOL = "write_file"
KEPT_HOME_FILES = ("GEMINI.md", "projects.json", "settings.json", "trustedFolders.json")
"""What the fixture keeps of ``~/.gemini`` itself (memtui reads these); per project folder
it keeps ``.project_root`` and ``memory/`` (the inbox included)."""


def settings(*, folder_trust: bool = True) -> dict[str, Any]:
    """The user settings of the throwaway home."""
    return {
        "security": {"auth": {"selectedType": "gemini-api-key"},
                     "folderTrust": {"enabled": folder_trust}},
        "privacy": {"usageStatisticsEnabled": False},
        "telemetry": {"enabled": False},
        "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
    }


def gemini_dir(home: AgentHome) -> Path:
    """``~/.gemini`` of the home."""
    return home.root / GEMINI_DIR


def prepare(home: AgentHome, *, trusted: bool = True, folder_trust: bool = True) -> None:
    """Write ``~/.gemini/settings.json`` and, when ``trusted``, trust the project folder."""
    folder = gemini_dir(home)
    folder.mkdir(mode=0o700, exist_ok=True)
    path = folder / "settings.json"
    current = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    path.write_text(json.dumps({**current, **settings(folder_trust=folder_trust)}, indent=2),
                    encoding="utf-8")
    if trusted:
        (folder / "trustedFolders.json").write_text(
            json.dumps({str(home.project): "TRUST_FOLDER"}, indent=2), encoding="utf-8")


def environment(server: FakeModelServer) -> dict[str, str]:
    """What points Gemini CLI at the fake model."""
    return {"GEMINI_API_KEY": FAKE_API_KEY, "GOOGLE_GEMINI_BASE_URL": server.url}


def run(home: AgentHome, program: AgentProgram, server: FakeModelServer, prompt: str
        ) -> Any:
    """One non-interactive session in the project folder (tools approved: ``--yolo``)."""
    return home.run([program.program, "-p", prompt, "--yolo", "--output-format", "text"],
                    extra_env=environment(server))


MCP_LIST_ATTEMPTS = 3
"""``gemini mcp list`` gives each server 5 s (its ``MCP_LIST_DEFAULT_TIMEOUT_MSEC``) to start
and answer; on a loaded machine memtui's start can take longer, so a server reported
Disconnected is listed again, up to this many times in all."""


def mcp_list(home: AgentHome, program: AgentProgram, *, cwd: Path | None = None) -> Any:
    """``gemini mcp list`` (its report goes to stdout or stderr), listed again while it says
    memtui's server is Disconnected (see ``MCP_LIST_ATTEMPTS``)."""
    for _ in range(MCP_LIST_ATTEMPTS):
        done = home.run([program.program, "mcp", "list"], cwd=cwd,
                        extra_env={"GEMINI_API_KEY": FAKE_API_KEY})
        if "Disconnected" not in done.stdout + done.stderr:
            break
    return done


def install_memtui(home: AgentHome) -> Any:
    """``memtui hooks install gemini --write`` in the home."""
    return home.memtui("hooks", "install", "gemini", "--write")


def prompt_paths(exchange: Exchange) -> tuple[str | None, str | None]:
    """(private project memory index, global personal memory file) as the system prompt
    names them."""
    private = _PRIVATE_RE.search(exchange.system)
    shared = _GLOBAL_RE.search(exchange.system)
    return (private.group("path") if private else None,
            shared.group("path") if shared else None)


def remember_policy() -> Policy:
    """Write the private fact into ``MEMORY.md``, then the global one into the global file,
    each with ``write_file``, then answer ``DONE``."""

    def policy(exchange: Exchange) -> Reply:
        private, shared = prompt_paths(exchange)
        if exchange.has_tool(WRITE_TOOL) is None or private is None or shared is None:
            return Say("The prompt named no memory files.")
        steps = [(private, f"- {PRIVATE_FACT}\n"), (shared, f"- {GLOBAL_FACT}\n")]
        done = len(exchange.tool_results)
        if done >= len(steps):
            return Say(DONE)
        path, content = steps[done]
        return CallTool(WRITE_TOOL, {"file_path": path, "content": content})

    return policy


def mcp_policy() -> Policy:
    """Call memtui's ``memory_add``, then ``memory_recall``, then answer ``DONE``."""
    return add_then_recall(MCP_MEMORY, "fact", MCP_QUERY, DONE)


def _project_folder(home: AgentHome) -> Path:
    """``~/.gemini/tmp/<slug>`` of the project, by projects.json."""
    registry = json.loads((gemini_dir(home) / "projects.json").read_text(encoding="utf-8"))
    slug = registry["projects"][str(home.project)]
    return gemini_dir(home) / "tmp" / slug


def keep(home: AgentHome, dest: Path) -> None:
    """Copy what memtui reads of the home into ``dest/.gemini`` (project folders: their
    ``.project_root`` and ``memory/``)."""
    source = gemini_dir(home)
    target = dest / GEMINI_DIR
    target.mkdir(parents=True, exist_ok=True)
    for name in KEPT_HOME_FILES:
        if (source / name).is_file():
            shutil.copy2(source / name, target / name)
    for folder in sorted((source / "tmp").iterdir()):
        if not folder.is_dir():
            continue
        kept = target / "tmp" / folder.name
        kept.mkdir(parents=True)
        if (folder / ".project_root").is_file():
            shutil.copy2(folder / ".project_root", kept / ".project_root")
        if (folder / "memory").is_dir():
            shutil.copytree(folder / "memory", kept / "memory")


def new_home(base: Path) -> AgentHome:
    """A throwaway home laid out as the suite's ``agent_home`` fixture lays it out."""
    root = base / "home"
    root.mkdir(mode=0o700)
    project = root / "work" / "shop"
    project.mkdir(parents=True)
    db = root / "memtui.db"
    node = shutil.which("node")
    path = os.pathsep.join(p for p in (str(Path(node).parent) if node else "",
                                       "/usr/local/bin", "/usr/bin", "/bin") if p)
    env = {"HOME": str(root), "PATH": path, "LANG": "C.UTF-8", "TERM": "dumb",
           "USER": "alice", "LOGNAME": "alice", "MEMTUI_USER": "alice", "MEMTUI_DB": str(db),
           "MEMTUI_CONFIG": str(root / "memtui-config.toml"),
           "XDG_CONFIG_HOME": str(root / ".config"), "XDG_CACHE_HOME": str(root / ".cache"),
           "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost",
           "TMPDIR": str(base)}
    return AgentHome(root, project, db, env)


def play(home: AgentHome, program: AgentProgram) -> list[str]:
    """The whole scenario in ``home``; returns the commands run, for SOURCE.md."""
    prepare(home)
    commands = []
    done = install_memtui(home)
    if done.returncode != 0:
        raise RuntimeError(f"memtui hooks install gemini: {done.stderr.strip()[:300]}")
    commands.append("memtui hooks install gemini --write")
    with FakeModelServer([GeminiAdapter()], mcp_policy()) as server:
        done = run(home, program, server, MCP_PROMPT)
        commands.append(f"gemini -p {MCP_PROMPT!r} --yolo   # fake model: memory_add, "
                        "memory_recall")
        server.policy = remember_policy()
        done = run(home, program, server, REMEMBER_PROMPT)
        commands.append(f"gemini -p {REMEMBER_PROMPT!r} --yolo   # fake model: write_file "
                        "MEMORY.md, write_file ~/.gemini/GEMINI.md")
    if done.returncode != 0:
        raise RuntimeError(f"gemini: {done.stderr.strip()[-300:]}")
    return commands


SOURCE_TEMPLATE = """# Gemini CLI {version}: a home the real program wrote

- Program: `{package}@{version}` (npm), run by `tests/interop/scenarios/gemini.py`
  (`scripts/regenerate-agent-homes gemini`) on {date} (Node {node}).
- Home: a throwaway HOME (`{root}`), the project folder `{project}` trusted in
  `trustedFolders.json`; the model was the suite's fake model on 127.0.0.1.
- Commands, in order:
{commands}
- Kept: `.gemini/{{{kept}}}` and, per `tmp/<slug>/`, `.project_root` and `memory/` — the
  files memtui reads. Everything else (chats, logs, history, installation ids) was left out.
  No byte of a kept file was changed; the absolute paths in them are the throwaway home's.
"""


def regenerate(dest: Path) -> None:
    """Run the scenario with the pinned Gemini CLI and keep the home in ``dest``."""
    program = install("gemini")
    with tempfile.TemporaryDirectory(prefix="memtui-gemini-") as scratch:
        home = new_home(Path(scratch))
        commands = play(home, program)
        keep(home, dest)
        node = home.run(["node", "--version"]).stdout.strip()
        (dest / "SOURCE.md").write_text(SOURCE_TEMPLATE.format(
            version=program.version, package=program.package,
            date=datetime.now(UTC).strftime("%Y-%m-%d"), node=node, root=home.root,
            project=home.project, commands="\n".join(f"  - `{c}`" for c in commands),
            kept=",".join(KEPT_HOME_FILES)), encoding="utf-8")


if __name__ == "__main__":  # pragma: no cover - a manual run
    regenerate(Path(sys.argv[1]))
