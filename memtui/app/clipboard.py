"""Copying text out: the terminal's clipboard escape (OSC 52, which works over SSH) always,
the system clipboard too when there is one. A failure never raises."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

SYSTEM_CLIPBOARD = "system clipboard"
TERMINAL_CLIPBOARD = "terminal clipboard (OSC 52)"


@dataclass(frozen=True)
class CopyResult:
    """How a copy went: which clipboards took the text, and any failure (never raised)."""

    characters: int
    used: tuple[str, ...]
    error: str | None = None

    @property
    def ok(self) -> bool:
        """Whether at least one clipboard took the text."""
        return bool(self.used)

    def describe(self) -> str:
        """One line for the status bar."""
        if not self.used:
            return f"Copy failed: {self.error or 'no clipboard available'}"
        return f"Copied {self.characters} characters to the {' and the '.join(self.used)}"


class Clipboard:
    """Copies text with ``system_copy`` (``None``: no system clipboard) and with OSC 52."""

    def __init__(self, osc52: Callable[[str], None],
                 system_copy: Callable[[str], None] | None) -> None:
        self._osc52 = osc52
        self._system_copy = system_copy

    def copy(self, text: str) -> CopyResult:
        """Copy ``text``; report which clipboards took it."""
        used: list[str] = []
        errors: list[str] = []
        for name, short, copier in ((SYSTEM_CLIPBOARD, "system clipboard", self._system_copy),
                                    (TERMINAL_CLIPBOARD, "terminal", self._osc52)):
            if copier is None:
                continue
            try:
                copier(text)
            except Exception as error:  # pyperclip's, the OS's, a dead terminal's
                errors.append(f"{short}: {error.__class__.__name__}")
                if name == SYSTEM_CLIPBOARD:
                    self._system_copy = None  # not tried again in this session
            else:
                used.append(name)
        return CopyResult(len(text), tuple(used), "; ".join(errors) or None)
