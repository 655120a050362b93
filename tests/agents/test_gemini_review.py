"""Gemini CLI's inbox patches read for the review inbox (``engine.agents.gemini_review``):
every patch is one decision with the plans made when it was read; applying or dismissing
writes exactly that, or nothing when a file changed since; a malformed patch, one that no
longer matches, or one whose file leads outside the home can only be dismissed; the light
listing agrees with the full reader."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from agents_fixture import GITHUB_TOKEN, GeminiFixture, file_bytes

from memtui.engine.agents.errors import AgentInputError, ChangedSinceRead
from memtui.engine.agents.gemini import read_gemini_home, read_gemini_inbox
from memtui.engine.agents.gemini_review import (
    PatchReview,
    apply_reviewed,
    count_gemini_inbox,
    dismiss_reviewed,
    review_gemini_inbox,
)


def _by_name(home: Path) -> dict[str, PatchReview]:
    return {review.name: review for review in review_gemini_inbox(home, env={})}


def test_the_light_listing_agrees_with_the_full_reader(gemini: GeminiFixture) -> None:
    full = read_gemini_home(gemini.home, env={})
    light = read_gemini_inbox(gemini.home, env={})
    assert light.home_found and light.patches == full.inbox
    assert light.projects == {"app": str(gemini.app), "web": str(gemini.web)}
    assert count_gemini_inbox(gemini.home, env={}) == len(full.inbox) == 4
    missing = read_gemini_inbox(gemini.root / "nowhere", env={})
    assert not missing.home_found and missing.patches == ()


def test_each_patch_is_read_as_a_decision(gemini: GeminiFixture) -> None:
    before = file_bytes(gemini.home)
    reviews = _by_name(gemini.home)
    assert sorted(reviews) == ["app:global/0001-tz.patch", "app:private/0001-ci.patch",
                               "app:private/0002-stale.patch", "app:private/0003-broken.patch"]
    good = reviews["app:private/0001-ci.patch"]
    assert good.problem is None and good.apply is not None and good.dismiss is not None
    assert good.files == ("tmp/app/memory/MEMORY.md",) and good.tier == "project"
    assert good.project_slug == "app" and good.project_path == str(gemini.app)
    assert "+- The CI runs on every push to main." in good.diff
    assert good.proposed_at is not None and good.proposed_at.endswith("Z")
    assert not good.changes_lines
    tz = reviews["app:global/0001-tz.patch"]
    assert tz.tier == "global" and tz.files == ("GEMINI.md",)
    stale = reviews["app:private/0002-stale.patch"]
    assert stale.apply is None and "does not apply" in (stale.problem or "")
    broken = reviews["app:private/0003-broken.patch"]
    assert broken.apply is None and (broken.problem or "").startswith("malformed patch")
    assert broken.dismiss is not None
    assert file_bytes(gemini.home) == before  # reading writes nothing


def test_apply_writes_what_was_read_and_removes_the_patch(gemini: GeminiFixture) -> None:
    review = _by_name(gemini.home)["app:private/0001-ci.patch"]
    apply_reviewed(review)
    memory = gemini.memory("app")
    assert (memory / "MEMORY.md").read_text(encoding="utf-8").endswith(
        "- The CI runs on every push to main.\n")
    assert not (memory / ".inbox" / "private" / "0001-ci.patch").exists()
    with pytest.raises(ChangedSinceRead, match="changed since the inbox was read"):
        apply_reviewed(review)  # twice: the file it read is gone


def test_a_changed_file_is_refused_and_named_by_its_place_in_the_home(
        gemini: GeminiFixture) -> None:
    review = _by_name(gemini.home)["app:private/0001-ci.patch"]
    index = gemini.memory("app") / "MEMORY.md"
    index.write_text(index.read_text(encoding="utf-8") + "- added by hand\n", encoding="utf-8")
    before = file_bytes(gemini.home)
    with pytest.raises(ChangedSinceRead) as caught:
        apply_reviewed(review)
    assert caught.value.message.startswith("tmp/app/memory/MEMORY.md changed since the inbox "
                                           "was read")
    assert "nothing was written" in caught.value.message
    assert file_bytes(gemini.home) == before


def test_a_patch_rewritten_since_it_was_read_is_neither_applied_nor_dismissed(
        gemini: GeminiFixture) -> None:
    review = _by_name(gemini.home)["app:private/0001-ci.patch"]
    patch = gemini.memory("app") / ".inbox" / "private" / "0001-ci.patch"
    patch.write_text(patch.read_text(encoding="utf-8") + "+- one more line\n", encoding="utf-8")
    before = file_bytes(gemini.home)
    for act in (apply_reviewed, dismiss_reviewed):
        with pytest.raises(ChangedSinceRead, match=r"\.inbox/private/0001-ci\.patch changed"):
            act(review)
    assert file_bytes(gemini.home) == before


def test_what_cannot_be_applied_can_only_be_dismissed(gemini: GeminiFixture) -> None:
    reviews = _by_name(gemini.home)
    before = file_bytes(gemini.home)
    for name in ("app:private/0002-stale.patch", "app:private/0003-broken.patch"):
        with pytest.raises(AgentInputError, match="cannot be applied.*dismiss it instead"):
            apply_reviewed(reviews[name])
    assert file_bytes(gemini.home) == before
    dismiss_reviewed(reviews["app:private/0003-broken.patch"])
    assert not (gemini.memory("app") / ".inbox" / "private" / "0003-broken.patch").exists()
    assert (gemini.memory("app") / "MEMORY.md").read_bytes() == \
        before["tmp/app/memory/MEMORY.md"]


def test_a_symlink_leading_outside_the_home_is_never_written(gemini: GeminiFixture) -> None:
    outside = gemini.root / "outside.md"
    index = gemini.memory("app") / "MEMORY.md"
    outside.write_bytes(index.read_bytes())
    kept = outside.read_bytes()
    index.unlink()
    index.symlink_to(outside)
    review = _by_name(gemini.home)["app:private/0001-ci.patch"]
    assert review.apply is None and "symlink" in (review.problem or "")
    with pytest.raises(AgentInputError):
        apply_reviewed(review)
    assert outside.read_bytes() == kept


def test_a_patch_that_adds_a_secret_says_so_and_never_shows_it(gemini: GeminiFixture) -> None:
    patch = gemini.memory("app") / ".inbox" / "private" / "0004-token.patch"
    patch.write_text("--- a/conventions.md\n+++ b/conventions.md\n@@ -1 +1,2 @@\n"
                     " Files are kebab-case.\n"
                     f"+Deploy with {GITHUB_TOKEN}\n", encoding="utf-8")
    review = _by_name(gemini.home)["app:private/0004-token.patch"]
    assert review.secrets and review.apply is not None
    assert GITHUB_TOKEN not in review.diff and "Deploy with «" in review.diff


def test_patches_are_listed_oldest_first(gemini: GeminiFixture) -> None:
    inbox = gemini.memory("app") / ".inbox"
    for number, name in enumerate(("private/0003-broken.patch", "global/0001-tz.patch",
                                   "private/0002-stale.patch", "private/0001-ci.patch")):
        os.utime(inbox / name, (1_700_000_000 + number, 1_700_000_000 + number))
    names = [review.name for review in review_gemini_inbox(gemini.home, env={})]
    assert names == ["app:private/0003-broken.patch", "app:global/0001-tz.patch",
                     "app:private/0002-stale.patch", "app:private/0001-ci.patch"]
