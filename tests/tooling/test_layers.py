"""Where the tools stand: the command line and the benchmarks use them; the engine
facade, the web app and the rules library never import them; without the
``tooling`` extra the commands that need it say so in one line."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
from commands.fake_engine import FakeEngine, FakeLimit

from poolcheckers.cli import EXIT_MISSING_EXTRA, build_parser, main
from poolcheckers.commands import match as match_cmd
from poolcheckers.tooling import INSTALL_EXTRA, MissingExtraError

PACKAGE = Path(__file__).resolve().parent.parent.parent / "poolcheckers"
BENCHMARKS = PACKAGE.parent / "benchmarks"


def _imported(path: Path) -> set[str]:
    """The absolute modules ``path`` imports (a package's relative imports stay inside it)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def _importers(paths: list[Path], prefix: str) -> set[str]:
    return {
        str(path.relative_to(PACKAGE.parent))
        for path in paths
        if any(m == prefix or m.startswith(prefix + ".") for m in _imported(path))
    }


def test_only_the_command_line_imports_the_tools() -> None:
    allowed = ("poolcheckers/tooling/", "poolcheckers/commands/", "poolcheckers/cli.py")
    others = [
        p
        for p in PACKAGE.rglob("*.py")
        if not str(p.relative_to(PACKAGE.parent)).startswith(allowed)
    ]
    assert _importers(others, "poolcheckers.tooling") == set()


def test_the_tools_import_no_command_line_nor_web_app() -> None:
    tools = list((PACKAGE / "tooling").rglob("*.py"))
    for layer in ("poolcheckers.commands", "poolcheckers.cli", "poolcheckers.server"):
        assert _importers(tools, layer) == set(), layer


def test_benchmarks_import_no_command_module() -> None:
    assert _importers(list(BENCHMARKS.glob("*.py")), "poolcheckers.commands") == set()


def test_the_command_line_starts_without_the_tooling_extra() -> None:
    code = (
        "import sys\n"
        "sys.modules.update(numpy=None, matplotlib=None)\n"
        "from poolcheckers.cli import build_parser\n"
        "build_parser()\n"
        "import poolcheckers.tooling.plots, poolcheckers.tooling.ladder\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


def test_tune_without_numpy_names_the_extra(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "numpy", None)
    assert main(["tune", "--output", str(tmp_path / "w.json")]) == EXIT_MISSING_EXTRA
    captured = capsys.readouterr()
    assert captured.err == (
        f"poolcheckers tune: tuning needs numpy, of the tooling extra: {INSTALL_EXTRA}\n"
    )
    assert not (tmp_path / "w.json").exists()


def test_match_plot_without_matplotlib_names_the_extra_before_any_game(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    argv = ["match", "--depth", "1", "--games", "2", "--plot", str(tmp_path / "p.png")]
    assert main(argv) == EXIT_MISSING_EXTRA
    assert capsys.readouterr().err == (
        f"poolcheckers match: --plot needs matplotlib, of the tooling extra: {INSTALL_EXTRA}\n"
    )
    made: list[FakeEngine] = []

    def factory(mb: int, rules: object, weights: str | None) -> FakeEngine:
        made.append(FakeEngine())
        return made[-1]

    args = build_parser().parse_args(argv)
    with pytest.raises(MissingExtraError, match=r"poolcheckers\[tooling\]"):
        match_cmd.run(args, engine_factory=factory, limit=FakeLimit(depth=1))
    assert made == []


def test_a_match_without_a_plot_needs_no_matplotlib(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    pdn = tmp_path / "games.pdn"
    args = build_parser().parse_args(["match", "--games", "2", "--pdn", str(pdn)])
    status = match_cmd.run(
        args, engine_factory=lambda mb, rules, weights: FakeEngine(), limit=FakeLimit(depth=1)
    )
    assert status == 0 and pdn.stat().st_size > 0
