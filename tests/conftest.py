"""Shared test set-up: make tests/reference.py (the independent move generator)
importable as ``reference`` however pytest is started."""

from __future__ import annotations

import sys
from pathlib import Path

_TESTS = str(Path(__file__).resolve().parent)
if _TESTS not in sys.path:
    sys.path.insert(0, _TESTS)
