"""Packaging: pyproject lists every package, and the styles ship inside the package."""

from __future__ import annotations

import tomllib
from importlib import resources
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_pyproject_lists_every_package() -> None:
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
                 ["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "memtui").rglob(
        "__init__.py")}
    assert found <= listed, f"add to pyproject.toml packages: {sorted(found - listed)}"


def test_styles_are_importable_as_package_data() -> None:
    names = [entry.name for entry in resources.files("memtui.styles").iterdir()]
    assert any(name.endswith(".tcss") for name in names)
