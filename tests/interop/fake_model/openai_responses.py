"""The OpenAI Responses API as Codex CLI calls it: ``POST /v1/responses`` streamed as SSE.

Codex sends ``instructions`` (its system prompt), ``input`` (a list of items: ``message``
with ``input_text``/``output_text`` parts, ``function_call``, ``function_call_output``,
``reasoning``...) and ``tools`` (``function`` tools; MCP tools may come grouped in a
``namespace`` tool). It reads back a stream of ``response.created``,
``response.output_item.added``/``.done`` (a ``message`` or ``function_call`` item),
``response.output_text.delta`` and ``response.completed`` with the usage. Besides turns it
asks ``GET /v1/models`` (answered with one model) and may try a websocket upgrade first
(answered 404, so it falls back to HTTP).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from typing import Any

from .exchange import CallTool, Exchange, Reply, Say, ToolResult
from .server import RecordedRequest, Response, json_response, sse_response

RESPONSES_PATH = "/v1/responses"
MODELS_PATH = "/v1/models"
FAKE_MODEL = "fake-gpt"
"""The model slug the fake server lists and Codex is configured to ask for."""
FAKE_USAGE = {"input_tokens": 100, "input_tokens_details": {"cached_tokens": 0},
              "output_tokens": 20, "output_tokens_details": {"reasoning_tokens": 0},
              "total_tokens": 120}
"""The usage every response reports (Codex records it; nothing depends on the numbers)."""

_ids = itertools.count(1)


def _path(request: RecordedRequest) -> str:
    return request.path.split("?", 1)[0].rstrip("/")


def _part_text(part: Any) -> str:
    if isinstance(part, str):
        return part
    if isinstance(part, dict):
        text = part.get("text")
        if isinstance(text, str):
            return text
    return ""


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(filter(None, (_part_text(part) for part in content)))
    return ""


def _tool_names(tools: Any) -> list[str]:
    names: list[str] = []
    for tool in tools if isinstance(tools, list) else []:
        if not isinstance(tool, dict):
            continue
        name = tool.get("name")
        if tool.get("type") == "namespace" and isinstance(tool.get("tools"), list):
            # a namespace tool groups tools: the model calls them by "<namespace>__<tool>"
            for inner in tool["tools"]:
                if isinstance(inner, dict) and isinstance(inner.get("name"), str):
                    names.append(f"{name}{inner['name']}" if str(name).endswith("__")
                                 else f"{name}__{inner['name']}")
            continue
        if isinstance(name, str):
            names.append(name)
    return names


def read_responses_body(body: dict[str, Any], path: str = RESPONSES_PATH) -> Exchange:
    """A Responses API request body as an Exchange."""
    system = body.get("instructions") if isinstance(body.get("instructions"), str) else ""
    texts: list[str] = [system] if system else []
    user_texts: list[str] = []
    results: list[ToolResult] = []
    call_names: dict[str, str] = {}
    items = body.get("input")
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict):
            continue
        kind = item.get("type", "message")
        if kind == "message":
            text = _content_text(item.get("content"))
            texts.append(text)
            if item.get("role") == "user":
                user_texts.append(text)
        elif kind in ("function_call", "custom_tool_call"):
            call_names[str(item.get("call_id"))] = str(item.get("name", ""))
            texts.append(str(item.get("arguments") or item.get("input") or ""))
        elif kind in ("function_call_output", "custom_tool_call_output"):
            output = item.get("output")
            text = _content_text(output) if not isinstance(output, dict) else \
                _content_text(output.get("content", output.get("body", "")))
            texts.append(text)
            results.append(ToolResult(call_names.get(str(item.get("call_id")), ""), text))
    return Exchange(protocol="openai_responses", path=path, body=body, system=system,
                    text="\n".join(texts), user_texts=tuple(user_texts),
                    tool_names=tuple(_tool_names(body.get("tools"))),
                    tool_results=tuple(results))


def _message_item(item_id: str, text: str) -> dict[str, Any]:
    return {"type": "message", "id": item_id, "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}]}


def _namespaces(tools: Any) -> list[str]:
    """The names of the request's ``namespace`` tools."""
    return [str(tool["name"]) for tool in tools if isinstance(tool, dict)
            and tool.get("type") == "namespace" and isinstance(tool.get("name"), str)] \
        if isinstance(tools, list) else []


