"""scripts/screenshots.py: the PNG conversion keeps every cell's space."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "screenshots.py"


def load_script() -> ModuleType:
    """The script as a module (it is not part of the package)."""
    spec = importlib.util.spec_from_file_location("memtui_screenshots", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_padding_spaces_survive_the_png_conversion() -> None:
    script = load_script()
    svg = ('<svg class="rich-terminal" viewBox="0 0 10 10"><text x="1">gen+use&#160;on</text>'
           '<text x="5">&#160;&#160;&#160;worker&#160;idle</text></svg>')
    ready = script.png_ready_svg(svg)
    assert ready.startswith('<svg xml:space="preserve" class="rich-terminal"')
    assert ">   worker idle<" in ready and ">gen+use on<" in ready
    assert "&#160;" not in ready
