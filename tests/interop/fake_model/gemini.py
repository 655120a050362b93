"""Gemini's generateContent API, as Gemini CLI calls it.

Gemini CLI (through ``@google/genai``) posts to ``{base}/v1beta/models/<model>:<method>``:
``streamGenerateContent?alt=sse`` for a turn (server-sent events, one JSON
``GenerateContentResponse`` per ``data:`` line), ``generateContent`` for its own side
requests (routing, next-speaker checks, summaries: the same body, one JSON answer) and
``countTokens``. Its utility requests (the model router's complexity score, the next-speaker
check) ask for JSON (``responseMimeType: application/json`` with ``responseJsonSchema``):
those are not turns; they get the smallest answer the schema allows (the first ``enum``
value: ``next_speaker`` "user"). A turn's body has ``contents`` (``role`` user/model, ``parts`` of ``text``,
``functionCall`` and ``functionResponse``), ``systemInstruction`` and ``tools`` (one or more
``functionDeclarations`` lists).
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlsplit

from .exchange import CallTool, Exchange, Say, ToolResult
from .server import RecordedRequest, Response, json_response, sse_response

PROTOCOL = "gemini"
MODEL_PATH = "/v1beta/models/"
TURN_METHODS = ("streamGenerateContent", "generateContent")
COUNT_METHOD = "countTokens"
FAKE_MODEL_VERSION = "fake-gemini"
JSON_MIME = "application/json"
UTILITY_TEXT = "fake"
TOKENS_PER_CHAR = 4
"""A rough count for ``countTokens`` and ``usageMetadata`` (characters per token)."""


def _method(path: str) -> str:
    """``streamGenerateContent`` of ``/v1beta/models/gemini-x:streamGenerateContent?alt=sse``."""
    tail = urlsplit(path).path.rsplit("/", 1)[-1]
    return tail.partition(":")[2]


def _texts(parts: Any) -> list[str]:
    return [part["text"] for part in parts or () if isinstance(part, dict)
            and isinstance(part.get("text"), str)]


def _result_text(response: Any) -> str:
    """A ``functionResponse.response`` as text (Gemini CLI wraps a tool's answer in
    ``{"output": ...}`` or ``{"error": ...}``; MCP results may be nested content)."""
    if isinstance(response, dict) and isinstance(response.get("output"), str):
        return str(response["output"])
    return json.dumps(response, ensure_ascii=False)


def _json_schema(body: dict[str, Any]) -> Any:
    """The ``responseJsonSchema`` of a utility request that asks for JSON, else None."""
    config = body.get("generationConfig")
    if not isinstance(config, dict) or config.get("responseMimeType") != JSON_MIME:
        return None
    return config.get("responseJsonSchema") or config.get("responseSchema") or {}


def smallest_value(schema: Any) -> Any:
    """The smallest value a (Gemini-style or JSON) schema allows: every required property,
    the first enum value, 1 for numbers, "" / false / [] otherwise."""
    if not isinstance(schema, dict):
        return {}
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return schema["enum"][0]
    kind = str(schema.get("type", "object")).lower()
    if kind == "object":
        properties = schema.get("properties") or {}
        return {name: smallest_value(properties.get(name)) for name in
                schema.get("required") or properties}
    if kind in ("integer", "number"):
        return 1
    if kind == "boolean":
        return False
    if kind == "array":
        return []
    return UTILITY_TEXT


def _tokens(text: str) -> int:
    return max(1, len(text) // TOKENS_PER_CHAR)


class GeminiAdapter:
    """The fake ``generativelanguage`` API for Gemini CLI."""

    protocol = PROTOCOL

    def handles(self, request: RecordedRequest) -> bool:
        """Requests under ``/v1beta/models/``."""
        return urlsplit(request.path).path.startswith(MODEL_PATH)

    def read(self, request: RecordedRequest) -> Exchange | None:
        """A turn (generate/stream) as an Exchange; None for countTokens and the rest."""
        body = request.body if isinstance(request.body, dict) else {}
        if _method(request.path) not in TURN_METHODS or "contents" not in body:
            return None
        if _json_schema(body) is not None:
            return None
        system_parts = (body.get("systemInstruction") or {}).get("parts") \
            if isinstance(body.get("systemInstruction"), dict) else None
        system = "\n".join(_texts(system_parts))
        texts = [system] if system else []
        user_texts: list[str] = []
        results: list[ToolResult] = []
        for content in body.get("contents") or ():
            if not isinstance(content, dict):
                continue
            parts = content.get("parts") or ()
            texts.extend(_texts(parts))
            if content.get("role") == "user":
                said = "\n".join(_texts(parts))
                if said:
                    user_texts.append(said)
            for part in parts:
                answer = part.get("functionResponse") if isinstance(part, dict) else None
                if isinstance(answer, dict):
                    text = _result_text(answer.get("response"))
                    results.append(ToolResult(str(answer.get("name", "")), text))
                    texts.append(text)
        names: list[str] = []
        for tool in body.get("tools") or ():
            for declaration in (tool or {}).get("functionDeclarations") or ():
                if isinstance(declaration, dict) and isinstance(declaration.get("name"), str):
                    names.append(declaration["name"])
        return Exchange(PROTOCOL, request.path, body, system, "\n".join(texts),
                        tuple(user_texts), tuple(names), tuple(results))

    def respond(self, request: RecordedRequest, exchange: Exchange, reply: Say | Any) -> Response:
        """One candidate with the reply (text, or one ``functionCall``), streamed as a single
        SSE event for ``streamGenerateContent``."""
        if isinstance(reply, CallTool):
            part: dict[str, Any] = {"functionCall": {"name": reply.name, "args": reply.arguments}}
            said = json.dumps(reply.arguments)
        else:
            part = {"text": reply.text}
            said = reply.text
        return self._candidate(request, part, _tokens(exchange.text), _tokens(said))

    def _candidate(self, request: RecordedRequest, part: dict[str, Any], prompt: int,
                   answer: int) -> Response:
        chunk = {
            "candidates": [{"content": {"role": "model", "parts": [part]},
                            "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": prompt, "candidatesTokenCount": answer,
                              "totalTokenCount": prompt + answer},
            "modelVersion": FAKE_MODEL_VERSION,
        }
        if _method(request.path) == "streamGenerateContent":
            return sse_response([(None, chunk)])
        return json_response(chunk)

    def respond_other(self, request: RecordedRequest) -> Response:
        """A utility request's JSON; ``countTokens``: a rough count; else an empty object."""
        body = request.body if isinstance(request.body, dict) else {}
        schema = _json_schema(body)
        if schema is not None and _method(request.path) in TURN_METHODS:
            text = json.dumps(smallest_value(schema))
            return self._candidate(request, {"text": text}, _tokens(request.raw.decode(
                "utf-8", "replace")), _tokens(text))
        if _method(request.path) == COUNT_METHOD:
            return json_response({"totalTokens": _tokens(request.raw.decode("utf-8", "replace"))})
        return json_response({})