def _call_item(item_id: str, call: CallTool, namespaces: Sequence[str] = ()
               ) -> dict[str, Any]:
    """A ``function_call`` item; a tool of a namespace is called by its own name with the
    ``namespace`` field (as the Responses API returns calls of namespaced tools)."""
    item: dict[str, Any] = {"type": "function_call", "id": item_id, "status": "completed",
                            "name": call.name, "arguments": call.arguments_json,
                            "call_id": f"call_{item_id}"}
    for namespace in namespaces:
        prefix = namespace if namespace.endswith("__") else f"{namespace}__"
        if call.name.startswith(prefix):
            item.update(name=call.name[len(prefix):], namespace=namespace)
            break
    return item


def response_events(reply: Reply, model: str = FAKE_MODEL,
                    namespaces: list[str] | None = None) -> Iterator[tuple[str, Any]]:
    """The SSE events of one streamed response carrying ``reply`` (``namespaces``: the
    request's namespace tools, which a call of one of their tools names)."""
    number = next(_ids)
    response_id = f"resp_fake_{number}"
    item_id = f"item_fake_{number}"
    shell = {"id": response_id, "object": "response", "model": model, "status": "in_progress",
             "output": []}
    yield "response.created", {"type": "response.created", "response": shell}
    if isinstance(reply, CallTool):
        item = _call_item(item_id, reply, namespaces or [])
        yield "response.output_item.added", {"type": "response.output_item.added",
                                             "output_index": 0,
                                             "item": {**item, "status": "in_progress"}}
    else:
        item = _message_item(item_id, reply.text)
        yield "response.output_item.added", {
            "type": "response.output_item.added", "output_index": 0,
            "item": {**item, "status": "in_progress", "content": []}}
        yield "response.output_text.delta", {"type": "response.output_text.delta",
                                             "item_id": item_id, "output_index": 0,
                                             "content_index": 0, "delta": reply.text}
    yield "response.output_item.done", {"type": "response.output_item.done",
                                        "output_index": 0, "item": item}
    done = {**shell, "status": "completed", "output": [item], "usage": FAKE_USAGE}
    yield "response.completed", {"type": "response.completed", "response": done}


def models_listing(model: str = FAKE_MODEL) -> dict[str, Any]:
    """``GET /v1/models``: the OpenAI shape (``data``) and Codex's own (``models``)."""
    return {"object": "list", "data": [{"id": model, "object": "model", "owned_by": "fake"}],
            "models": []}


class OpenAIResponsesAdapter:
    """Answers ``/v1/responses`` turns and the model listing."""

    protocol = "openai_responses"

    def __init__(self, model: str = FAKE_MODEL) -> None:
        self.model = model

    def handles(self, request: RecordedRequest) -> bool:
        """Requests under ``/v1/``."""
        return _path(request).startswith("/v1/") or _path(request) == "/v1"

    def read(self, request: RecordedRequest) -> Exchange | None:
        """A POST to ``/v1/responses`` with a JSON body is a turn; anything else is not."""
        if (request.method == "POST" and _path(request) == RESPONSES_PATH
                and isinstance(request.body, dict)
                and request.headers.get("upgrade", "").lower() != "websocket"):
            return read_responses_body(request.body, request.path)
        return None

    def respond(self, request: RecordedRequest, exchange: Exchange,
                reply: Say | Any) -> Response:
        """A streamed response (Codex always asks ``stream: true``) or one JSON object."""
        if not isinstance(reply, (Say, CallTool)):
            raise TypeError(f"not a reply: {reply!r}")
        namespaces = _namespaces(exchange.body.get("tools"))
        events = list(response_events(reply, self.model, namespaces))
        if exchange.body.get("stream") is False:
            return json_response(events[-1][1]["response"])
        return sse_response(events)

    def respond_other(self, request: RecordedRequest) -> Response:
        """The model list; 404 for the rest (a websocket upgrade too: Codex goes HTTP)."""
        if request.method == "GET" and _path(request) == MODELS_PATH:
            return json_response(models_listing(self.model))
        return json_response({"error": {"message": f"fake model: no {request.method} "
                                                   f"{request.path}"}}, status=404)
