"""Claude Code's scenario: run the real ``claude -p`` in a throwaway home against the fake
model, with memtui's hooks and MCP server installed, and keep the home it leaves.

The contract tests (``tests/interop/test_claude_code.py``) use the same pieces: the
environment that points Claude Code at the fake model and switches off its other traffic,
the command line of a print-mode session, and the policy that has the model save topic files
through Claude Code's own Write tool the way its system prompt asks.

``regenerate(dest)`` writes ``tests/data/agent_homes/claude-code-<version>/``: the memory
folder Claude Code wrote (its own bytes), the session's transcript, ``settings.json`` and a
trimmed ``.claude.json``, with the throwaway home's path replaced by ``/home/alice``
everywhere (file contents and the project folder's name) so the fixture does not change
with the temporary folder it came from.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..agent_install import AgentProgram, install
from ..conftest import AgentHome, memtui_program, new_agent_home
from ..fake_model.anthropic import AnthropicAdapter
from ..fake_model.exchange import CallTool, Exchange, Policy, Reply, Say
from ..fake_model.server import FakeModelServer

FAKE_API_KEY = "sk-ant-api03-memtui-fake-model-key-000000000000"
"""A key shaped like Anthropic's; only the fake model on 127.0.0.1 ever sees it."""
QUIET_ENV = {
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "DISABLE_AUTOUPDATER": "1",
    "DISABLE_UPDATES": "1",
    "DISABLE_TELEMETRY": "1",
    "DISABLE_ERROR_REPORTING": "1",
    "DISABLE_GROWTHBOOK": "1",
    "DISABLE_INSTALLATION_CHECKS": "1",
    "CLAUDE_CODE_ENABLE_TELEMETRY": "0",
}
"""What switches off Claude Code's traffic besides the model (update checks, telemetry,
error reports, feature flags), as the 2.1 bundle reads it."""
ALLOWED_TOOLS = "Write,Edit,Read,mcp__memtui"
"""Tools a print-mode session may run unattended (``--allowedTools``): Claude Code's file
tools and every tool of memtui's MCP server. (``--dangerously-skip-permissions`` refuses to
run as root outside a sandbox, so the suite names the tools instead.)"""
MEMORY_DIR_RE = re.compile(r"persistent file-based memory at `([^`]+)`")
FIXTURE_HOME = "/home/alice"
"""What the throwaway home's path becomes in a kept fixture."""
FIXTURE_MEMTUI = f"{FIXTURE_HOME}/.venv/bin/memtui"
"""What the absolute path of the memtui that installed the hooks becomes in a fixture."""
DONE_TEXT = "Saved to memory."


MCP_WAIT_ENV = {"MCP_CONNECTION_NONBLOCKING": "0", "MCP_CONNECT_TIMEOUT_MS": "120000"}
"""Claude Code 2.1 connects MCP servers in the background in print mode and may send the
first request before memtui's server (about a second of CPU to start) has listed its tools;
blocking, with the wait's 5 s default raised, it starts the session once the server is up,
on a loaded test machine too (the bound is against a hang)."""


def claude_env(server_url: str) -> dict[str, str]:
    """The environment that points Claude Code at the fake model, keeps it quiet and has it
    wait for memtui's MCP server."""
    return {"ANTHROPIC_BASE_URL": server_url, "ANTHROPIC_API_KEY": FAKE_API_KEY, **QUIET_ENV,
            **MCP_WAIT_ENV}


def print_argv(program: AgentProgram, prompt: str) -> list[str | Path]:
    """A print-mode (``-p``) session of one prompt whose tools run unattended."""
    return [program.program, "-p", prompt, "--permission-mode", "acceptEdits",
            "--allowedTools", ALLOWED_TOOLS]


def memory_dir_of(exchange: Exchange) -> str | None:
    """The auto-memory folder Claude Code's system prompt names (ends with a slash)."""
    match = MEMORY_DIR_RE.search(exchange.system)
    return match.group(1) if match else None


