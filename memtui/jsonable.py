"""``JsonMixin``: a dataclass's ``to_json()`` made of plain JSON values (every layer uses it)."""

from __future__ import annotations

import dataclasses
from typing import Any


def _jsonable(value: Any) -> Any:
    if isinstance(value, JsonMixin):
        return value.to_json()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {item.name: _jsonable(getattr(value, item.name))
                for item in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(key): _jsonable(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(item) for item in value]
    return value


class JsonMixin:
    """Gives a dataclass a ``to_json()`` of plain JSON values, using each nested object's own
    ``to_json`` (a field one leaves out stays out wherever it is nested)."""

    def to_json(self) -> dict[str, Any]:
        """The dataclass as a JSON-ready dict (tuples become lists)."""
        return {item.name: _jsonable(getattr(self, item.name))
                for item in dataclasses.fields(self)}  # type: ignore[arg-type]
