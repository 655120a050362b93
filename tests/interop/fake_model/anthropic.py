"""The Anthropic Messages API as Claude Code calls it: ``POST /v1/messages`` (``?beta=true``),
streamed as server-sent events or answered whole, and ``/v1/messages/count_tokens``.

A reply that calls a tool the request does not offer (a side request: a title, a summary)
is answered with the final text instead, so one policy can serve every request of a session.
"""

from __future__ import annotations

import itertools
import json
from typing import Any
from urllib.parse import urlsplit

from .exchange import CallTool, Exchange, Say, ToolResult
from .server import RecordedRequest, Response, json_response, sse_response

MESSAGES_PATH = "/v1/messages"
COUNT_TOKENS_PATH = "/v1/messages/count_tokens"
CHARS_PER_TOKEN = 4
"""A rough token count for the usage numbers (Claude Code only shows them)."""
NO_TOOL_TEXT = "Done."

_ids = itertools.count(1)


def _block_text(block: Any) -> list[str]:
    """The text pieces of one content block (text, tool_result, nested content)."""
    if isinstance(block, str):
        return [block]
    if not isinstance(block, dict):
        return []
    kind = block.get("type")
    if kind == "text":
        return [str(block.get("text", ""))]
    if kind == "tool_result":
        return _content_text(block.get("content"))
    if kind == "tool_use":
        return [json.dumps(block.get("input", {}))]
    return []


def _content_text(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    if isinstance(content, list):
        return [text for block in content for text in _block_text(block)]
    return []


def _tool_names_by_id(messages: list[Any]) -> dict[str, str]:
    names: dict[str, str] = {}
    for message in messages:
        content = message.get("content") if isinstance(message, dict) else None
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and block.get("type") == "tool_use":
                names[str(block.get("id"))] = str(block.get("name"))
    return names


def read_messages(path: str, body: dict[str, Any]) -> Exchange:
    """A Messages request body as an Exchange."""
    system = "\n".join(_content_text(body.get("system")))
    messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
    names = _tool_names_by_id(messages)
    user_texts: list[str] = []
    results: list[ToolResult] = []
    pieces = [system]
    for message in messages:
        content = message.get("content")
        pieces.extend(_content_text(content))
        if message.get("role") != "user":
            continue
        plain = [text for block in (content if isinstance(content, list) else [content])
                 if not (isinstance(block, dict) and block.get("type") == "tool_result")
                 for text in _block_text(block)]
        if plain:
            user_texts.append("\n".join(plain))
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                results.append(ToolResult(names.get(str(block.get("tool_use_id")), ""),
                                          "\n".join(_content_text(block.get("content")))))
    tools = tuple(str(tool.get("name")) for tool in body.get("tools") or []
                  if isinstance(tool, dict) and tool.get("name"))
    return Exchange("anthropic", path, body, system, "\n".join(pieces), tuple(user_texts),
                    tools, tuple(results))


def _tokens(text: str) -> int:
    return max(1, len(text) // CHARS_PER_TOKEN)


def _blocks(exchange: Exchange, reply: Say | CallTool) -> tuple[list[dict[str, Any]], str]:
    """(content blocks, stop reason) of the reply."""
    if isinstance(reply, CallTool) and reply.name in exchange.tool_names:
        block = {"type": "tool_use", "id": f"toolu_fake{next(_ids):06d}", "name": reply.name,
                 "input": reply.arguments}
        return [block], "tool_use"
    text = reply.text if isinstance(reply, Say) else NO_TOOL_TEXT
    return [{"type": "text", "text": text}], "end_turn"


def _events(message: dict[str, Any], blocks: list[dict[str, Any]], stop: str,
            output_tokens: int) -> list[tuple[str | None, Any]]:
    events: list[tuple[str | None, Any]] = [
        ("message_start", {"type": "message_start",
                           "message": {**message, "content": [], "stop_reason": None}}),
        ("ping", {"type": "ping"})]
    for index, block in enumerate(blocks):
        if block["type"] == "text":
            start = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block["text"]}
        else:
            start = {**block, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        events += [
            ("content_block_start", {"type": "content_block_start", "index": index,
                                     "content_block": start}),
            ("content_block_delta", {"type": "content_block_delta", "index": index,
                                     "delta": delta}),
            ("content_block_stop", {"type": "content_block_stop", "index": index})]
    events += [
        ("message_delta", {"type": "message_delta",
                           "delta": {"stop_reason": stop, "stop_sequence": None},
                           "usage": {"output_tokens": output_tokens}}),
        ("message_stop", {"type": "message_stop"})]
    return events


class AnthropicAdapter:
    """Answers ``/v1/messages`` (streaming or not) and ``count_tokens``."""

    protocol = "anthropic"

    def handles(self, request: RecordedRequest) -> bool:
        """Messages and token counts."""
        return urlsplit(request.path).path.startswith(MESSAGES_PATH)

    def read(self, request: RecordedRequest) -> Exchange | None:
        """A Messages turn; a token count (or a body that is not JSON) is not one."""
        path = urlsplit(request.path).path
        if path != MESSAGES_PATH or not isinstance(request.body, dict):
            return None
        return read_messages(path, request.body)

    def respond(self, request: RecordedRequest, exchange: Exchange,
                reply: Say | CallTool) -> Response:
        """The reply as a message, streamed when the request asked for it."""
        blocks, stop = _blocks(exchange, reply)
        output = _tokens(json.dumps(blocks))
        message = {"id": f"msg_fake{next(_ids):06d}", "type": "message", "role": "assistant",
                   "model": exchange.body.get("model", "claude-fake"),
                   "stop_sequence": None,
                   "usage": {"input_tokens": _tokens(exchange.text), "output_tokens": output,
                             "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}}
        if exchange.body.get("stream"):
            return sse_response(_events(message, blocks, stop, output))
        return json_response({**message, "content": blocks, "stop_reason": stop})

    def respond_other(self, request: RecordedRequest) -> Response:
        """A token count (a rough one), else an empty JSON object."""
        if urlsplit(request.path).path == COUNT_TOKENS_PATH:
            text = json.dumps(request.body) if request.body is not None else ""
            return json_response({"input_tokens": _tokens(text)})
        return json_response({})
