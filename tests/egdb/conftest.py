"""Tables built once per session (≤ 3 and ≤ 4 pieces: seconds) and the solver on the path."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from poolcheckers.engine import native_available
from poolcheckers.rules import RuleSet

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

if not native_available():  # pragma: no cover - the native core is part of every install
    pytest.skip("the native core is not built", allow_module_level=True)

_BUILT: dict[tuple[int, str, tuple[tuple[int, int, int, int], ...]], Path] = {}


@pytest.fixture(scope="session")
def tables(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """``tables(pieces, rules)``: a directory holding every table of up to ``pieces`` pieces."""
    from poolcheckers.egdb import build

    def get(pieces: int, rules: RuleSet, extra: tuple[tuple[int, int, int, int], ...] = ()) -> Path:
        """Every table of up to ``pieces`` pieces and the materials ``extra``."""
        key = (pieces, rules.name, extra)
        if key not in _BUILT:
            path = tmp_path_factory.mktemp(f"egdb{pieces}")
            build(pieces, path, rules)
            if extra:
                build(max(sum(m) for m in extra), path, rules, only=extra)
            _BUILT[key] = path
        return _BUILT[key]

    return get
