"""The engine's sub-APIs and the store's repositories are made on first use from a module
path and a class name; their annotations are what mypy sees. These tests check that each
path makes an object of exactly the class its annotation names, so a typo in a path cannot
pass the type check unnoticed."""

from __future__ import annotations

from pathlib import Path

import pytest

from memtui.engine.api import Engine
from memtui.store.backend import Lazy, StoreBackend
from memtui.store.database import open_store


def _declared(owner: type, kind: type) -> dict[str, str]:
    """Attribute name -> the class name inside its ``Kind[...]`` annotation."""
    names = {}
    for klass in reversed(owner.__mro__):
        for name, annotation in vars(klass).get("__annotations__", {}).items():
            if isinstance(vars(klass).get(name), kind):
                assert isinstance(annotation, str) and annotation.endswith("]"), annotation
                names[name] = annotation[annotation.index("[") + 1 : -1]
    return names


@pytest.fixture
def store(tmp_path: Path):
    made = open_store(tmp_path / "store.db")
    yield made
    made.close()


def test_every_engine_area_makes_the_class_its_annotation_names(store: StoreBackend) -> None:
    engine = Engine(store, "alice")
    declared = _declared(Engine, Lazy)
    assert len(declared) >= 13
    for attribute, class_name in declared.items():
        area = getattr(engine, attribute)
        assert type(area).__name__ == class_name, attribute
        assert getattr(engine, attribute) is area, f"{attribute} is made once"


def test_the_attribute_read_on_the_class_is_the_descriptor() -> None:
    assert isinstance(Engine.recall, Lazy)
    assert isinstance(StoreBackend.memories, Lazy)


def test_every_store_repository_makes_the_class_its_annotation_names(
        store: StoreBackend) -> None:
    declared = _declared(type(store), Lazy)
    assert len(declared) >= 11
    for attribute, class_name in declared.items():
        repository = getattr(store, attribute)
        assert type(repository).__name__ == class_name, attribute
        assert getattr(store, attribute) is repository, f"{attribute} is made once"
