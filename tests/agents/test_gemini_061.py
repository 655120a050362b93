"""Gemini CLI 0.61 as the real program left its home (tests/data/agent_homes/gemini-0.61.0,
written by tests/interop/scenarios/gemini.py): its global memory (plain bullets of
``~/.gemini/GEMINI.md``, no ``save_memory``), its private ``MEMORY.md``, memtui's notes and
promotions written the same way (the old ``## Gemini Added Memories`` section still read
and kept where a home has it), inbox patches with 0.61's absolute paths, and folder trust.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from agents_fixture import copied_home

from memtui.engine.agents import curation
from memtui.engine.agents.entries import row_entries
from memtui.engine.agents.errors import AgentInputError, AgentNotFound
from memtui.engine.agents.gemini import (
    added_memories,
    global_memory_lines,
    read_gemini_home,
)
from memtui.engine.agents.gemini_trust import (
    folder_trusted,
    parse_rules,
    read_folder_trust,
    resolve_rules,
)
from memtui.engine.agents.inbox import plan_apply_patch
from memtui.engine.agents.plans import apply_plan
from memtui.errors import UnsafePath

PRIVATE_FACT = "On my machine the test database listens on port 5433."
GLOBAL_FACT = "I prefer tabs over spaces in every project."
OLD_GLOBAL = ("# Global context\n\nBe brief.\n\n## Gemini Added Memories\n"
              "- The user prefers tabs in Go files.\n\n## Other\n- Reply in English.\n")


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A copy of the fixture home's ``.gemini``."""
    return copied_home(tmp_path, "gemini-0.61.0", ".gemini")


def _project_path(home: Path) -> str:
    projects: dict[str, str] = json.loads(
        (home / "projects.json").read_text(encoding="utf-8"))["projects"]
    (path,) = projects
    return path


# ---- reading what 0.61 wrote ------------------------------------------------------------


def test_the_real_home_reads_with_its_global_and_private_memory(home: Path) -> None:
    read = read_gemini_home(home, env={})
    assert read.home_found and not read.problems
    assert read.global_memories == (GLOBAL_FACT,)
    assert read.added_memories == ()  # 0.61 writes no "Gemini Added Memories" section
    glob, shop = read.projects
    assert glob.key == "global" and [f.relative for f in glob.files] == ["GEMINI.md"]
    assert shop.key == "shop" and shop.project == _project_path(home)
    assert shop.index is not None
    assert [entry.title for entry in shop.index.entries] == [PRIVATE_FACT]
    assert not shop.problems and not shop.inbox


def test_the_global_tier_lists_each_bullet_as_a_fact(home: Path) -> None:
    found = row_entries("gemini", home, "global", str(home))
    assert [(entry.kind, entry.fact, entry.line) for entry in found.entries] == [
        ("fact", GLOBAL_FACT, 1)]


def test_global_bullets_anywhere_outside_code_blocks() -> None:
    text = ("# Me\n\nprose is not a fact\n- one\n  * two\n```\n- in code\n```\n"
            "~~~md\n- also code\n```\n- still code\n~~~\n-not a bullet\n- \n## Gemini Added "
            "Memories\n- three\n")
    assert global_memory_lines(text) == [(3, "one"), (4, "two"), (16, "three")]
    assert added_memories(text) == ["three"]
    assert global_memory_lines("") == [] and global_memory_lines("```\n- open fence\n") == []


def test_an_old_home_s_added_memories_are_still_read(home: Path) -> None:
    (home / "GEMINI.md").write_text(OLD_GLOBAL, encoding="utf-8")
    read = read_gemini_home(home, env={})
    assert read.added_memories == ("The user prefers tabs in Go files.",)
    assert read.global_memories == ("The user prefers tabs in Go files.", "Reply in English.")


