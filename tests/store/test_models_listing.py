"""``memtui.store.models`` resolves its names on first use (PEP 562) and lists them before."""

from __future__ import annotations

import subprocess
import sys

LISTED = ("import memtui.store.models as models; "
          "print(sorted(set(models.__all__) - set(dir(models))))")


def test_dir_lists_every_exported_name_before_any_is_used() -> None:
    # a fresh interpreter: no earlier test has resolved (and so cached) a name yet
    done = subprocess.run([sys.executable, "-c", LISTED], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == "[]"
