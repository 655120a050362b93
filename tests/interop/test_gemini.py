"""Contract tests with the real Gemini CLI: memtui's MCP server as ``gemini mcp list`` sees
it (connected in a trusted folder, Disabled in an untrusted one), a ``memory_add`` /
``memory_recall`` round trip through the real program, and the memory Gemini CLI writes
itself (``~/.gemini/tmp/<slug>/memory/MEMORY.md``, ``~/.gemini/GEMINI.md``) read by memtui.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from .agent_install import AgentProgram
from .conftest import AgentHome
from .fake_model.gemini import GeminiAdapter
from .fake_model.server import FakeModelServer
from .scenarios import gemini as scenario

_STATUS_RE = re.compile(r"memtui: .* - (?P<status>\w+)")


def _status(output: str) -> str | None:
    match = _STATUS_RE.search(output)
    return match.group("status") if match else None


def _installed(home: AgentHome, *, trusted: bool = True, folder_trust: bool = True) -> None:
    scenario.prepare(home, trusted=trusted, folder_trust=folder_trust)
    done = scenario.install_memtui(home)
    assert done.returncode == 0, done.stderr


def _memtui_json(home: AgentHome, *args: str) -> dict[str, Any]:
    done = home.memtui("--json", *args)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert isinstance(data, dict), data
    return data


def _gemini_trust(home: AgentHome) -> dict[str, Any]:
    shown = _memtui_json(home, "agents", "show")
    (gemini,) = [item for item in shown["homes"] if item["agent"] == "gemini"]
    trust = gemini["folder_trust"]
    assert isinstance(trust, dict) and trust["enabled"] is True, gemini
    return trust


def _memories(home: AgentHome, *args: str) -> list[dict[str, Any]]:
    items = _memtui_json(home, "memory", "list", *args)["items"]
    assert isinstance(items, list)
    return items


def test_mcp_list_shows_memtui_connected_in_a_trusted_folder(
        gemini_program: AgentProgram, agent_home: AgentHome) -> None:
    _installed(agent_home)
    done = scenario.mcp_list(agent_home, gemini_program)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert _status(output) == "Connected", output
    assert _gemini_trust(agent_home)["untrusted"] == []


def test_mcp_list_shows_memtui_disabled_in_an_untrusted_folder(
        gemini_program: AgentProgram, agent_home: AgentHome) -> None:
    _installed(agent_home, trusted=False)
    done = scenario.mcp_list(agent_home, gemini_program)
    output = done.stdout + done.stderr
    assert _status(output) == "Disabled", output
    assert "this folder is untrusted" in output
    assert _gemini_trust(agent_home)["untrusted"] == [str(agent_home.project)]
    shown = agent_home.memtui("agents", "show")
    assert "memtui's MCP server is Disabled in" in " ".join(shown.stdout.split())


def test_mcp_list_connects_when_folder_trust_is_off(
        gemini_program: AgentProgram, agent_home: AgentHome) -> None:
    _installed(agent_home, trusted=False, folder_trust=False)
    done = scenario.mcp_list(agent_home, gemini_program)
    assert _status(done.stdout + done.stderr) == "Connected", done.stdout + done.stderr


def test_memory_add_and_recall_round_trip(gemini_program: AgentProgram,
                                          agent_home: AgentHome) -> None:
    _installed(agent_home)
    made = agent_home.memtui("project", "add", "shop", "--root", str(agent_home.project))
    assert made.returncode == 0, made.stderr
    with FakeModelServer([GeminiAdapter()], scenario.mcp_policy()) as server:
        done = scenario.run(agent_home, gemini_program, server, scenario.MCP_PROMPT)
    assert done.returncode == 0, done.stderr[-2000:]
    assert scenario.DONE in done.stdout
    assert not server.unanswered
    offered = server.exchanges[0]
    assert offered.has_tool("memory_add") and offered.has_tool("memory_recall")
    last = server.exchanges[-1]
    assert [result.name for result in last.tool_results] == [
        offered.has_tool("memory_add"), offered.has_tool("memory_recall")]
    assert scenario.MCP_MEMORY in last.tool_results[1].text
    memories = _memories(agent_home, "--project", "shop")
    found = [m for m in memories if m["content"] == scenario.MCP_MEMORY]
    assert len(found) == 1 and found[0]["source"] == "mcp", memories
    assert found[0]["project"] == "shop"


def test_memory_gemini_writes_itself_is_read_by_memtui(gemini_program: AgentProgram,
                                                       agent_home: AgentHome) -> None:
    _installed(agent_home)
    with FakeModelServer([GeminiAdapter()], scenario.remember_policy()) as server:
        done = scenario.run(agent_home, gemini_program, server, scenario.REMEMBER_PROMPT)
    assert done.returncode == 0, done.stderr[-2000:]
    first = server.exchanges[0]
    assert "There is no `save_memory` tool" in first.system
    assert not first.has_tool("save_memory")
    private, shared = scenario.prompt_paths(first)
    home = scenario.gemini_dir(agent_home)
    assert shared == str(home / "GEMINI.md")
    registry = json.loads((home / "projects.json").read_text(encoding="utf-8"))
    slug = registry["projects"][str(agent_home.project)]
    assert private == str(home / "tmp" / slug / "memory" / "MEMORY.md")
    assert Path(private).read_text(encoding="utf-8") == f"- {scenario.PRIVATE_FACT}\n"
    assert Path(shared).read_text(encoding="utf-8") == f"- {scenario.GLOBAL_FACT}\n"
    report = _memtui_json(agent_home, "gemini", "import")
    assert report["imported"] == 2, report
    assert report["created_projects"] == ["shop"]
    (private_memory,) = _memories(agent_home, "--project", "shop")
    assert private_memory["content"] == scenario.PRIVATE_FACT
    assert private_memory["kind"] == "fact" and private_memory["source"] == "import"
    (global_memory,) = _memories(agent_home, "--scope", "user")
    assert global_memory["content"] == scenario.GLOBAL_FACT
    assert global_memory["kind"] == "preference" and global_memory["project"] is None
    shown = _memtui_json(agent_home, "gemini", "show")
    assert shown["global_memories"] == [scenario.GLOBAL_FACT]


def test_a_project_s_own_context_file_name_is_read_by_gemini_and_by_memtui(
        gemini_program: AgentProgram, agent_home: AgentHome) -> None:
    _installed(agent_home)
    workspace = agent_home.project / ".gemini" / "settings.json"
    workspace.parent.mkdir()
    workspace.write_text(json.dumps({"context": {"fileName": "AGENTS.md"}}), encoding="utf-8")
    (agent_home.project / ".git").mkdir()  # where Gemini CLI stops looking upward
    for name in ("AGENTS.md", "GEMINI.md", "OTHER.md"):
        (agent_home.project / name).write_text(f"Read {name} in the project.\n",
                                               encoding="utf-8")
    with FakeModelServer([GeminiAdapter()], scenario.remember_policy()) as server:
        done = scenario.run(agent_home, gemini_program, server, scenario.REMEMBER_PROMPT)
    assert done.returncode == 0, done.stderr[-2000:]
    first = server.exchanges[0]
    read = {name for name in ("AGENTS.md", "GEMINI.md", "OTHER.md")
            if f"Read {name} in the project." in first.text}
    assert read == {"AGENTS.md", "GEMINI.md"}
    home = scenario.gemini_dir(agent_home)
    assert scenario.prompt_paths(first)[1] == str(home / "AGENTS.md")
    assert (home / "AGENTS.md").read_text(encoding="utf-8") == f"- {scenario.GLOBAL_FACT}\n"
    shown = _memtui_json(agent_home, "gemini", "show")
    assert shown["global_memories"] == [scenario.GLOBAL_FACT]
    assert shown["context_files"] == ["GEMINI.md", "AGENTS.md"]
    instructions = {Path(item["path"]).name for item in shown["instructions"]
                    if Path(item["path"]).parent == agent_home.project}
    assert instructions == read
    (row,) = [row for row in shown["projects"] if row["project"] == str(agent_home.project)]
    assert {"name": "context.fileName", "value": ["AGENTS.md", "GEMINI.md"],
            "where": str(workspace), "effective": True} in row["switches"]
    assert json.loads(workspace.read_text(encoding="utf-8")) == {
        "context": {"fileName": "AGENTS.md"}}


def test_a_project_s_malformed_settings_stop_gemini_and_memtui_names_them(
        gemini_program: AgentProgram, agent_home: AgentHome) -> None:
    _installed(agent_home, trusted=False)  # Gemini CLI reads the file, trusted or not
    workspace = agent_home.project / ".gemini" / "settings.json"
    workspace.parent.mkdir()
    workspace.write_text('{"context": ', encoding="utf-8")
    done = scenario.mcp_list(agent_home, gemini_program)
    assert done.returncode != 0 and str(workspace) in done.stdout + done.stderr
    folder = scenario.gemini_dir(agent_home) / "tmp" / "shop"  # as Gemini CLI registers it
    folder.mkdir(parents=True)
    (folder / ".project_root").write_text(str(agent_home.project), encoding="utf-8")
    shown = _memtui_json(agent_home, "gemini", "show")
    (row,) = [row for row in shown["projects"] if row["project"] == str(agent_home.project)]
    assert [p["path"] for p in row["problems"]] == [str(workspace)]


def _context_tree(home: AgentHome) -> dict[str, Path]:
    """GEMINI.md above the git root, at it, between it and the project, in the project and
    in a sub-folder of it (each names itself)."""
    work = home.project.parent
    (work / ".git").mkdir()  # the git root: Gemini CLI looks upward from the project to it
    (home.project / "sub").mkdir()
    files = {"above": home.root / "GEMINI.md", "root": work / "GEMINI.md",
             "project": home.project / "GEMINI.md", "sub": home.project / "sub" / "GEMINI.md"}
    for where, path in files.items():
        path.write_text(f"Context of the {where} folder.\n", encoding="utf-8")
    return files


def _first_request(home: AgentHome, program: AgentProgram) -> tuple[int, set[str], str]:
    """(exit status, the context files the first model request holds, what Gemini printed)."""
    with FakeModelServer([GeminiAdapter()], scenario.remember_policy()) as server:
        done = scenario.run(home, program, server, scenario.REMEMBER_PROMPT)
    text = server.exchanges[0].text if server.exchanges else ""
    return done.returncode, {where for where in ("above", "root", "project", "sub")
                             if f"Context of the {where} folder." in text}, done.stderr


def _listed(home: AgentHome) -> dict[str, str]:
    shown = _memtui_json(home, "gemini", "show")
    return {item["path"]: item["origin"] for item in shown["instructions"]}


def test_context_files_from_the_git_root_down_are_read_by_gemini_and_listed_by_memtui(
        gemini_program: AgentProgram, agent_home: AgentHome) -> None:
    _installed(agent_home)
    files = _context_tree(agent_home)
    status, loaded, said = _first_request(agent_home, gemini_program)
    assert status == 0 and loaded == {"root", "project"}, said[-2000:]  # sub: when it works there
    assert _listed(agent_home) == {str(files["root"]): "parent",
                                   str(files["project"]): "project",
                                   str(files["sub"]): "subfolder"}


def test_an_untrusted_folder_s_context_files_are_not_read_nor_listed(
        gemini_program: AgentProgram, agent_home: AgentHome) -> None:
    _installed(agent_home, trusted=False)
    _context_tree(agent_home)
    folder = scenario.gemini_dir(agent_home) / "tmp" / "shop"  # as Gemini CLI registers it
    folder.mkdir(parents=True)
    (folder / ".project_root").write_text(str(agent_home.project), encoding="utf-8")
    status, loaded, said = _first_request(agent_home, gemini_program)
    assert status != 0 and loaded == set() and "not running in a trusted directory" in said
    assert _listed(agent_home) == {}


def test_settings_with_comments_get_memtui_and_gemini_connects_it(
        gemini_program: AgentProgram, agent_home: AgentHome) -> None:
    scenario.prepare(agent_home)
    path = scenario.gemini_dir(agent_home) / "settings.json"
    text = path.read_text(encoding="utf-8")
    commented = "// kept by hand\n" + text.replace("{", "{ /* mine */", 1)
    path.write_text(commented, encoding="utf-8")
    done = scenario.install_memtui(agent_home)
    assert done.returncode == 0, done.stderr
    written = path.read_text(encoding="utf-8")
    assert written.startswith("// kept by hand\n{ /* mine */") and '"memtui"' in written
    listed = scenario.mcp_list(agent_home, gemini_program)
    assert _status(listed.stdout + listed.stderr) == "Connected", listed.stdout + listed.stderr


def test_an_old_http_entry_becomes_memtuis_command_and_connects(
        gemini_program: AgentProgram, agent_home: AgentHome) -> None:
    scenario.prepare(agent_home)
    path = scenario.gemini_dir(agent_home) / "settings.json"
    settings = json.loads(path.read_text(encoding="utf-8"))
    settings["mcpServers"] = {"memtui": {"httpUrl": "http://127.0.0.1:9/mcp", "type": "http"}}
    path.write_text(json.dumps(settings), encoding="utf-8")
    done = scenario.install_memtui(agent_home)
    assert done.returncode == 0 and "drops httpUrl, type" in done.stdout, done.stderr
    listed = scenario.mcp_list(agent_home, gemini_program)
    assert _status(listed.stdout + listed.stderr) == "Connected", listed.stdout + listed.stderr
