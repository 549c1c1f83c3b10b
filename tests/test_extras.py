"""What a plain ``pip install poolcheckers`` brings, and what the extras add: the
library, its commands and the engine need neither the web stack nor plotting; the
web app's commands name the extra they need instead of failing on an import."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from importlib.metadata import requires
from pathlib import Path

import pytest

from poolcheckers.cli import EXIT_MISSING_EXTRA, main

ROOT = Path(__file__).resolve().parents[1]
#: what the library must never pull in: the web stack, database drivers, plotting
HEAVY = (
    "fastapi", "starlette", "uvicorn", "pydantic", "sqlalchemy", "alembic", "psycopg",
    "argon2", "limits", "zxcvbn", "matplotlib", "numpy", "networkx",
)  # fmt: skip


def _name(requirement: str) -> str:
    for stop in "[<>=!~ ;":
        requirement = requirement.split(stop)[0]
    return requirement.strip().lower()


def test_a_library_install_requires_only_tqdm() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert [_name(r) for r in project["dependencies"]] == ["tqdm"]
    web = {_name(r) for r in project["optional-dependencies"]["web"]}
    assert {"fastapi", "uvicorn", "sqlalchemy", "matplotlib"} <= web


def test_the_installed_metadata_says_the_same() -> None:
    base = [r for r in requires("poolcheckers") or [] if "extra ==" not in r]
    assert [_name(r) for r in base] == ["tqdm"]


def test_library_and_commands_work_with_no_web_stack_nor_plotting() -> None:
    code = (
        "import sys\n"
        f"sys.modules.update(dict.fromkeys({HEAVY!r}))\n"
        "from poolcheckers import Board, perft\n"
        "from poolcheckers.pdn import read_games\n"
        "from poolcheckers.cli import main\n"
        "assert perft(Board(), 3) == 302\n"
        "[game] = read_games('[GameType \"23\"]\\n1. 11-15 24-20 *\\n')\n"
        "assert [str(m) for m in game.moves] == ['11-15', '24-20']\n"
        "assert main(['moves', '--fen', 'B:W8,K10,K19,K22,27:BK3']) == 0\n"
        "assert main(['perft', '--depth', '3', '--python']) == 0\n"
        "assert not [m for m in sys.modules if m.split('.')[0] in "
        f"{HEAVY!r} and sys.modules[m] is not None]\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert "3x12x23x32" in done.stdout  # R4, R9, R14: the king's capture among the moves


@pytest.mark.parametrize("command", ["serve", "reset-password"])
def test_web_commands_without_the_web_extra_name_it(
    command: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "fastapi", None)
    assert main([command]) == EXIT_MISSING_EXTRA
    assert capsys.readouterr().err == (
        f"poolcheckers {command}: the web app needs fastapi, of the web extra: "
        "pip install 'poolcheckers[web]'\n"
    )


def test_puzzle_check_plot_without_matplotlib_names_the_extra_before_checking(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    plot = tmp_path / "p.png"
    # the file does not exist: the missing extra is told first, before any reading
    argv = ["puzzles", "check", str(tmp_path / "none.jsonl"), "--plot", str(plot)]
    assert main(argv) == EXIT_MISSING_EXTRA
    err = capsys.readouterr().err
    assert "puzzles check --plot needs matplotlib, of the tooling extra" in err
    assert not plot.exists()
