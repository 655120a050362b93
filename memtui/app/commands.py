"""The ``/memory`` commands (``USAGE``; docs/app.md): parsing, completion, and running them
(``run``, for the command line and the palette). ``memory`` works too; bare ``/memory`` is
``status``."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.text import Text

from memtui.engine.validation import check_id
from memtui.errors import InvalidInput, MemtuiError

if TYPE_CHECKING:
    from memtui.app.app import MemtuiApp

PREFIXES = ("/memory", "memory")
PREFIX = "/memory"
NO_ARGUMENT = ("status", "backfill", "consolidate", "on", "off", "inbox")
OPTIONAL_ID = ("show",)
REQUIRED_ID = ("forget",)
FORCE_FLAGS = ("--force", "-f", "force")
REVIEW_DECISIONS = ("approve", "reject")
ALL_WORD = "all"
REVIEW_SWITCH = ("on", "off")
SUBCOMMANDS = ("status", "show", "extract", "backfill", "consolidate", "forget", "on", "off",
               "note", "inbox", "approve", "reject", "review")
SHOWN_WORD_CHARS = 40
"""An unknown command is repeated in its error up to this long."""
USAGE = ("/memory status | show [id] | extract [--force] | backfill | consolidate | "
         "forget <id> | on | off | note <text> | inbox | approve [id|all] | reject [id|all] | "
         "review on|off")


class CommandError(InvalidInput):
    """A command line that is not a valid ``/memory`` command; ``message`` says why."""


@dataclass(frozen=True)
class MemoryCommand:
    """A parsed ``/memory`` command: the subcommand, its argument, and ``force`` for extract."""

    name: str
    argument: str | None = None
    force: bool = False

    def text(self) -> str:
        """The command written out again (for the status line and the palette)."""
        return " ".join(filter(None, (PREFIX, self.name, "--force" * self.force, self.argument)))


def _shown(word: str) -> str:
    return word if len(word) <= SHOWN_WORD_CHARS else word[:SHOWN_WORD_CHARS - 1] + "…"


def parse_command(text: str) -> MemoryCommand:
    """Parse one command line. Raises ``CommandError`` with a clear message otherwise."""
    if not text.strip():
        raise CommandError(f"empty command; try {USAGE}")
    head, _, rest = text.strip().partition(" ")
    if head.lower() not in PREFIXES:
        raise CommandError(f"unknown command {_shown(head)!r}; commands start with /memory: "
                           f"{USAGE}")
    if not rest.strip():
        return MemoryCommand("status")
    name, _, argument = rest.strip().partition(" ")
    name, argument = name.lower(), argument.strip()
    if name not in SUBCOMMANDS:
        suggestion = [s for s in SUBCOMMANDS if s.startswith(name[:2])]
        hint = f" (did you mean {suggestion[0]}?)" if suggestion else ""
        raise CommandError(f"unknown /memory command {_shown(name)!r}{hint}; use {USAGE}")
    if name in NO_ARGUMENT and argument:
        raise CommandError(f"/memory {name} takes no argument")
    if name in NO_ARGUMENT or name == "extract" and not argument:
        return MemoryCommand(name)
    if name == "extract":
        if argument.lower() in FORCE_FLAGS:
            return MemoryCommand(name, force=True)
        raise CommandError("/memory extract takes only --force")
    if name == "review":
        if argument.lower() not in REVIEW_SWITCH:
            raise CommandError("/memory review takes on or off")
        return MemoryCommand(name, argument.lower())
    if name in (*OPTIONAL_ID, *REQUIRED_ID, *REVIEW_DECISIONS):
        if not argument and name in REQUIRED_ID:
            raise CommandError(f"/memory {name} needs a memory id: /memory {name} <id>")
        if not argument:
            return MemoryCommand(name)
        all_too = name in REVIEW_DECISIONS
        if " " in argument:
            raise CommandError(f"/memory {name} takes one memory id{', or all' * all_too}")
        if all_too and argument.lower() == ALL_WORD:
            return MemoryCommand(name, ALL_WORD)
        try:
            return MemoryCommand(name, check_id(argument, "memory id"))
        except InvalidInput as error:
            raise CommandError(error.message) from None
    if not argument:  # note
        raise CommandError("/memory note needs the text of the note: /memory note <text>")
    return MemoryCommand(name, argument)


def complete(text: str, current_id: Callable[[], str | None] | None = None) -> str | None:
    """The whole completed command line for what was typed so far, or None: ``/m`` to
    ``/memory ``, a subcommand prefix to the subcommand, ``show``/``forget`` to the selected
    memory's id (``current_id``)."""
    if not text or text != text.lstrip():
        return None
    head, space, rest = text.partition(" ")
    if not space:
        return next((prefix + " " for prefix in PREFIXES
                     if prefix.startswith(head.lower()) and head.lower() != prefix), None)
    if head.lower() not in PREFIXES:
        return None
    name, space, argument = rest.partition(" ")
    if not space:  # (nothing typed yet matches every subcommand: no completion)
        matches = [s for s in SUBCOMMANDS if s.startswith(name.lower()) and s != name.lower()]
        return f"{head} {matches[0]}" if len(matches) == 1 else None
    if name.lower() in (*OPTIONAL_ID, *REQUIRED_ID, *REVIEW_DECISIONS) and not argument \
            and current_id:
        selected = current_id()
        return f"{head} {name} {selected}" if selected else None
    if name.lower() == "extract" and argument and "--force".startswith(argument) \
            and argument != "--force":
        return f"{head} {name} --force"
    return None


