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


def pyperclip_copy(text: str) -> None:
    """Copy with pyperclip (raises when there is no system clipboard)."""
    import pyperclip

    pyperclip.copy(text)


class Clipboard:
    """Copies text with OSC 52 and with ``system_copy`` (``None``: no system clipboard)."""

    def __init__(self, osc52: Callable[[str], None],
                 system_copy: Callable[[str], None] | None = pyperclip_copy) -> None:
        self._osc52 = osc52
        self._system_copy = system_copy
        self._system_works: bool | None = None

    def copy(self, text: str) -> CopyResult:
        """Copy ``text``; report which clipboards took it."""
        used: list[str] = []
        errors: list[str] = []
        if self._system_copy is not None and self._system_works is not False:
            try:
                self._system_copy(text)
            except Exception as error:  # pyperclip raises its own and OS errors
                self._system_works = False  # do not try again in this session
                errors.append(f"system clipboard: {error.__class__.__name__}")
            else:
                self._system_works = True
                used.append(SYSTEM_CLIPBOARD)
        try:
            self._osc52(text)
        except Exception as error:  # a dead terminal must not crash the app
            errors.append(f"terminal: {error.__class__.__name__}")
        else:
            used.append(TERMINAL_CLIPBOARD)
        return CopyResult(characters=len(text), used=tuple(used),
                          error="; ".join(errors) or None)
