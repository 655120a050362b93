"""Auto-memory settings (docs/auto-memory.md): per user, read and written by that user alone,
everything off by default. A change is checked whole before anything is written; the model
endpoint's key is never stored, only the name of the variable holding it.
"""

from __future__ import annotations

import difflib
import logging
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from memtui.engine.base import EngineArea
from memtui.engine.validation import check_text, clean_text, echo, redact
from memtui.errors import InvalidInput, StoreError

if TYPE_CHECKING:
    from memtui.store.backend import StoreBackend

log = logging.getLogger(__name__)

SWITCH = "switch"
"""0 or 1 (booleans accepted and stored as 0/1)."""
PERCENT = "percent"
COUNT = "count"
MODEL = "model"
"""A model name (one line of text) or null; stored only."""
CHOICE = "choice"
GATE_SETTING = "claude_memory_gate"
GATE_MODES = ("review", "redact", "ask", "off")
"""What Claude Code's write gate does with a write into its memory (``memtui hooks install
claude-code --gate``): hold it in the inbox, let it through redacted, leave it to Claude
Code's own permission prompt, or nothing."""
MODE_SETTING = "extraction_mode"
DETERMINISTIC, MODEL_MODE = "deterministic", "model"
EXTRACTION_MODES = (DETERMINISTIC, MODEL_MODE)
"""How finished tasks become memories: the first goal line and result start, or a model."""
CHOICES: dict[str, tuple[str, ...]] = {GATE_SETTING: GATE_MODES, MODE_SETTING: EXTRACTION_MODES}
URL = "url"
"""An http(s) URL without a user or password, or null."""
ENV_NAME = "env_name"
"""The name of an environment variable (letters, digits, underscores), or null."""
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,127}$")

MAX_COUNT = 10**9
MAX_MODEL_NAME_BYTES = 200


@dataclass(frozen=True)
class SettingSpec:
    """One setting: its kind, default and what it means (shown by the app and the CLI)."""

    name: str
    kind: str
    default: Any
    meaning: str


_TOKEN_CAP = ("model tokens (in + out) {} may spend; a call that could pass it is not made (0 "
              "stops every model call)")
SETTING_SPECS: tuple[SettingSpec, ...] = (
    SettingSpec("generate_memories", SWITCH, 0, "finished tasks may be turned into memories"),
    SettingSpec("use_memories", SWITCH, 0, "new tasks get memories injected into their first turn"),
    SettingSpec("review_new_memories", SWITCH, 0,
                "memories from agents (extractor, import, service, MCP) wait in the inbox"),
    SettingSpec("disable_on_external_context", SWITCH, 1,
                "skip tasks that took in outside context"),
    SettingSpec("min_rate_limit_remaining_percent", PERCENT, 20,
                "skip extraction when less of the month's quota is left"),
    SettingSpec("idle_seconds", COUNT, 900, "a finished task must have been idle this long"),
    SettingSpec("min_duration_seconds", COUNT, 30, "skip very short tasks"),
    SettingSpec("min_result_chars", COUNT, 200, "skip tasks with a very short result"),
    SettingSpec(MODE_SETTING, CHOICE, DETERMINISTIC,
                "how tasks become memories: " + " or ".join(EXTRACTION_MODES)),
    SettingSpec("model_base_url", URL, None,
                "OpenAI-compatible endpoint the model mode calls (e.g. http://127.0.0.1:8080/v1)"),
    SettingSpec("model_api_key_env", ENV_NAME, None,
                "name of the environment variable holding the endpoint's key (never the key)"),
    SettingSpec("extract_model", MODEL, None, "the model that extracts memories (model mode)"),
    SettingSpec("consolidation_model", MODEL, None,
                "the model that proposes supersedes (default: extract_model)"),
    SettingSpec("model_daily_token_cap", COUNT, 200_000, _TOKEN_CAP.format("a day")),
    SettingSpec("model_monthly_token_cap", COUNT, 2_000_000, _TOKEN_CAP.format("a month")),
    SettingSpec("agents_may_forget", SWITCH, 0,
                "agents connected through MCP may forget (delete) memories"),
    SettingSpec("max_unused_days", COUNT, 90,
                "a memory unused this many days shows as stale for review (0: never)"),
    SettingSpec("skip_stale_memories", SWITCH, 0,
                "leave memories whose cited files or symbols are gone out of injection"),
    SettingSpec(GATE_SETTING, CHOICE, GATE_MODES[0],
                "Claude Code's memory writes, once the gate is installed: "
                + ", ".join(GATE_MODES)),
)
SPECS: dict[str, SettingSpec] = {spec.name: spec for spec in SETTING_SPECS}
DEFAULTS: dict[str, Any] = {spec.name: spec.default for spec in SETTING_SPECS}

