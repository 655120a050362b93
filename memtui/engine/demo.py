"""The demo store (``memtui --demo``, the snapshot tests, the screenshots): sample data
through the real engine, with a fixed clock and sequential ids, so every run is the same.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from memtui.engine.api import Engine
from memtui.engine.demo_tasks import seed_tasks
from memtui.engine.paths import is_database_url
from memtui.errors import NotFound, StoreError
from memtui.store.backend import StoreBackend
from memtui.store.database import open_store
from memtui.store.ids import SequentialIds
from memtui.store.timeutil import FixedClock

DEMO_START = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)
DEMO_NOW = datetime(2026, 12, 1, 10, 0, tzinfo=UTC)
"""The demo clock stands here once the store is built."""
DEMO_USER = "alice"
DEMO_PROJECT = "webshop"
STEP_SECONDS = 3 * 3600 + 17 * 60


def _step(clock: FixedClock, seconds: float = STEP_SECONDS) -> None:
    clock.advance(seconds)


def _seed_identity(store: StoreBackend, clock: FixedClock) -> dict[str, Engine]:
    alice, bob, carol = (Engine(store, name) for name in ("alice", "bob", "carol"))
    alice.identity.update_profile(display_name="Alice Chen", timezone="Europe/Berlin",
                                  preferences={"editor": "neovim", "language": "en",
                                               "answer_style": "concise",
                                               "test_runner": "pytest"})
    bob.identity.update_profile(display_name="Bob Okafor", timezone="America/New_York",
                                preferences={"editor": "vscode"})
    carol.identity.update_profile(display_name="Carol Diaz", timezone="Asia/Tokyo")
    alice.identity.create_project("webshop", "Webshop", "/home/alice/src/webshop",
                                  summary="Django storefront with a Postgres backend and a "
                                          "React checkout.")
    alice.identity.create_project("ml-pipeline", "ML pipeline", "/home/alice/src/ml-pipeline",
                                  summary="Nightly feature extraction and model training.")
    bob.identity.create_project("infra", "Infrastructure", "/home/bob/infra",
                                summary="Terraform and Ansible for the shared dev boxes.")
    alice.identity.set_member("webshop", "bob", "member")
    alice.identity.set_member("webshop", "carol", "reader")
    bob.identity.set_member("infra", "alice", "member")
    alice.identity.accept_project("infra")

    user_memories = [
        ("preference", "Prefers pytest with plain asserts over unittest-style classes."),
        ("preference", "Wants commit messages in the imperative mood, under 72 characters."),
        ("convention", "Uses ruff for linting and formatting; line length 100."),
        ("fact", "Works on a remote dev box over SSH, usually inside tmux at 80x24."),
        ("decision", "Keeps secrets in 1Password and loads them with `op run`; never in .env."),
        ("fact", "Time zone is Europe/Berlin; stand-up is at 09:30 local time."),
    ]
    for kind, text in user_memories:
        _step(clock)
        alice.identity.add_memory(text, kind)
    _step(clock)
    old = alice.identity.add_memory("Prefers 2-space indentation everywhere.", "preference")
    _step(clock)
    mid = alice.identity.supersede(old.id, "Prefers 4-space indentation in Python and 2 in "
                                           "TypeScript.")
    _step(clock)
    alice.identity.supersede(mid.id, "Prefers 4-space indentation in Python, 2 in TypeScript "
                                     "and YAML.")
    _step(clock)
    alice.identity.add_note("Remember to rotate the staging database password on the 1st.")

    project_memories = [
        ("decision", "Postgres 16 is the primary database; SQLite only in unit tests."),
        ("convention", "Migrations go through Django's makemigrations; never edit applied ones."),
        ("fact", "The checkout service lives in services/checkout and talks to Stripe."),
        ("convention", "Config goes in [tool.ruff] and [tool.pytest.ini_options] in pyproject."),
        ("fact", "CI runs on GitHub Actions; the slow suite is marked @pytest.mark.slow."),
        ("decision", "Feature flags are read from settings.FEATURES, not environment variables."),
    ]
    for kind, text in project_memories:
        _step(clock)
        alice.identity.add_memory(text, kind, "webshop")
    _step(clock)
    first = alice.identity.add_memory("Static files are served by WhiteNoise.", "decision",
                                      "webshop")
    _step(clock)
    bob.identity.supersede(first.id, "Static files are served from the CDN; WhiteNoise only "
                                     "in development.")
    for engine, text, kind, project in (
            (bob, "Bob prefers Go for small CLI tools.", "preference", None),
            (bob, "Terraform state lives in the shared S3 bucket with locking.", "fact", "infra"),
            (alice, "Dev boxes are rebuilt every Sunday at 02:00 UTC.", "fact", "infra"),
            (alice, "Training runs must pin the dataset snapshot id.", "convention",
             "ml-pipeline")):
        _step(clock)
        engine.identity.add_memory(text, kind, project)
    return {"alice": alice, "bob": bob, "carol": carol}


def _seed_review(clock: FixedClock, engines: dict[str, Engine]) -> None:
    """Three rows in Alice's inbox: an agent's correction and new memory, an import's."""
    alice = engines["alice"]
    alice.settings.update(review_new_memories=1)
    database = alice.identity.list_memories("webshop", search="Postgres 16 primary", limit=1)
    _step(clock, 600)
    if database:
        alice.identity.supersede(database[0].id, "Postgres 17 is the primary database since "
                                                 "the November upgrade; SQLite only in unit "
                                                 "tests.", source="mcp")
    _step(clock, 600)
    alice.identity.add_memory("The staging Stripe account uses test clocks to simulate "
                              "subscription renewals.", "fact", "webshop", source="mcp")
    _step(clock, 600)
    alice.identity.add_memory("Prefers small pull requests that do one thing.", "preference",
                              source="import")


