"""Contract tests with the real Codex CLI (pinned in agent_versions.json; any other version
with ``MEMTUI_AGENT_VERSIONS=codex=...``), against the fake OpenAI Responses server.

- ``memtui hooks install codex --write``, then Codex's own ``codex mcp list`` lists memtui,
  enabled;
- a ``codex exec`` session in which the model calls memtui's ``memory_add`` and then
  ``memory_recall`` (by the names Codex offers them under): the memory lands in memtui's
  store with source ``mcp`` and the recall's result reaches the model's next request;
- Codex's own memory pipeline (stage 1 on an earlier, idle thread; then its consolidation
  attempt): memtui reads the stage-1 memory Codex wrote with the thread's project and the
  text, says why consolidation is stuck, and imports it as a ``fact`` of that project.
"""

from __future__ import annotations

import json
from typing import Any

from .agent_install import AgentProgram
from .conftest import AgentHome
from .fake_model.exchange import add_then_recall
from .fake_model.openai_responses import OpenAIResponsesAdapter
from .fake_model.server import FakeModelServer
from .scenarios.codex import (
    STAGE1_SUMMARY,
    codex_env,
    exec_codex,
    run_memory_pipeline,
    write_config,
)

MEMORY_TEXT = "The shop's CI runs on Forgejo, not GitHub Actions."
RECALL_QUERY = "Forgejo"
SUPPORTED_LAYOUTS = ("memories_v2_1", "memories_1", "state_5")


def _install_memtui(home: AgentHome) -> None:
    done = home.memtui("hooks", "install", "codex", "--write")
    assert done.returncode == 0, done.stderr


def _json(done: Any) -> Any:
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


def test_mcp_list_shows_memtui(codex_program: AgentProgram, agent_home: AgentHome) -> None:
    write_config(agent_home, "http://127.0.0.1:9")  # no model call: `mcp list` only
    _install_memtui(agent_home)
    listed = agent_home.run([codex_program.program, "mcp", "list", "--json"],
                            extra_env=codex_env(agent_home))
    servers = {server["name"]: server for server in _json(listed)}
    assert servers["memtui"]["enabled"] is True
    assert servers["memtui"]["transport"]["args"][-1] == "mcp"
    table = agent_home.run([codex_program.program, "mcp", "list"],
                           extra_env=codex_env(agent_home))
    assert table.returncode == 0 and "memtui" in table.stdout and "enabled" in table.stdout


def test_an_old_http_entry_becomes_memtuis_command(codex_program: AgentProgram,
                                                  agent_home: AgentHome) -> None:
    config = write_config(agent_home, "http://127.0.0.1:9")
    config.write_text(config.read_text() + '\n[mcp_servers.memtui]\nurl = "http://127.0.0.1:9/'
                      'mcp"\nhttp_headers = { A = "b" }\nstartup_timeout_sec = 30\n')
    _install_memtui(agent_home)
    listed = agent_home.run([codex_program.program, "mcp", "list", "--json"],
                            extra_env=codex_env(agent_home))
    servers = {server["name"]: server for server in _json(listed)}
    assert servers["memtui"]["transport"]["args"][-1] == "mcp"
    assert servers["memtui"]["startup_timeout_sec"] == 30


def test_mcp_memory_add_and_recall_round_trip(codex_program: AgentProgram,
                                              agent_home: AgentHome) -> None:
    policy = add_then_recall(MEMORY_TEXT, "fact", RECALL_QUERY, "Saved and recalled.")
    with FakeModelServer([OpenAIResponsesAdapter()], policy) as server:
        write_config(agent_home, server.url)
        _install_memtui(agent_home)
        done = exec_codex(agent_home, codex_program, "Remember where our CI runs.")
        assert done.returncode == 0, done.stderr[-2000:]
        assert not server.unanswered, [r.path for r in server.unanswered]
        exchanges = list(server.exchanges)
    offered = {name for exchange in exchanges for name in exchange.tool_names}
    assert any(name.endswith("memory_add") for name in offered), sorted(offered)
    memories = _json(agent_home.memtui("--json", "memory", "list", "--source", "mcp"))["items"]
    assert [(m["content"], m["source"], m["kind"]) for m in memories] == [
        (MEMORY_TEXT, "mcp", "fact")]
    recalls = [result for exchange in exchanges for result in exchange.tool_results
               if result.name.endswith("memory_recall")]
    assert recalls and MEMORY_TEXT in recalls[-1].text
    assert MEMORY_TEXT in exchanges[-1].text  # the recall's result reached the next request


def test_codex_stage1_memory_is_read_and_imported(codex_program: AgentProgram,
                                                  agent_home: AgentHome) -> None:
    run = run_memory_pipeline(agent_home, codex_program)
    for done in run.outputs:
        assert done.returncode == 0, done.stderr[-2000:]
    assert run.stage1, "Codex did not run stage 1 on the idle thread"
    codex_home = str(agent_home.root / ".codex")
    shown = _json(agent_home.memtui("--json", "codex", "show", "--codex-home", codex_home))
    assert shown["layout"]["name"] in SUPPORTED_LAYOUTS, shown["layout"]
    rows = {row["thread_id"]: row for row in shown["stage1_outputs"]}
    assert run.thread_id in rows, (run.thread_id, list(rows))
    row = rows[run.thread_id]
    assert STAGE1_SUMMARY in row["rollout_summary"] + row["raw_memory"]
    assert row["cwd"] == str(agent_home.project)
    if any(job["status"] == "error" for job in shown["jobs"]):
        assert shown["diagnosis"] and shown["consolidation_stuck"] is True
    human = agent_home.memtui("codex", "show", "--codex-home", codex_home)
    assert human.returncode == 0 and "memtui" not in human.stderr
    if shown["consolidation_stuck"]:
        assert "Nothing stuck" not in human.stdout
    imported = _json(agent_home.memtui("--json", "codex", "import", "--codex-home", codex_home))
    outcomes = {item["ref"]: item for item in imported["items"]}
    assert outcomes[run.thread_id]["outcome"] == "imported", outcomes
    project = outcomes[run.thread_id]["project"]
    projects = _json(agent_home.memtui("--json", "project", "list"))["items"]
    assert [p["root"] for p in projects if p["id"] == project] == [str(agent_home.project)]
    [memory] = _json(agent_home.memtui("--json", "memory", "list", "--project", project,
                                       "--source", "import"))["items"]
    assert (memory["kind"], memory["source_thread_id"]) == ("fact", run.thread_id)
    assert STAGE1_SUMMARY in memory["content"]