def test_import_gives_each_memory_its_project_kind_and_text(home: Path, tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    env = {"MEMTUI_DB": str(db), "MEMTUI_USER": "alice", "HOME": str(tmp_path),
           "MEMTUI_CONFIG": str(tmp_path / "c.toml"), "PATH": "/usr/bin:/bin"}
    memtui = [sys.executable, "-m", "memtui", "--json", "--gemini-home", str(home)]

    def run(*args: str) -> dict[str, object]:
        done = subprocess.run([*memtui, *args], env=env, capture_output=True, text=True,
                              check=False)
        assert done.returncode == 0, done.stderr
        data = json.loads(done.stdout)
        assert isinstance(data, dict)
        return data

    report = run("gemini", "import")
    assert report["imported"] == 2 and report["created_projects"] == ["shop"]
    projects = run("project", "list")["items"]
    assert isinstance(projects, list)
    assert [(p["id"], p["root"]) for p in projects] == [("shop", _project_path(home))]
    (private,) = run("memory", "list", "--project", "shop")["items"]  # type: ignore[misc]
    assert (private["content"], private["kind"], private["source"]) == (
        PRIVATE_FACT, "fact", "import")
    assert private["source_thread_id"].startswith("gemini:shop/MEMORY.md#")
    (shared,) = run("memory", "list", "--scope", "user")["items"]  # type: ignore[misc]
    assert (shared["content"], shared["kind"], shared["project"]) == (
        GLOBAL_FACT, "preference", None)
    again = run("gemini", "import")
    assert again["imported"] == 0


# ---- writing the way 0.61 keeps memory --------------------------------------------------


def test_a_note_is_a_plain_bullet_at_the_end_of_the_global_file(home: Path) -> None:
    before = (home / "GEMINI.md").read_text(encoding="utf-8")
    plan = curation.plan_add_fact(home, "  Commit messages\nin the imperative. ")
    apply_plan(plan, True)
    after = (home / "GEMINI.md").read_text(encoding="utf-8")
    assert after == before + "- Commit messages in the imperative.\n"
    assert "Gemini Added Memories" not in after
    assert read_gemini_home(home, env={}).global_memories == (
        GLOBAL_FACT, "Commit messages in the imperative.")


def test_a_note_after_prose_gets_a_blank_line_and_a_new_file_is_one_bullet(home: Path) -> None:
    path = home / "GEMINI.md"
    path.write_text("# About me\n\nI work on shops.\n\n\n", encoding="utf-8")
    apply_plan(curation.plan_add_fact(home, "Tabs."), True)
    assert path.read_text(encoding="utf-8") == "# About me\n\nI work on shops.\n\n- Tabs.\n"
    path.unlink()
    apply_plan(curation.plan_add_fact(home, "Spaces."), True)
    assert path.read_text(encoding="utf-8") == "- Spaces.\n"


def test_a_note_in_an_old_home_goes_into_its_added_memories_section(home: Path) -> None:
    path = home / "GEMINI.md"
    path.write_text(OLD_GLOBAL, encoding="utf-8")
    apply_plan(curation.plan_add_fact(home, "Go 1.23."), True)
    assert path.read_text(encoding="utf-8") == OLD_GLOBAL.replace(
        "in Go files.\n", "in Go files.\n- Go 1.23.\n")


def test_a_note_is_redacted_and_bad_notes_are_refused(home: Path) -> None:
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    plan = curation.plan_add_fact(home, f"deploy with {token}")
    assert token not in plan.changes[0].new_text and plan.notes
    with pytest.raises(AgentInputError):
        curation.plan_add_fact(home, " \n ")
    with pytest.raises(AgentInputError):
        curation.plan_add_fact(home, "x" * (curation.MAX_EDIT_BYTES + 1))


def test_promotion_moves_a_private_file_to_plain_global_bullets(home: Path) -> None:
    memory = home / "tmp" / "shop" / "memory"
    (memory / "local-setup.md").write_text("# Local setup\n\n- Redis on 6380.\n- Mail via "
                                           "mailpit.\n", encoding="utf-8")
    index = memory / "MEMORY.md"
    index.write_text(index.read_text(encoding="utf-8")
                     + "- [Local setup](local-setup.md) — services\n", encoding="utf-8")
    apply_plan(curation.plan_promote_gemini(home, memory / "local-setup.md"), True)
    assert (home / "GEMINI.md").read_text(encoding="utf-8") == (
        f"- {GLOBAL_FACT}\n- Redis on 6380.\n- Mail via mailpit.\n")
    assert not (memory / "local-setup.md").exists()
    assert index.read_text(encoding="utf-8") == f"- {PRIVATE_FACT}\n"


def test_forget_and_edit_find_a_bullet_anywhere_in_the_global_file(home: Path) -> None:
    path = home / "GEMINI.md"
    path.write_text(OLD_GLOBAL, encoding="utf-8")
    apply_plan(curation.plan_edit_fact(home, "English", "Reply in German."), True)
    assert path.read_text(encoding="utf-8").endswith("## Other\n- Reply in German.\n")
    apply_plan(curation.plan_forget_fact(home, "tabs in Go"), True)
    assert "tabs in Go" not in path.read_text(encoding="utf-8")
    with pytest.raises(AgentNotFound):
        curation.plan_forget_fact(home, "Be brief")  # prose, not a bullet


def test_the_note_command_no_longer_names_save_memory() -> None:
    done = subprocess.run([sys.executable, "-m", "memtui", "gemini", "--help"],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0
    words = " ".join(done.stdout.split())
    assert "as save_memory does" not in words
    assert "no save_memory tool" in words


# ---- inbox patches as 0.61 writes them (absolute paths) ---------------------------------


def _patch(home: Path, kind: str, text: str) -> Path:
    inbox = home / "tmp" / "shop" / "memory" / ".inbox" / kind
    inbox.mkdir(parents=True, exist_ok=True)
    path = inbox / "extraction.patch"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_private_patch_with_absolute_paths_applies(home: Path) -> None:
    memory = home / "tmp" / "shop" / "memory"
    index = memory / "MEMORY.md"
    patch = _patch(home, "private", (
        f"--- /dev/null\n+++ {memory}/ci.md\n@@ -0,0 +1,2 @@\n+# CI\n+Runs on push.\n"
        f"--- {index}\n+++ {index}\n@@ -1,1 +1,2 @@\n {PRIVATE_FACT}\n"
        f"+- See {memory}/ci.md for how CI runs.\n").replace(f" {PRIVATE_FACT}",
                                                             f" - {PRIVATE_FACT}"))
    apply_plan(plan_apply_patch(home, str(patch)), True)
    assert (memory / "ci.md").read_text(encoding="utf-8") == "# CI\nRuns on push.\n"
    assert index.read_text(encoding="utf-8") == (
        f"- {PRIVATE_FACT}\n- See {memory}/ci.md for how CI runs.\n")
    assert not patch.exists()


def test_a_global_patch_with_the_global_file_s_absolute_path_applies(home: Path) -> None:
    target = home / "GEMINI.md"
    patch = _patch(home, "global", f"--- {target}\n+++ {target}\n@@ -1,1 +1,2 @@\n"
                                   f" - {GLOBAL_FACT}\n+- Reply in English.\n")
    apply_plan(plan_apply_patch(home, str(patch)), True)
    assert target.read_text(encoding="utf-8") == f"- {GLOBAL_FACT}\n- Reply in English.\n"


@pytest.mark.parametrize(("kind", "target"), [
    ("private", "tmp/shop/memory/sub/deep.md"),  # not directly in the memory folder
    ("private", "tmp/shop/memory/.hidden.md"),
    ("private", "tmp/shop/memory/notes.txt"),
    ("private", "tmp/other/memory/MEMORY.md"),
    ("private", "settings.json"),
    ("global", "settings.json"),
    ("global", "tmp/shop/memory/MEMORY.md"),
])
def test_an_absolute_patch_path_outside_what_its_kind_may_change_is_refused(
        home: Path, kind: str, target: str) -> None:
    path = home / target
    before = path.read_bytes() if path.exists() else None
    patch = _patch(home, kind, f"--- /dev/null\n+++ {path}\n@@ -0,0 +1,1 @@\n+x\n")
    with pytest.raises(UnsafePath, match="outside what a"):
        plan_apply_patch(home, str(patch))
    assert (path.read_bytes() if path.exists() else None) == before
    assert patch.exists()


# ---- folder trust ------------------------------------------------------------------------


def test_the_real_home_trusts_its_project(home: Path) -> None:
    trust = read_folder_trust(home, [_project_path(home)], env={})
    assert trust.enabled and trust.untrusted == () and not trust.applies


def test_an_untrusted_folder_is_named(home: Path, tmp_path: Path) -> None:
    other = str(tmp_path / "elsewhere")
    trust = read_folder_trust(home, [_project_path(home), other], env={})
    assert trust.untrusted == (other,) and trust.applies
    assert read_folder_trust(home, [other], env={"GEMINI_CLI_TRUST_WORKSPACE": "true"}
                             ).untrusted == ()
    assert read_folder_trust(home, [_project_path(home)],
                             env={"GEMINI_CLI_TRUST_WORKSPACE": "false"}).applies


def test_folder_trust_switched_off_disables_nothing(home: Path, tmp_path: Path) -> None:
    settings = json.loads((home / "settings.json").read_text(encoding="utf-8"))
    settings["security"]["folderTrust"]["enabled"] = False
    (home / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    trust = read_folder_trust(home, [str(tmp_path / "x")], env={})
    assert not trust.enabled and not trust.applies


def test_no_rules_file_means_untrusted_and_a_bad_one_is_a_problem(home: Path) -> None:
    (home / "trustedFolders.json").unlink()
    assert read_folder_trust(home, ["/a"], env={}).untrusted == ("/a",)
    (home / "trustedFolders.json").write_text("{not json", encoding="utf-8")
    assert read_folder_trust(home, ["/a"], env={}).problem
    (home / "trustedFolders.json").write_text('{"/a": "MAYBE"}', encoding="utf-8")
    bad = read_folder_trust(home, ["/a"], env={})
    assert bad.problem and "MAYBE" in bad.problem and bad.untrusted == ("/a",)


def test_the_longest_rule_wins_and_parent_rules_cover_siblings() -> None:
    rules = resolve_rules(parse_rules('{"/w": "TRUST_FOLDER", "/w/secret": "DO_NOT_TRUST",\n'
                                      ' // comments are allowed\n "/p/child": "TRUST_PARENT"}'))
    assert folder_trusted(rules, "/w/shop") is True
    assert folder_trusted(rules, "/w/secret/deep") is False
    assert folder_trusted(rules, "/p/sibling") is True
    assert folder_trusted(rules, "/wx") is None and folder_trusted(rules, "/") is None
    with pytest.raises(ValueError):
        parse_rules("[]")


def test_a_0_61_pointer_line_links_its_sibling_file_and_goes_with_it(home: Path) -> None:
    memory = home / "tmp" / "shop" / "memory"
    index = memory / "MEMORY.md"
    (memory / "ci.md").write_text("# CI\nRuns on push.\n", encoding="utf-8")
    index.write_text(f"- {PRIVATE_FACT}\n- See {memory}/ci.md for how CI runs.\n"
                     "- See /etc/passwd.md for nothing.\n- See the docs for more.\n",
                     encoding="utf-8")
    read = read_gemini_home(home, env={})
    shop = read.projects[1]
    assert shop.index is not None
    assert [(e.title, e.target, e.exists) for e in shop.index.entries] == [
        (PRIVATE_FACT, None, None), ("how CI runs", "ci.md", True),
        ("nothing", "/etc/passwd.md", False), ("See the docs for more.", None, None)]
    assert shop.index.unindexed == () and shop.index.outside == ("/etc/passwd.md",)
    found = row_entries("gemini", home, "shop", str(memory)).entries
    assert [(entry.kind, entry.name) for entry in found] == [
        ("index", "MEMORY.md"), ("topic", "ci.md"), ("link", "/etc/passwd.md")]
    apply_plan(curation.plan_forget(home, memory / "ci.md"), True)
    assert index.read_text(encoding="utf-8") == (
        f"- {PRIVATE_FACT}\n- See /etc/passwd.md for nothing.\n- See the docs for more.\n")


# ---- promoting a brief MEMORY.md fact ------------------------------------------------------


def _cli(home: Path, tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {"MEMTUI_DB": str(tmp_path / "m.db"), "MEMTUI_USER": "alice", "HOME": str(tmp_path),
           "MEMTUI_CONFIG": str(tmp_path / "c.toml"), "PATH": "/usr/bin:/bin"}
    return subprocess.run([sys.executable, "-m", "memtui", "gemini", *args, "--gemini-home",
                           str(home)], env=env, capture_output=True, text=True, check=False)


def test_a_brief_memory_md_fact_is_promoted_to_the_global_file(home: Path,
                                                               tmp_path: Path) -> None:
    index = home / "tmp" / "shop" / "memory" / "MEMORY.md"
    before = index.read_bytes()
    shown = _cli(home, tmp_path, "promote", "--fact", "port 5433")
    assert shown.returncode == 4 and index.read_bytes() == before  # no --write: shown only
    done = _cli(home, tmp_path, "promote", "--fact", "port 5433", "--write")
    assert done.returncode == 0, done.stderr
    assert index.read_text(encoding="utf-8") == ""
    assert (home / "GEMINI.md").read_text(encoding="utf-8") == (
        f"- {GLOBAL_FACT}\n- {PRIVATE_FACT}\n")


def test_promoting_a_fact_refuses_what_it_cannot_find_or_tell_apart(home: Path,
                                                                    tmp_path: Path) -> None:
    index = home / "tmp" / "shop" / "memory" / "MEMORY.md"
    index.write_text(f"- {PRIVATE_FACT}\n- The port of redis is 6380.\n"
                     f"- See {index.parent}/x.md for x.\n", encoding="utf-8")
    from memtui.engine.agents.curation import plan_promote_index_fact

    with pytest.raises(AgentInputError, match="^2 MEMORY.md bullets match 'port'"):
        plan_promote_index_fact(home, "port")
    with pytest.raises(AgentNotFound):
        plan_promote_index_fact(home, "for x")  # a pointer line is not a fact
    with pytest.raises(AgentInputError):
        plan_promote_index_fact(home, "   ")
    both = _cli(home, tmp_path, "promote", str(index), "--fact", "port")
    assert both.returncode != 0 and "one of them" in both.stderr
    plan = plan_promote_index_fact(home, "redis")
    assert plan.changes[1].new_text == f"- {PRIVATE_FACT}\n- See {index.parent}/x.md for x.\n"


def test_promoting_skips_a_project_folder_leading_out_of_the_home(home: Path,
                                                                  tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere" / "memory"
    outside.mkdir(parents=True)
    (outside / "MEMORY.md").write_text("- The port of redis is 6380.\n", encoding="utf-8")
    (home / "tmp" / "away").symlink_to(outside.parent, target_is_directory=True)
    from memtui.engine.agents.curation import plan_promote_index_fact

    with pytest.raises(AgentNotFound):  # the bullet outside is never found nor changed
        plan_promote_index_fact(home, "redis")
    plan = plan_promote_index_fact(home, "port 5433")  # the home's own still promotes
    assert plan.changes[1].path == str(home / "tmp" / "shop" / "memory" / "MEMORY.md")
    assert (outside / "MEMORY.md").read_text(encoding="utf-8") == "- The port of redis is 6380.\n"