@dataclass(frozen=True)
class Topic:
    """A topic file the model saves, in the format Claude Code's system prompt gives."""

    name: str
    description: str
    type: str
    text: str
    nested: bool = True
    """``metadata:\\n  type:`` as the 2.1 prompt asks; False writes the older flat ``type:``."""

    @property
    def file(self) -> str:
        """Its file name in the memory folder."""
        return f"{self.name}.md"

    def content(self) -> str:
        """What the model hands the Write tool."""
        kind = f"metadata:\n  type: {self.type}" if self.nested else f"type: {self.type}"
        return (f"---\nname: {self.name}\ndescription: {self.description}\n{kind}\n---\n\n"
                f"{self.text}\n")


TOPICS = (
    Topic("testing-framework", "this project tests with pytest, never unittest", "project",
          "This project tests with pytest, never unittest.\n\n**Why:** the suite is built on "
          "pytest fixtures.\n**How to apply:** write new tests as pytest functions; see "
          "[[ci-runner]] for how they run."),
    Topic("ci-runner", "CI runs the suite with .ci/run on every push", "reference",
          "CI runs `.ci/run` on every push; the contract suite needs Node. Related: "
          "[[testing-framework]]."),
    Topic("user-role", "alice is a senior Python engineer who wants terse answers", "user",
          "alice is a senior Python engineer; keep answers short and skip the basics."),
    Topic("commit-style", "commit messages start with the area, then a colon", "feedback",
          "Start commit messages with the area and a colon (\"Tests: ...\").\n\n**Why:** "
          "alice corrected an unprefixed message.\n**How to apply:** every commit; see "
          "[[user-role]].", nested=False),
)
"""What the scenario saves: nested front matter as Claude Code 2.1 asks, [[links]] between
them, and one flat file (the older format) to see what the Write tool does with it."""


def index_text(topics: tuple[Topic, ...]) -> str:
    """MEMORY.md as the system prompt asks: one ``- [Title](file.md) — hook`` line each."""
    return "".join(f"- [{topic.name.replace('-', ' ').capitalize()}]({topic.file}) — "
                   f"{topic.description}\n" for topic in topics)


def save_topics_policy(topics: tuple[Topic, ...] = TOPICS) -> Policy:
    """The model writes each topic file, then MEMORY.md, with the Write tool, then ends.
    A request without the Write tool (a side request) gets text."""
    def policy(exchange: Exchange) -> Reply:
        folder = memory_dir_of(exchange)
        if "Write" not in exchange.tool_names or folder is None:
            return Say(DONE_TEXT)
        writes = [CallTool("Write", {"file_path": folder + topic.file,
                                     "content": topic.content()}) for topic in topics]
        writes.append(CallTool("Write", {"file_path": folder + "MEMORY.md",
                                         "content": index_text(topics)}))
        done = len(exchange.tool_results)
        return writes[done] if done < len(writes) else Say(DONE_TEXT)

    return policy


def install_memtui(home: AgentHome) -> None:
    """memtui's hooks and MCP server in the home's Claude Code settings (checked)."""
    done = home.memtui("hooks", "install", "claude-code", "--write")
    if done.returncode != 0:
        raise RuntimeError(f"memtui hooks install failed: {done.stderr[-500:]}")


def run_session(home: AgentHome, program: AgentProgram, server: FakeModelServer,
                prompt: str) -> Any:
    """One print-mode session in the home's project; returns the finished process."""
    return home.run(print_argv(program, prompt), extra_env=claude_env(server.url))


def _slug(path: str) -> str:
    return re.sub(r"[^A-Za-z0-9]", "-", path)


def _moved(text: str, root: Path) -> str:
    text = text.replace(str(memtui_program()), FIXTURE_MEMTUI)
    return text.replace(_slug(str(root)), _slug(FIXTURE_HOME)).replace(str(root), FIXTURE_HOME)


