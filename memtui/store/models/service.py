"""The service: recorded interactions and bundles."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from memtui.jsonable import JsonMixin


@dataclass(frozen=True)
class Interaction(JsonMixin):
    """A finished question/answer pair an agent asked the store to remember."""

    id: str
    user: str
    project: str | None
    question: str
    answer: str
    source: str | None
    created_at: str


@dataclass(frozen=True)
class BundleDocument:
    """One document of a bundle, with its revision."""

    bundle: str
    path: str
    revision: int
    content: str
    updated_at: str
    updated_by: str

    def to_json(self) -> dict[str, Any]:
        """The document as a JSON object."""
        return {key: value for key, value in asdict(self).items() if key != "bundle"}
