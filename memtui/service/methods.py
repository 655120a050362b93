"""The service's methods: a table of name -> parameter types -> engine call. Only JSON shapes
are checked here (an unknown parameter is refused, so nothing in params can name the acting
user); every value rule is the engine's."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from memtui import __version__
from memtui.engine.api import Engine
from memtui.engine.recall import DEFAULT_RECALL_LIMIT
from memtui.engine.tasks import DEFAULT_TASK_LIST_LIMIT
from memtui.engine.validation import (
    ARRAY,
    BOOLEAN,
    INTEGER,
    NULL,
    NUMBER,
    OBJECT,
    STRING,
    echo,
    json_type,
)
from memtui.jsonable import JsonMixin
from memtui.service.protocol import INVALID_PARAMS, UNKNOWN_METHOD, ProtocolError

SOURCE = "service"
"""The source of the tasks and memories written through the service (memories are reviewed
when review is on)."""
FOLLOWUP_FIELDS = {"from_task": STRING, "message": STRING}
"""Each item of ``task.complete``'s ``followups``."""


def _matches(value: Any, types: tuple[str, ...]) -> bool:
    kind = json_type(value)
    return kind in types or (kind == INTEGER and NUMBER in types)


@dataclass(frozen=True)
class Param:
    """One parameter: its accepted JSON types and whether it must be given."""

    types: tuple[str, ...]
    required: bool = False


@dataclass
class ServiceContext:
    """What a method runs with: the engine (acting user fixed), the store's path and the
    background worker's state."""

    engine: Engine
    store_path: str
    worker_state: Callable[[], dict[str, Any]] = field(default=lambda: {"enabled": False})


Handler = Callable[[ServiceContext, dict[str, Any]], Any]


@dataclass(frozen=True)
class Method:
    """A method: its name, its handler and its parameters (docs/service.md describes each)."""

    name: str
    handler: Handler
    params: dict[str, Param]


def check_params(method: Method, params: dict[str, Any]) -> None:
    """Refuse unknown parameters, missing required ones and wrong JSON types
    (``invalid_params``)."""
    for name in params:
        if name not in method.params:
            raise ProtocolError(INVALID_PARAMS, f"{method.name}: unknown parameter {echo(name, 40)}"
                                f" (accepted: {', '.join(method.params) or 'none'})")
    for name, spec in method.params.items():
        if name not in params:
            if spec.required:
                raise ProtocolError(INVALID_PARAMS, f"{method.name}: missing parameter "
                                    f"{name!r}")
        elif not _matches(params[name], spec.types):
            raise ProtocolError(INVALID_PARAMS, f"{method.name}: {name} must be "
                                f"{' or '.join(spec.types)}, not {json_type(params[name])}")


def _opt(params: dict[str, Any], name: str, default: Any = None) -> Any:
    value = params.get(name)
    return default if value is None else value


def _health(ctx: ServiceContext, params: dict[str, Any]) -> dict[str, Any]:
    return {"version": __version__, "store": ctx.store_path,
            "schema_version": ctx.engine.store.schema_version(), "user": ctx.engine.actor,
            "worker": ctx.worker_state()}


def _followups(value: Any) -> list[tuple[str, str]]:
    out = []
    for index, item in enumerate(value):
        if not isinstance(item, dict) or set(item) != set(FOLLOWUP_FIELDS) or not all(
                _matches(item[key], (kind,)) for key, kind in FOLLOWUP_FIELDS.items()):
            raise ProtocolError(INVALID_PARAMS, f"task.complete: followups[{index}] must be "
                                '{"from_task": string, "message": string}')
        out.append((item["from_task"], item["message"]))
    return out


def _task_complete(ctx: ServiceContext, params: dict[str, Any]) -> dict[str, Any]:
    followups = _followups(params.get("followups") or [])
    task = ctx.engine.tasks.add_task(
        params["project"], params.get("goal"), params.get("prompt"), params["result"],
        params["started_at"], params["finished_at"], status="completed",
        cost_usd=_opt(params, "cost_usd", 0), parent=params.get("parent"),
        continuation=bool(params.get("continuation")),
        external_context=bool(params.get("external_context")),
        source=SOURCE, source_ref=params.get("task_ref"), followups=followups)
    return task.to_json()


def _listed(items: list[Any]) -> dict[str, Any]:
    """A list reply: ``{"items": [...], "count": n}``."""
    return {"items": [item.to_json() for item in items], "count": len(items)}


