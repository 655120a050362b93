"""What a model is asked and what it answers, in terms every protocol adapter shares."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ToolResult:
    """A tool's answer that the agent sent back to the model."""

    name: str
    text: str


@dataclass(frozen=True)
class Exchange:
    """One model request, read by a protocol adapter.

    ``text`` is every piece of text in the request (system prompt, messages, tool results)
    joined with newlines, for "did X reach the model" checks; ``user_texts`` the user turns'
    text in order; ``tool_results`` the tool results in order; ``tool_names`` the tools the
    agent offered.
    """

    protocol: str
    path: str
    body: dict[str, Any]
    system: str
    text: str
    user_texts: tuple[str, ...]
    tool_names: tuple[str, ...]
    tool_results: tuple[ToolResult, ...] = ()

    @property
    def last_user_text(self) -> str:
        """The newest user turn's text ('' when there is none)."""
        return self.user_texts[-1] if self.user_texts else ""

    def has_tool(self, suffix: str) -> str | None:
        """The offered tool whose name is or ends with ``suffix`` (agents prefix MCP tools:
        ``mcp__memtui__memory_add``, ``memtui__memory_add``), else None."""
        for name in self.tool_names:
            if name == suffix or name.endswith(suffix):
                return name
        return None


@dataclass(frozen=True)
class Say:
    """The model answers with text and ends its turn."""

    text: str


@dataclass(frozen=True)
class CallTool:
    """The model calls one tool (``name`` exactly as the agent offered it)."""

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)

    @property
    def arguments_json(self) -> str:
        """The arguments as a JSON string (what OpenAI-style APIs carry)."""
        return json.dumps(self.arguments)


Reply = Say | CallTool
Policy = Callable[[Exchange], Reply]


def say(text: str) -> Policy:
    """A policy that always answers ``text``."""
    return lambda _exchange: Say(text)


def first_call_then(call: Callable[[Exchange], CallTool | None], final: str) -> Policy:
    """A policy that makes ``call``'s tool call until a tool result is in the conversation,
    then answers ``final``. ``call`` may return None (nothing to call: answer at once)."""

    def policy(exchange: Exchange) -> Reply:
        if exchange.tool_results:
            return Say(final)
        made = call(exchange)
        return made if made is not None else Say(final)

    return policy


def add_then_recall(content: str, kind: str, query: str, final: str) -> Policy:
    """A policy that calls memtui's ``memory_add`` (``content``, ``kind``), then
    ``memory_recall`` (``query``), then answers ``final``; without memtui's tools it says
    so."""

    def policy(exchange: Exchange) -> Reply:
        add, recall = exchange.has_tool("memory_add"), exchange.has_tool("memory_recall")
        if add is None or recall is None:
            return Say("memtui's tools were not offered.")
        done = len(exchange.tool_results)
        if done == 0:
            return CallTool(add, {"content": content, "kind": kind})
        if done == 1:
            return CallTool(recall, {"query": query})
        return Say(final)

    return policy
