"""The one client of an OpenAI-compatible model endpoint (``extraction_mode`` = ``model``),
through the ``openai`` package (the ``model`` extra), imported on the first call. A call asks
for one JSON object and never retries (the extractor owns retries); every failure is a
``ModelFailure`` of a kind. Without ``usage`` in an answer, tokens are estimated.
"""

from __future__ import annotations

import functools
import ipaddress
import json
import os
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from memtui.engine.validation import redact

CALL_TIMEOUT_S = 180.0
"""Longest wait for one answer (a small local model on a CPU reads a full request and writes
the longest answer in about a minute or two)."""
PROBE_TIMEOUT_S = 3.0
"""Longest wait when the Settings pane or ``memtui settings`` asks if the endpoint answers."""
MAX_ANSWER_TOKENS = 1_000
CHARS_PER_TOKEN = 4
NO_KEY = "not-needed"
"""The key sent when no key variable is named (local servers take any)."""
ERROR_WORDS_CHARS = 200
CLIENTS_KEPT = 4
"""Endpoint clients kept open (each holds a connection pool)."""


class ModelFailure(Exception):
    """A model call that gave no usable answer: ``kind`` (``config``, ``timeout``, ``http``
    ...), ``words`` for the log, and the tokens the endpoint still counted."""

    def __init__(self, kind: str, words: str, tokens_in: int = 0, tokens_out: int = 0) -> None:
        super().__init__(words)
        self.kind, self.words = kind, redact(words)[:ERROR_WORDS_CHARS]
        self.tokens_in, self.tokens_out = tokens_in, tokens_out


@dataclass(frozen=True)
class Endpoint:
    """Where and what to ask: base URL, model, and the name of the key's variable."""

    base_url: str
    model: str
    api_key_env: str | None = None

    @classmethod
    def from_settings(cls, settings: dict[str, Any], model_key: str = "extract_model"
                      ) -> Endpoint:
        """The endpoint the settings name; ``ModelFailure`` (config) when one is missing."""
        model = settings.get(model_key) or settings.get("extract_model")
        if not settings.get("model_base_url"):
            raise ModelFailure("config", "no model_base_url is set")
        if not model:
            raise ModelFailure("config", "no extract_model is set")
        return cls(settings["model_base_url"], model, settings.get("model_api_key_env"))

    def api_key(self) -> str:
        """The key from the named variable, never sent over plain http to another host."""
        if not self.api_key_env:
            return NO_KEY
        if not _key_may_go_to(self.base_url):
            raise ModelFailure("config", "the key is not sent over plain http to another "
                                         "host: use https (or a loopback address)")
        key = os.environ.get(self.api_key_env)
        if not key:
            raise ModelFailure("config", f"the environment variable {self.api_key_env} "
                                         "(model_api_key_env) is not set")
        return key


def _key_may_go_to(base_url: str) -> bool:
    """Whether a key may be sent to ``base_url``: https, or http to a loopback host."""
    parts = urlsplit(base_url)
    host = parts.hostname or ""
    if parts.scheme != "http" or host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True)
class ModelAnswer:
    """A parsed JSON answer and the tokens it cost."""

    data: Any
    tokens_in: int
    tokens_out: int


def estimate_tokens(system: str, user: str) -> int:
    """The most a call sending ``system`` and ``user`` is expected to cost, a full answer in."""
    return (len(system) + len(user)) // CHARS_PER_TOKEN + MAX_ANSWER_TOKENS


@functools.lru_cache(maxsize=CLIENTS_KEPT)
def _cached_client(base_url: str, api_key: str, timeout: float) -> Any:
    """One client (its connection pool) per endpoint, key and timeout."""
    import openai

    return openai.OpenAI(base_url=base_url, api_key=api_key, timeout=timeout, max_retries=0)


def _client(endpoint: Endpoint, timeout: float) -> Any:
    try:
        import openai  # noqa: F401 - checked here so a missing package is a config failure
    except ImportError:
        raise ModelFailure("config", "the openai package is missing: pip install "
                                     "'memtui[model]'") from None
    return _cached_client(endpoint.base_url, endpoint.api_key(), timeout)


def _failure(error: Exception) -> ModelFailure:
    import openai

    if isinstance(error, openai.APITimeoutError):
        return ModelFailure("timeout", "the endpoint did not answer in time")
    if isinstance(error, openai.APIConnectionError):
        return ModelFailure("connection", "the endpoint could not be reached")
    if isinstance(error, openai.APIStatusError):
        return ModelFailure("http", f"the endpoint answered HTTP {error.status_code}")
    return ModelFailure("http", f"the endpoint's answer was not understood "
                                f"({type(error).__name__})")


def complete_json(endpoint: Endpoint, system: str, user: str,
                  timeout: float | None = None) -> ModelAnswer:
    """Ask for one JSON object (within ``timeout``); ``ModelFailure`` when there is none."""
    import openai

    client = _client(endpoint, timeout or CALL_TIMEOUT_S)
    try:
        reply = client.chat.completions.create(
            model=endpoint.model, temperature=0, max_tokens=MAX_ANSWER_TOKENS,
            response_format={"type": "json_object"},
            messages=[{"role": "system", "content": system}, {"role": "user", "content": user}])
    except openai.OpenAIError as error:
        raise _failure(error) from None
    choices = getattr(reply, "choices", None) or []
    message = choices[0].message if choices else None
    text = (getattr(message, "content", None) or "") if message else ""
    usage = getattr(reply, "usage", None)
    tokens_in = int(getattr(usage, "prompt_tokens", 0) or 0) or \
        (len(system) + len(user)) // CHARS_PER_TOKEN
    tokens_out = int(getattr(usage, "completion_tokens", 0) or 0) or len(text) // CHARS_PER_TOKEN
    finish = choices[0].finish_reason if choices else None
    if (message is not None and getattr(message, "refusal", None)) or finish == "content_filter":
        raise ModelFailure("refusal", "the model declined to answer", tokens_in, tokens_out)
    if finish == "length":
        raise ModelFailure("cut_off", "the answer hit the token limit", tokens_in, tokens_out)
    try:
        data = json.loads(text)
    except ValueError:
        raise ModelFailure("invalid_json", "the answer was not JSON", tokens_in,
                           tokens_out) from None
    return ModelAnswer(data, tokens_in, tokens_out)


def probe(settings: dict[str, Any], timeout: float = PROBE_TIMEOUT_S) -> str:
    """Words saying whether the endpoint the settings name answers (its model list)."""
    if not settings.get("model_base_url"):
        return "no endpoint set (model_base_url)"
    try:
        endpoint = Endpoint(settings["model_base_url"], settings.get("extract_model") or "",
                            settings.get("model_api_key_env"))
        client = _client(endpoint, timeout)
        import openai

        try:
            names = [model.id for model in client.models.list()]
        except openai.OpenAIError as error:
            raise _failure(error) from None
    except ModelFailure as failure:
        return f"does not answer: {failure.words}"
    if endpoint.model and names and endpoint.model not in names:
        return f"answers, but has no model {endpoint.model!r} ({len(names)} others)"
    return f"answers ({len(names)} model{'s' if len(names) != 1 else ''})"
