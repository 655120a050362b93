"""memtui: see and curate what AI coding agents remember.

Layers, one way only: ``memtui.store`` (the only code that runs SQL) <- ``memtui.engine``
(identity, auto memory, redaction, injection, codex, service logic) <- front ends
(``memtui.app``, ``memtui.cli``, ``memtui.service``).
"""

__version__ = "0.1.0"