def _trimmed_claude_json(path: Path, root: Path) -> str:
    """``.claude.json`` with only what memtui reads or installs (MCP servers, the projects'
    MCP settings), the home's path moved."""
    data = json.loads(path.read_text(encoding="utf-8"))
    kept = {key: data[key] for key in ("mcpServers", "projects") if key in data}
    return _moved(json.dumps(kept, indent=2) + "\n", root)


def keep_home(home: AgentHome, dest: Path) -> list[str]:
    """Copy what memtui reads of the home into ``dest``; returns the files kept."""
    root = home.root
    kept: list[str] = []
    projects = root / ".claude" / "projects"
    for source in sorted(projects.rglob("*")):
        if not source.is_file():
            continue
        relative = source.relative_to(root)
        target = dest / _moved(str(relative), root)
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.suffix == ".jsonl":
            target.write_text(_moved(source.read_text(encoding="utf-8"), root),
                              encoding="utf-8")
        else:
            shutil.copyfile(source, target)  # Claude Code's own bytes
        kept.append(str(target.relative_to(dest)))
    settings = root / ".claude" / "settings.json"
    if settings.exists():
        target = dest / ".claude" / "settings.json"
        target.write_text(_moved(settings.read_text(encoding="utf-8"), root), encoding="utf-8")
        kept.append(".claude/settings.json")
    claude_json = root / ".claude.json"
    if claude_json.exists():
        (dest / ".claude.json").write_text(_trimmed_claude_json(claude_json, root),
                                           encoding="utf-8")
        kept.append(".claude.json")
    return kept


SOURCE_TEMPLATE = """# Claude Code {version}: a home written by the real program

- Program: `@anthropic-ai/claude-code@{version}` from npm, run by
  `tests/interop/scenarios/claude_code.py` (`scripts/regenerate-agent-homes claude-code`).
- Date: {date}.
- Command: `claude -p "{prompt}" --permission-mode acceptEdits --allowedTools {allowed}` in
  `{home}/work/shop`, HOME a throwaway 0700 folder, against the suite's fake model on
  127.0.0.1 (`ANTHROPIC_BASE_URL`), after `memtui hooks install claude-code --write`.
- The fake model called Claude Code's Write tool once per topic file, with the front matter
  its system prompt asks for (`metadata:` / `type:`), then wrote `MEMORY.md`; Claude Code
  itself added `node_type` and `originSessionId` and rewrote the flat `commit-style.md`
  into its nested form. The memory files are Claude Code's bytes, unchanged.
- Changed after the run: the throwaway home's path became `{home}` (in the transcript,
  `settings.json`, `.claude.json` and the project folder's name), the installing memtui's
  path `{home}/.venv/bin/memtui`; `.claude.json` keeps only
  `mcpServers` and `projects`. Nothing else was kept (backups, caches, the session env).

Files:
{files}
"""

PROMPT = "Remember how this project tests, how CI runs, who I am and how I write commits."


def regenerate(dest: Path) -> None:
    """Run the scenario with the installed Claude Code and keep the home it leaves."""
    program = install("claude-code")
    with tempfile.TemporaryDirectory(prefix="memtui-claude-") as scratch:
        home = new_agent_home(Path(scratch))
        install_memtui(home)
        with FakeModelServer([AnthropicAdapter()], save_topics_policy()) as server:
            done = run_session(home, program, server, PROMPT)
        if done.returncode != 0:
            raise RuntimeError(f"claude -p failed ({done.returncode}): {done.stderr[-800:]}")
        kept = keep_home(home, dest)
    (dest / "SOURCE.md").write_text(SOURCE_TEMPLATE.format(
        version=program.version, date=dt.date.today().isoformat(), prompt=PROMPT,
        allowed=ALLOWED_TOOLS, home=FIXTURE_HOME,
        files="\n".join(f"- `{name}`" for name in kept)), encoding="utf-8")