DEMO_BUNDLE = "project:webshop"
DEMO_DOCUMENTS = {
    "lessons.md": ("# Release lessons\n\n1. Run the slow suite (`pytest -m slow`).\n"
                   "2. Apply migrations on staging first.\n"
                   "3. Tag the release and update the changelog.\n"),
    "state.json": '{"last_release": "2026.11.3", "open_incidents": 0}\n',
}
"""A project bundle an agent would keep (the Bundles pane shows something on --demo)."""


def build_demo_store(path: str | Path) -> StoreBackend:
    """Create a new demo store at ``path`` (a new file, or an empty database's URL)."""
    clock = FixedClock(DEMO_START)
    if is_database_url(str(path)):
        store = open_store(str(path), clock=clock, ids=SequentialIds())
        if not store.is_empty():
            store.close()
            raise StoreError(f"{store.location}: holds a store already; the demo needs an "
                             "empty one")
    else:
        target = Path(path).expanduser()
        if target.exists() and target.stat().st_size > 0:
            raise StoreError(f"{target}: already exists; the demo needs a new file")
        store = open_store(target, clock=clock, ids=SequentialIds())
    engines = _seed_identity(store, clock)
    seed_tasks(store, clock, engines)
    _seed_review(clock, engines)
    for path, content in DEMO_DOCUMENTS.items():
        _step(clock)
        engines["alice"].recall.put_document(DEMO_BUNDLE, path, content, 0)
    clock.now = DEMO_NOW
    return store


def check_demo_store(path: Path) -> None:
    """Refuse (``StoreError``) an existing file given to ``--demo`` that is not a demo store."""
    store = open_store(path)
    try:
        Engine(store, DEMO_USER).identity.get_project(DEMO_PROJECT)
    except NotFound:
        raise StoreError(f"{path}: not a demo store (no project {DEMO_PROJECT!r}); give --demo "
                         "a new file, or open this store with --db") from None
    finally:
        store.close()
