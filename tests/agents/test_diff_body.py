"""``diff_body``: what the Inbox and ``inbox list`` count and show of a plan's diff."""

from __future__ import annotations

from memtui.engine.agents.plans import diff_body


def test_the_file_lines_go_and_a_removed_dash_dash_line_stays() -> None:
    diff = "--- a/MEMORY.md\n+++ b/MEMORY.md\n@@ -1,2 +1,2 @@\n---flag kept\n+++new\n ctx\n"
    assert diff_body(diff) == ["@@ -1,2 +1,2 @@", "---flag kept", "+++new", " ctx"]
