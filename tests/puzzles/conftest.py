"""The endgame tables of up to 4 pieces (APCA rules), built once per session (seconds)."""

from __future__ import annotations

from pathlib import Path

import pytest

from poolcheckers.egdb import Tablebase, build
from poolcheckers.engine import native_available

if not native_available():  # pragma: no cover - the native core is part of every install
    pytest.skip("the native core is not built", allow_module_level=True)


@pytest.fixture(scope="session")
def tables4(tmp_path_factory: pytest.TempPathFactory) -> Tablebase:
    path: Path = tmp_path_factory.mktemp("egdb4")
    build(4, path)
    return Tablebase(path)
