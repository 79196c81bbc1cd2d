"""Benchmark scripts that print figures (speed, accuracy, peers side by side). Each runs as a
module from the repository's root, ``python -m bench.tracker --help``; none is shipped.
"""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def child_env(**extra: str) -> dict[str, str]:
    """This process's environment (and ``extra``) with the repository first on ``PYTHONPATH``,
    so a ``python -m bench.NAME`` or ``python -m cli`` child finds the packages from any folder."""
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, **extra, "PYTHONPATH": path}
