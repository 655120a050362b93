"""One top-level key of an agent's JSON file changed with every other byte kept: key order,
indentation, escapes, number forms and non-ASCII text as the agent wrote them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memtui.engine import json_splice
from memtui.engine.agent_setup import INSTALL, UNINSTALL, merge_mcp_json, plan, write_change
from memtui.engine.json_splice import remove_top_level, scan_top_level, set_top_level
from memtui.errors import InvalidInput

AGENT_TEXT = ('{\n  "numStartups": 3,\n  "tipsHistory": {"a": 1},\n  "userName": "J\\u00f6rg",\n'
              '  "note": "Grüße — ✓",\n  "cost": 1.50e3,\n  "mcpServers": {\n'
              '    "github": {"command": "gh-mcp"}\n  },\n  "projects": {"/src/x": {}}\n}\n')
SERVER = {"command": "/venv/bin/memtui", "args": ["mcp"]}


def test_setting_a_present_key_changes_only_its_value() -> None:
    after = set_top_level(AGENT_TEXT, "mcpServers", {"github": {"command": "gh-mcp"},
                                                     "memtui": SERVER})
    head, tail = AGENT_TEXT.split('"mcpServers": ')[0], AGENT_TEXT.split("\n  },\n")[1]
    assert after.startswith(head + '"mcpServers": {\n    "github"')
    assert after.endswith(",\n" + tail)
    assert '"userName": "J\\u00f6rg"' in after and '"cost": 1.50e3' in after
    data = json.loads(after)
    assert list(data) == ["numStartups", "tipsHistory", "userName", "note", "cost",
                          "mcpServers", "projects"]
    assert data["mcpServers"]["memtui"] == SERVER


@pytest.mark.parametrize("text, expected", [
    ('{}', '{\n  "k": 1\n}'),
    ('{"a":1}', '{"a":1,"k":1}'),
    ('{\n\t"a": 1\n}\n', '{\n\t"a": 1,\n\t"k": 1\n}\n'),
    ('  {\n    "a": [1,\n 2]\n  }  ', '  {\n    "a": [1,\n 2],\n    "k": 1\n  }  '),
])
def test_a_new_key_goes_last_in_the_files_style(text: str, expected: str) -> None:
    assert set_top_level(text, "k", 1) == expected


@pytest.mark.parametrize("text, expected", [
    ('{\n  "a": 1,\n  "k": {"x": 2},\n  "b": 3\n}', '{\n  "a": 1,\n  "b": 3\n}'),
    ('{\n  "a": 1,\n  "k": 2\n}', '{\n  "a": 1\n}'),
    ('{\n  "k": 2,\n  "a": 1\n}', '{\n  "a": 1\n}'),
    ('{"k": 2}', '{}'),
    ('{"k":1,"a":2,"k":3}', '{"a":2}'),
    ('{"a": 1}', '{"a": 1}'),
])
def test_removing_a_key_takes_its_comma(text: str, expected: str) -> None:
    after = remove_top_level(text, "k")
    assert after == expected
    json.loads(after)


@pytest.mark.parametrize("text", ["", "[]", "{", '{"a" 1}', '{"a": 1,}', '{"a": 1} x',
                                  '{"a": tru}', '{a: 1}', '{"a": "\\x"}', "null"])
def test_bad_json_is_refused_in_one_line(text: str) -> None:
    with pytest.raises(InvalidInput, match="is not valid JSON") as caught:
        scan_top_level(text, "/h/.claude.json")
    assert "\n" not in str(caught.value) and "/h/.claude.json" in str(caught.value)


def test_a_duplicate_key_reads_as_the_last_one() -> None:
    top = scan_top_level('{"k": 1, "k": {"x": 1}}')
    assert [key for key, _span in top.spans] == ["k", "k"] and top.members["k"][1] == 14


def test_mcp_merge_keeps_the_rest_of_a_file_memtui_did_not_write() -> None:
    after, summary = merge_mcp_json(Path("/h/.claude.json"), AGENT_TEXT, INSTALL,
                                    command=("/venv/bin/memtui",))
    assert summary == "set mcpServers.memtui"
    back, _ = merge_mcp_json(Path("/h/.claude.json"), after, UNINSTALL)
    assert json.loads(back)["mcpServers"] == {"github": {"command": "gh-mcp"}}
    assert back.replace(" ", "").replace("\n", "") == AGENT_TEXT.replace(" ", "").replace(
        "\n", "")
    assert back.split('"mcpServers"')[0] == AGENT_TEXT.split('"mcpServers"')[0]


def test_a_file_past_the_old_16_mb_limit_is_merged(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    history = [{"display": "répare le test ✓", "pastedContents": {}}] * 2000
    projects = {f"/src/p{number}": {"history": history} for number in range(170)}
    text = json.dumps({"numStartups": 1, "projects": projects}, indent=2, ensure_ascii=False)
    user_file = tmp_path / ".claude.json"
    user_file.write_text(text, encoding="utf-8")
    assert user_file.stat().st_size > 17 * 1024 * 1024
    [change, _hooks] = plan("claude-code", INSTALL, command=("/venv/bin/memtui",))
    write_change(change)
    after = user_file.read_text(encoding="utf-8")
    assert after.startswith(text[:-2]) and after.endswith('\n  }\n}')
    assert json.loads(after)["mcpServers"]["memtui"]["command"] == "/venv/bin/memtui"
    assert (tmp_path / ".claude.json.bak").read_text(encoding="utf-8") == text
    assert change.to_json()["content"] is None and change.to_json()["bytes"] > 17_000_000
    shown = change.shown_text()
    assert shown.startswith('"mcpServers": {') and "as the agent wrote it" in shown


COMMENTED = '{\n  // a "quoted" word\n  "url": "http://x/*y*/", /* two\n  lines */ "n": 1\n}\n'


def test_comments_are_walked_over_only_when_allowed() -> None:
    assert json_splice.comments(COMMENTED) == [(4, 22), (49, 66)]  # never inside a string
    blank = json_splice.blank_comments(COMMENTED)
    assert len(blank) == len(COMMENTED) and json.loads(blank) == {"url": "http://x/*y*/",
                                                                  "n": 1}
    with pytest.raises(InvalidInput, match="not valid JSON"):
        scan_top_level(COMMENTED)
    top = scan_top_level(COMMENTED, allow_comments=True)
    assert json_splice.top_level_value(COMMENTED, top, "n") == 1
    changed = set_top_level(COMMENTED, "n", 2, top=top)
    assert changed == COMMENTED.replace('"n": 1', '"n": 2')
    assert remove_top_level(COMMENTED, "url", top=top) == (
        '{\n  // a "quoted" word\n  "n": 1\n}\n')  # a comment in the cut goes with it
