"""A row's entries (the Agents pane lists them) and the plans made from one: what each
entry is, secrets masked everywhere but a fact's own text (never in JSON), edits that start
from a read and refuse a file changed since, and refusals that say why."""

from __future__ import annotations

import json

import pytest
from agents_fixture import GITHUB_TOKEN, ClaudeFixture, GeminiFixture

from memtui.engine.agents.curation import (
    edit_source,
    fact_edit_source,
    global_file,
    plan_edit,
    plan_edit_fact,
    plan_forget_fact,
)
from memtui.engine.agents.entries import (
    MemoryEntry,
    entry_edit_source,
    plan_entry,
    row_entries,
)
from memtui.engine.agents.errors import AgentInputError, AgentNotFound, ChangedSinceRead
from memtui.engine.agents.gemini import added_memories
from memtui.engine.agents.plans import apply_plan


def _entry(entries: tuple[MemoryEntry, ...], name: str) -> MemoryEntry:
    return next(entry for entry in entries if entry.name == name)


def test_a_claude_folder_lists_index_topics_links_and_logs(claude: ClaudeFixture) -> None:
    read = row_entries("claude", claude.home, "app", str(claude.memory(claude.app)))
    kinds = [(entry.kind, entry.name) for entry in read.entries]
    assert kinds == [("index", "MEMORY.md"), ("topic", "build.md"),
                     ("topic", "feedback_testing.md"), ("link", "gone.md"),
                     ("link", "../../../../etc/passwd"), ("topic", "broken.md"),
                     ("topic", "orphan.md"), ("log", "logs/2026/11/2026-11-30.md")]
    build = _entry(read.entries, "build.md")
    assert (build.title, build.hook, build.line, build.loaded, build.type) == \
        ("Build commands", "how to build and test", 1, True, "project")
    assert build.shown.startswith("Use `make build`.")  # the body, no front matter
    orphan = _entry(read.entries, "orphan.md")
    assert orphan.line is None and orphan.loaded is None
    gone = _entry(read.entries, "gone.md")
    assert not gone.exists and not gone.outside and "x repairs the index" in gone.shown
    assert _entry(read.entries, "../../../../etc/passwd").outside
    reasons = " ".join(problem.reason for problem in read.problems)
    assert "binary file" in reasons and "too large" in reasons  # not listed, said why


def test_an_index_past_the_limit_marks_the_entries_that_do_not_load(
        claude: ClaudeFixture) -> None:
    read = row_entries("claude", claude.home, "big", str(claude.memory(claude.big)))
    index = read.entries[0]
    assert index.kind == "index" and index.loaded is False
    assert index.title == "250 lines; 174 loaded at session start, 76 past the limit"
    topics = [entry for entry in read.entries if entry.kind == "topic"]
    assert len(topics) == 250 and sum(1 for entry in topics if entry.loaded) == 174
    assert topics[174].name == "topic_175.md" and topics[174].loaded is False


def test_secrets_are_masked_and_a_fact_s_text_never_reaches_json(
        claude: ClaudeFixture, gemini: GeminiFixture) -> None:
    read = row_entries("claude", claude.home, "secret", str(claude.memory(claude.secret)))
    deploy = _entry(read.entries, "deploy.md")
    assert deploy.secrets == ("github-pat",) and GITHUB_TOKEN not in deploy.shown
    assert "«github-pat»" in deploy.shown
    global_file = gemini.home / "GEMINI.md"
    global_file.write_text(global_file.read_text(encoding="utf-8").replace(
        "- The user prefers tabs in Go files.\n",
        f"- The user prefers tabs in Go files.\n- Deploy token {GITHUB_TOKEN}\n"),
        encoding="utf-8")
    facts = row_entries("gemini", gemini.home, "global", str(gemini.home)).entries
    assert [entry.kind for entry in facts] == ["fact", "fact", "fact"]  # + "## Other"'s
    secret = facts[1]
    assert secret.fact == f"Deploy token {GITHUB_TOKEN}" and secret.line == 7
    assert GITHUB_TOKEN not in secret.title + secret.shown
    assert GITHUB_TOKEN not in json.dumps([entry.to_json() for entry in facts])


