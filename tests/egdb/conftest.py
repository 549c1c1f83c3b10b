"""Tables built once per session (≤ 3 and ≤ 4 pieces: seconds)."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

import numpy as np
import numpy.typing as npt
import pytest

from poolcheckers.egdb import Material, Tablebase
from poolcheckers.engine import native_available
from poolcheckers.rules import RuleSet

if not native_available():  # pragma: no cover - the native core is part of every install
    pytest.skip("the native core is not built", allow_module_level=True)

#: a column of probe_many: one 4-byte integer per position
Column = npt.NDArray[np.uint32]
_BUILT: dict[tuple[int, str, tuple[Material, ...]], Path] = {}


class Tables(Protocol):
    """The ``tables`` fixture."""

    def __call__(self, pieces: int, rules: RuleSet, extra: tuple[Material, ...] = ()) -> Path:
        """A directory holding every table of up to ``pieces`` pieces and the materials
        ``extra``."""


class NativeProbe(Protocol):
    """What the tests use of the native prober of a :class:`Tablebase` (``_probe``)."""

    def probe(
        self, black: int, white: int, kings: int, turn: int, h: int, c: int
    ) -> tuple[int, int, int, int]:
        """(fresh value, DTZ or -1, the value under the counts ``h`` and ``c``, the draw
        distance or -1), values 1, 0, -1 for the side to move.  (``None`` when no file
        holds the material: never in these tests, which build the tables they probe.)"""

    def probe_many(
        self,
        black: Column,
        white: Column,
        kings: Column,
        turn: Column,
        h: Column,
        c: Column,
    ) -> bytes:
        """:meth:`probe` of each position of six arrays of 4-byte integers: n x 4 int16
        (fresh value, DTZ or -1, value under the counts, draw distance or -1; fresh value
        -2 when no file holds the material)."""


def native_probe(directory: Path) -> NativeProbe:
    """The native prober of the tables in ``directory``."""
    probe: NativeProbe = Tablebase(directory)._probe
    return probe


@pytest.fixture(scope="session")
def tables(tmp_path_factory: pytest.TempPathFactory) -> Tables:
    """``tables(pieces, rules)``: a directory holding every table of up to ``pieces`` pieces."""
    from poolcheckers.egdb import build

    def get(pieces: int, rules: RuleSet, extra: tuple[Material, ...] = ()) -> Path:
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