_CLI_TRUE = frozenset({"1", "on", "true"})
_CLI_FALSE = frozenset({"0", "off", "false"})
_CLI_NULL = frozenset({"null", "none", ""})
_WHOLE_NUMBER = re.compile(r"^[+-]?[0-9]{1,12}$")


def unknown_setting(name: str) -> InvalidInput:
    """The error for a setting name that is not one: the names closest to it, if any."""
    close = difflib.get_close_matches(name, SPECS, n=3)
    hint = f"did you mean {' or '.join(close)}? " if close else ""
    return InvalidInput(f"unknown setting {echo(name)}: {hint}`memtui settings show` lists "
                        f"all {len(SPECS)}")


def check_setting(name: object, value: object) -> Any:
    """A checked value for one setting (switches normalised to 0/1); InvalidInput otherwise."""
    spec = SPECS.get(name) if isinstance(name, str) else None
    if spec is None:
        raise unknown_setting(str(name))
    if spec.kind == SWITCH:
        if isinstance(value, int) and value in (0, 1):  # a bool is an int too
            return int(value)
        raise InvalidInput(f"{spec.name} must be 0 or 1 (on/off), "
                           f"got {echo(repr(value), quote=False)}")
    if spec.kind in (PERCENT, COUNT):
        if not isinstance(value, int) or isinstance(value, bool):
            raise InvalidInput(f"{spec.name} must be a whole number, "
                               f"got {echo(repr(value), quote=False)}")
        top = 100 if spec.kind == PERCENT else MAX_COUNT
        if value < 0:
            raise InvalidInput(f"{spec.name} must not be negative, got {value}")
        if value > top:
            what = "a percentage from 0 to 100" if spec.kind == PERCENT else f"at most {top}"
            raise InvalidInput(f"{spec.name} must be {what}, got {value}")
        return value
    if spec.kind == CHOICE:
        if value not in CHOICES[spec.name]:
            raise InvalidInput(f"{spec.name} must be one of {', '.join(CHOICES[spec.name])}, "
                               f"got {echo(repr(value), quote=False)}")
        return value
    if value is None:
        return None
    if not isinstance(value, str) or "\n" in value or "\r" in value:
        raise InvalidInput(f"{spec.name} must be one line of text or null")
    text = check_text(value.strip(), spec.name, max_bytes=MAX_MODEL_NAME_BYTES)
    if spec.kind == ENV_NAME and (not _ENV_NAME.match(text) or redact(text) != text):
        raise InvalidInput(f"{spec.name} is the NAME of an environment variable (letters, "
                           f"digits, _), not its value, got {echo(text, 40)}")
    if spec.kind == URL:
        parts = urlsplit(text)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise InvalidInput(f"{spec.name} must be an http:// or https:// URL, got "
                               f"{echo(text)}")
        if parts.username or parts.password:
            raise InvalidInput(f"{spec.name} must not hold a user or password: name the "
                               "environment variable of the key in model_api_key_env")
    return text


def clean_setting(name: object, value: object) -> Any:
    """A value for one setting as it is stored (``check_setting``, text redacted)."""
    checked = check_setting(name, value)
    if isinstance(checked, str):
        return clean_text(checked, str(name), max_bytes=MAX_MODEL_NAME_BYTES, strip=True,
                          one_line=True)
    return checked