def test_a_gemini_project_row_lists_its_files(gemini: GeminiFixture) -> None:
    app = row_entries("gemini", gemini.home, "app", str(gemini.memory("app")))
    assert [(entry.kind, entry.name) for entry in app.entries] == [
        ("index", "MEMORY.md"), ("topic", "conventions.md"), ("topic", "unlisted.md")]
    assert global_file(gemini.home) == gemini.home / "GEMINI.md"
    web = row_entries("gemini", gemini.home, "web", str(gemini.memory("web")))
    assert [(entry.kind, entry.name) for entry in web.entries] == [("file", "GEMINI.md")]
    missing = row_entries("gemini", gemini.home, "gone", None)
    assert missing.entries == () and missing.problems


def test_a_symlinked_memory_folder_lists_nothing_and_says_why(claude: ClaudeFixture) -> None:
    folder = claude.home / "projects" / claude.slug(claude.linked) / "memory"
    read = row_entries("claude", claude.home, "linked", str(folder))
    assert read.entries == () and "symlink" in read.problems[0].reason


def test_an_edit_starts_from_a_redacted_read_and_refuses_a_later_change(
        claude: ClaudeFixture) -> None:
    deploy = claude.memory(claude.secret) / "deploy.md"
    source = edit_source(claude.home, deploy)
    assert source.kept == ("name", "description", "type")
    assert source.secrets == ("github-pat",) and GITHUB_TOKEN not in source.text
    assert source.text.startswith("Deploy with the bot account.")
    plan = plan_edit(claude.home, deploy, source.text, source.stamp)
    assert "[REDACTED]" in plan.changes[0].new_text
    deploy.write_text(deploy.read_text(encoding="utf-8") + "agent line\n", encoding="utf-8")
    before = deploy.read_bytes()
    with pytest.raises(ChangedSinceRead):
        plan_edit(claude.home, deploy, "new text", source.stamp)
    assert deploy.read_bytes() == before
    # broken front matter: the whole text is edited (nothing is kept)
    broken = edit_source(claude.home, claude.memory(claude.app) / "broken.md")
    assert broken.kept == () and broken.text.startswith("---\nname: Broken")


def test_an_added_memory_is_edited_in_place(gemini: GeminiFixture) -> None:
    path = gemini.home / "GEMINI.md"
    source = fact_edit_source(gemini.home, "The user prefers tabs in Go files.")
    assert source.fact == "The user prefers tabs in Go files." and source.kept == ()
    plan = plan_edit_fact(gemini.home, source.fact or "", f"Tabs\nin Go; {GITHUB_TOKEN}",
                          expected=source.stamp)
    assert plan.notes == ("the new text was redacted",)
    apply_plan(plan, True)
    text = path.read_text(encoding="utf-8")
    assert "- Tabs in Go; [REDACTED]\n" in text and GITHUB_TOKEN not in text
    assert text.startswith("# Global context\n\nBe brief.") and "## Other\n- Be concise" in text
    assert added_memories(text) == ["Tabs in Go; [REDACTED]"]
    with pytest.raises(ChangedSinceRead):  # the stamp it started from is gone
        plan_edit_fact(gemini.home, "Tabs in Go", "again", expected=source.stamp)
    with pytest.raises(AgentInputError):
        plan_edit_fact(gemini.home, "Tabs in Go", "  \n ")
    with pytest.raises(AgentNotFound):
        plan_edit_fact(gemini.home, "no such fact", "x")


