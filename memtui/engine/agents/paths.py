"""Where Claude Code's and Gemini CLI's homes are, and how they name project folders."""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Mapping
from pathlib import Path

CLAUDE_HOME_ENV = "CLAUDE_CONFIG_DIR"
GEMINI_HOME_ENV = "GEMINI_CLI_HOME"
CLAUDE_DIR_NAME = ".claude"
GEMINI_DIR_NAME = ".gemini"
CLAUDE_DISABLE_ENV = "CLAUDE_CODE_DISABLE_AUTO_MEMORY"
CLAUDE_MEMORY_PATH_ENV = "CLAUDE_COWORK_MEMORY_PATH_OVERRIDE"
MANAGED_CLAUDE_DIR = Path("/etc/claude-code")
"""Where Linux keeps the managed-policy CLAUDE.md."""
MAX_SLUG_CHARS = 200
"""Claude Code cuts a longer project slug to this many characters plus ``-<hash>``."""
_CLAUDE_SLUG_JUNK = re.compile(r"[^A-Za-z0-9]")
_GEMINI_SLUG_JUNK = re.compile(r"[^a-z0-9]+")


def _expand(value: str | os.PathLike[str]) -> Path:
    return Path(os.path.expanduser(os.fspath(value))).absolute()


def resolve_claude_home(cli_path: str | os.PathLike[str] | None = None,
                        env: Mapping[str, str] | None = None) -> Path:
    """The Claude Code home: ``cli_path``, else ``$CLAUDE_CONFIG_DIR``, else ``~/.claude``."""
    variable = (os.environ if env is None else env).get(CLAUDE_HOME_ENV)
    return _expand(cli_path or variable or Path.home() / CLAUDE_DIR_NAME)


def resolve_gemini_home(cli_path: str | os.PathLike[str] | None = None,
                        env: Mapping[str, str] | None = None) -> Path:
    """The Gemini CLI home: ``cli_path``, else ``$GEMINI_CLI_HOME`` (its ``.gemini`` when it
    has one: Gemini CLI takes the variable as the folder holding it), else ``~/.gemini``."""
    variable = (os.environ if env is None else env).get(GEMINI_HOME_ENV)
    if cli_path or not variable:
        return _expand(cli_path or Path.home() / GEMINI_DIR_NAME)
    base = _expand(variable)
    return base / GEMINI_DIR_NAME if (base / GEMINI_DIR_NAME).is_dir() else base


def claude_slug(path: str) -> str:
    """Claude Code's folder name for a project path (``/home/me/a.b`` -> ``-home-me-a-b``),
    cut with ``-<hash>`` past ``MAX_SLUG_CHARS`` (long slugs match by their start only)."""
    slug = _CLAUDE_SLUG_JUNK.sub("-", path)
    if len(slug) <= MAX_SLUG_CHARS:
        return slug
    digest = hashlib.sha256(path.encode("utf-8")).hexdigest()[:8]
    return f"{slug[:MAX_SLUG_CHARS]}-{digest}"


def claude_slug_matches(slug: str, path: str) -> bool:
    """True when a Claude Code project folder name belongs to ``path``."""
    full = _CLAUDE_SLUG_JUNK.sub("-", path)
    if len(full) <= MAX_SLUG_CHARS:
        return slug == full
    return slug.startswith(full[:MAX_SLUG_CHARS]) and len(slug) > MAX_SLUG_CHARS


def gemini_slug(path: str) -> str:
    """Gemini CLI's base slug for a project folder (its base name, lowercased, runs of
    non-``[a-z0-9]`` as one ``-``, trimmed); clashes get ``-1``, ``-2`` … in projects.json."""
    name = Path(path).name.lower()
    return _GEMINI_SLUG_JUNK.sub("-", name).strip("-") or "project"