def check_changes(changes: Mapping[str, Any]) -> dict[str, Any]:
    """Check a whole change set; the first bad key or value refuses all of it."""
    if not isinstance(changes, Mapping):
        raise InvalidInput("settings must be an object of name: value")
    if not changes:
        raise InvalidInput(f"no setting given: use one of {', '.join(SPECS)}")
    return {name: clean_setting(name, value) for name, value in changes.items()}


def _parse_cli_value(spec: SettingSpec, raw: str) -> Any:
    text = raw.strip()
    lowered = text.lower()
    if spec.kind == SWITCH:
        if lowered in _CLI_TRUE:
            return 1
        if lowered in _CLI_FALSE:
            return 0
        raise InvalidInput(f"{spec.name} takes 0/1, on/off or true/false, got {echo(raw)}")
    if spec.kind in (PERCENT, COUNT):
        if not _WHOLE_NUMBER.match(text):
            raise InvalidInput(f"{spec.name} must be a whole number, got {echo(raw)}")
        return int(text)
    if spec.kind == CHOICE:
        return lowered
    return None if lowered in _CLI_NULL else text


def parse_cli_pairs(pairs: Iterable[str]) -> dict[str, Any]:
    """``["KEY=VALUE", ...]`` from the command line as typed values, checked whole."""
    parsed: dict[str, Any] = {}
    for pair in pairs:
        name, sep, raw = pair.partition("=")
        name = name.strip()
        if not sep or not name:
            raise InvalidInput(f"settings are given as KEY=VALUE, got {echo(pair)}")
        spec = SPECS.get(name)
        if spec is None:
            raise unknown_setting(name)
        if name in parsed:
            raise InvalidInput(f"{name} is given twice")
        parsed[name] = _parse_cli_value(spec, raw)
    return check_changes(parsed)


def _explicit_settings(store: StoreBackend, user_id: str) -> dict[str, Any]:
    """The settings the user set (bad or unreadable ones left out), without defaults: a later
    version's new defaults still reach keys the user never set."""
    try:
        stored = store.settings.get(user_id) or {}
    except StoreError as error:
        log.warning("settings of %s unreadable, using defaults: %s", user_id, error)
        return {}
    explicit: dict[str, Any] = {}
    for name, value in stored.items():
        if name not in SPECS:
            continue
        try:
            explicit[name] = check_setting(name, value)
        except InvalidInput as error:
            log.warning("setting %s of %s ignored: %s", name, user_id, error.message)
    return explicit


def load_settings(store: StoreBackend, user_id: str) -> dict[str, Any]:
    """The user's effective settings: valid stored values over the defaults."""
    return DEFAULTS | _explicit_settings(store, user_id)


class SettingsApi(EngineArea):
    """The acting user's auto-memory settings."""

    @staticmethod
    def specs() -> tuple[SettingSpec, ...]:
        """Every setting's kind, default and meaning, in display order."""
        return SETTING_SPECS

    def get(self) -> dict[str, Any]:
        """The actor's effective settings (every key, defaults filled in)."""
        return load_settings(self._store, self.actor)

    def endpoint_status(self) -> str | None:
        """Whether the model endpoint answers, in words (None without one); off the UI thread."""
        settings = self.get()
        if not settings["model_base_url"]:
            return None
        from memtui.engine.model_client import probe

        return probe(settings)

    def set_many(self, changes: Mapping[str, Any]) -> dict[str, Any]:
        """Change some settings; all or nothing."""
        checked = check_changes(changes)
        actor = self.actor
        with self._store.transaction():
            self._store.identity.ensure_user(actor)
            explicit = _explicit_settings(self._store, actor)
            explicit.update(checked)
            self._store.settings.save(actor, explicit, self._store.now())
            self._append_audit("settings_updated", actor, keys=sorted(checked))
        return DEFAULTS | explicit

    def update(self, **changes: Any) -> dict[str, Any]:
        """Keyword form of ``set_many``."""
        return self.set_many(changes)

    @staticmethod
    def parse_typed(name: str, raw: str) -> Any:
        """The checked value of one setting from the text a person typed."""
        spec = SPECS.get(name)
        if spec is None:
            raise unknown_setting(name)
        return clean_setting(name, _parse_cli_value(spec, raw))