def test_fact_matching_is_exact_first_then_a_unique_part(gemini: GeminiFixture) -> None:
    path = gemini.home / "GEMINI.md"
    path.write_text("## Gemini Added Memories\n- Go\n- Go modules are vendored.\n"
                    "* Go uses tabs.\n## Next\n- Go outside\n", encoding="utf-8")
    assert added_memories(path.read_text()) == \
        ["Go", "Go modules are vendored.", "Go uses tabs."]
    apply_plan(plan_forget_fact(gemini.home, "Go"), True)  # the exact one
    assert path.read_text(encoding="utf-8").startswith(
        "## Gemini Added Memories\n- Go modules are vendored.\n")
    # every bullet of the global file is a global memory (0.61), "## Next"'s too
    with pytest.raises(AgentInputError, match="^3 global memories match 'Go'; be more precise$"):
        plan_forget_fact(gemini.home, "Go")
    with pytest.raises(AgentNotFound, match="^no global memory matching 'Rust' in "):
        plan_forget_fact(gemini.home, "Rust")
    apply_plan(plan_edit_fact(gemini.home, "tabs", "Go uses gofmt."), True)
    assert "* Go uses gofmt.\n## Next\n- Go outside\n" in path.read_text(encoding="utf-8")


def test_plan_entry_dispatches_and_refuses_with_reasons(claude: ClaudeFixture,
                                                        gemini: GeminiFixture) -> None:
    read = row_entries("claude", claude.home, "app", str(claude.memory(claude.app)))
    index, build = read.entries[0], _entry(read.entries, "build.md")
    gone = _entry(read.entries, "gone.md")
    assert plan_entry("forget", "claude", claude.home, build).action == "forget"
    assert plan_entry("promote", "claude", claude.home, build).changes[0].path == \
        str(claude.home / "CLAUDE.md")
    edit = plan_entry("edit", "claude", claude.home, index, text="- [Build](build.md)")
    assert edit.changes[0].new_text == "- [Build](build.md)\n"
    for action, entry, words in (("forget", index, "not forgotten"),
                                 ("promote", index, "not promoted"),
                                 ("forget", gone, "x repairs the index"),
                                 ("edit", gone, "x repairs the index"),
                                 ("edit", build, "needs some text"),
                                 ("purge", build, "unknown action")):
        with pytest.raises(AgentInputError, match=words):
            plan_entry(action, "claude", claude.home, entry)
    with pytest.raises(AgentInputError, match="x repairs the index"):
        entry_edit_source(claude.home, gone)
    fact = row_entries("gemini", gemini.home, "global", str(gemini.home)).entries[0]
    with pytest.raises(AgentInputError, match="already in the global tier"):
        plan_entry("promote", "gemini", gemini.home, fact)
    assert entry_edit_source(gemini.home, fact).fact == fact.fact
    conventions = _entry(row_entries("gemini", gemini.home, "app",
                                     str(gemini.memory("app"))).entries, "conventions.md")
    promote = plan_entry("promote", "gemini", gemini.home, conventions)
    assert promote.changes[0].path == str(gemini.home / "GEMINI.md")


def test_a_moved_context_file_is_where_facts_are_read(gemini: GeminiFixture) -> None:
    settings = gemini.home / "settings.json"
    settings.write_text(json.dumps({"context": {"fileName": "AGENTS.md"}}), encoding="utf-8")
    (gemini.home / "AGENTS.md").write_text("## Gemini Added Memories\n- In AGENTS.md.\n",
                                           encoding="utf-8")
    read = row_entries("gemini", gemini.home, "global", str(gemini.home))
    assert global_file(gemini.home) == gemini.home / "AGENTS.md"
    facts = [(entry.name, entry.fact) for entry in read.entries]  # GEMINI.md is read too
    assert facts[0] == ("AGENTS.md", "In AGENTS.md.") and {name for name, _ in facts} == {
        "AGENTS.md", "GEMINI.md"}
    apply_plan(plan_entry("forget", "gemini", gemini.home, read.entries[0]), True)
    assert "In AGENTS.md" not in (gemini.home / "AGENTS.md").read_text(encoding="utf-8")
    assert "tabs in Go" in (gemini.home / "GEMINI.md").read_text(encoding="utf-8")
    assert not any(path.name.startswith(".memtui-tmp-") for path in gemini.home.iterdir())