def _json_without(value: JsonMixin, *names: str) -> dict[str, Any]:
    """``value.to_json()`` without the named fields."""
    return {key: item for key, item in value.to_json().items() if key not in names}


_STR, _OPT_STR = Param((STRING,), True), Param((STRING, NULL))
_OPT_INT, _OPT_BOOL = Param((INTEGER, NULL)), Param((BOOLEAN, NULL))
METHODS: dict[str, Method] = {method.name: method for method in (
    Method("health", _health, {}),
    Method("task.complete", _task_complete, {
        "project": _STR, "goal": _OPT_STR, "prompt": _OPT_STR, "result": _STR,
        "started_at": _STR, "finished_at": _STR, "cost_usd": Param((NUMBER, NULL)),
        "parent": _OPT_STR, "continuation": _OPT_BOOL, "external_context": _OPT_BOOL,
        "followups": Param((ARRAY, NULL)), "task_ref": _OPT_STR}),
    Method("task.list", lambda ctx, p: _listed(ctx.engine.tasks.list_tasks(
        p.get("project"), _opt(p, "limit", DEFAULT_TASK_LIST_LIMIT))),
           {"project": _OPT_STR, "limit": _OPT_INT}),
    Method("interaction.remember", lambda ctx, p: ctx.engine.recall.remember_interaction(
        p["interaction_id"], p["question"], p["answer"], project=p.get("project"),
        source=p.get("source")).to_json(),
           {"interaction_id": _STR, "question": _STR, "answer": _STR, "project": _OPT_STR,
            "source": _OPT_STR}),
    Method("memory.recall", lambda ctx, p: ctx.engine.recall.recall(
        p["query"], _opt(p, "limit", DEFAULT_RECALL_LIMIT), p.get("project"),
        for_agent=True).to_json(), {"query": _STR, "limit": _OPT_INT, "project": _OPT_STR}),
    Method("memory.add", lambda ctx, p: ctx.engine.identity.add_memory(
        p["content"], _opt(p, "kind", "fact"), p.get("project"), source=SOURCE).to_json(),
           {"content": _STR, "kind": _OPT_STR, "project": _OPT_STR}),
    Method("memory.correct", lambda ctx, p: ctx.engine.identity.supersede(
        p["id"], p["content"], p.get("kind"), source=SOURCE).to_json(),
           {"id": _STR, "content": _STR, "kind": _OPT_STR}),
    Method("context.prepare", lambda ctx, p: _json_without(
        ctx.engine.injection.preview_for_project(p["project"], prompt=_opt(p, "prompt", ""),
                                                 goal=_opt(p, "goal", "")), "task_id"),
           {"project": _STR, "prompt": _OPT_STR, "goal": _OPT_STR}),
    Method("transition.assess", lambda ctx, p: ctx.engine.recall.transition_assess(
        p.get("current_task"), p["request"]).to_json(),
           {"current_task": Param((STRING, OBJECT, NULL)), "request": _STR}),
    Method("consolidation.record", lambda ctx, p: _json_without(
        ctx.engine.recall.record_consolidation(p["kind"], p["outcome"], p.get("detail")),
        "user", "detail"), {"kind": _STR, "outcome": _STR, "detail": Param((OBJECT, NULL))}),
    Method("bundle.list", lambda ctx, p: _listed(ctx.engine.recall.list_bundles(
        p.get("project"))), {"project": _OPT_STR}),
    Method("bundle.get", lambda ctx, p: ctx.engine.recall.get_bundle(p["bundle"]).to_json(),
           {"bundle": _STR}),
    Method("bundle.document.put", lambda ctx, p: ctx.engine.recall.put_document(
        p["bundle"], p["path"], p["content"], p["expected_revision"]).to_json(),
           {"bundle": _STR, "path": _STR, "content": _STR,
            "expected_revision": Param((INTEGER,), True)}),
)}
"""Every method of the local service."""


def dispatch(ctx: ServiceContext, method_name: str, params: dict[str, Any]) -> Any:
    """Check params against the method's table entry and run it. Raises ``ProtocolError``
    (``unknown_method``, ``invalid_params``) or the engine's ``MemtuiError``."""
    if (method := METHODS.get(method_name)) is None:
        raise ProtocolError(UNKNOWN_METHOD, f"unknown method {echo(method_name)} (known: "
                                            f"{', '.join(METHODS)})")
    check_params(method, params)
    return method.handler(ctx, params)