PANE_HINTS = {
    "inbox": "The Inbox is open: choose a row, then press the key again.",
    "agents": "The Agents pane is open: enter lists a row's entries; choose one, then press "
              "the key again.",
}
"""What a pane action asked from elsewhere says once it has shown the pane."""


def run(app: MemtuiApp, command: MemoryCommand) -> None:
    """Do a parsed ``/memory`` command."""
    from memtui.app import curator
    from memtui.engine.jobs import BACKFILL, CONSOLIDATE, ROUND

    name, argument = command.name, command.argument
    if name == "status":
        from memtui.app.modals.text import TextModal

        app.push_screen(TextModal("Memory status", status_text(app)))
    elif name == "show":
        memory_id = argument or app.current_memory_id()
        if memory_id is None:
            app.say("No memory selected: /memory show <id>", severity="warning")
        else:
            from memtui.app.modals.detail import memory_detail_view

            app.do(memory_detail_view(app.engine, memory_id, app.tz))
    elif name in ("extract", "backfill", "consolidate"):
        app.runner.start({"extract": ROUND, "backfill": BACKFILL,
                          "consolidate": CONSOLIDATE}[name], force=command.force)
    elif name == "forget":
        app.do(curator.forget([argument or ""]))
    elif name in ("on", "off"):
        value = 1 if name == "on" else 0
        app.do(curator.change_settings(app.engine, {"generate_memories": value,
                                                    "use_memories": value},
                                       label=f"generate and use {name}"))
    elif name == "note":
        app.do(curator.add_note(app.engine, scope_project(app), argument or ""))
    elif name == "inbox":
        app.show_pane("inbox")
    elif name in ("approve", "reject"):
        if argument:
            app.do(curator.inbox_ids(app.inbox_sources, name,
                                     None if argument == ALL_WORD else [argument]))
        else:
            pane_action(app, "inbox", name)
    elif name == "review":
        app.do(curator.change_settings(
            app.engine, {"review_new_memories": 1 if argument == "on" else 0},
            label=f"review of new memories {argument}"))


def scope_project(app: MemtuiApp) -> str | None:
    """Where a new memory or note goes: the Project pane's project, else the user's."""
    from memtui.app.panes.memories import ProjectMemoriesPane

    return app.project if isinstance(app.current_pane(), ProjectMemoriesPane) else None


def pane_action(app: MemtuiApp, pane_id: str, action: str) -> None:
    """An Inbox or Agents action from elsewhere: done if its pane is on screen, else shown."""
    pane = app.current_pane()
    if pane is not None and pane.PANE_ID == pane_id and pane.ready():
        getattr(pane, f"action_{action}")()
        return
    app.show_pane(pane_id)
    app.say(PANE_HINTS[pane_id], toast=False)


def status_text(app: MemtuiApp) -> Text:
    """``/memory status``: settings, worker state, counts per scope and status, last run."""
    engine = app.engine
    out = Text()
    settings = engine.settings.get()
    out.append("Settings\n", style="bold")
    switches = {spec.name for spec in engine.settings.specs() if spec.kind == "switch"}
    for name, value in settings.items():
        shown = ("on" if value else "off") if name in switches else \
            ("none" if value is None else str(value))
        out.append(f"  {name:<34}{shown}\n")
    out.append("\nWorker\n", style="bold")
    out.append(f"  {app.runner.status(app.tz)}\n")
    out.append("\nMemories\n", style="bold")
    identity = engine.identity
    scopes: list[tuple[str, str | None]] = [("user", None)]
    scopes += [(f"project {project.id}", project.id) for project, _role in identity.list_projects()]
    for label, project in scopes:
        counts = [f"{status} "
                  f"{identity.count_memories(identity.memory_filter(project, status=status))}"
                  for status in ("active", "superseded", "pending")]
        out.append(f"  {label:<24}" + "  ".join(counts) + "\n")
    out.append("\nExtraction log\n", style="bold")
    out.append("  " + ("  ".join(f"{k} {v}" for k, v in sorted(
        engine.extraction.log_counts().items())) or "empty") + "\n")
    with suppress(MemtuiError):
        out.append(f"  pending tasks {engine.extraction.pending()}\n")
    return out
