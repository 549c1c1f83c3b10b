"""The map of the package, enforced: every module is listed in docs/ARCHITECTURE.md,
and the layers import only what they may (read with ``ast``, nothing is imported)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import poolcheckers.engine as facade

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "poolcheckers"
ARCHITECTURE = ROOT / "docs" / "ARCHITECTURE.md"
#: the alembic revisions are data, not modules: their folder is listed as one entry
MIGRATION_REVISIONS = PACKAGE / "server" / "database" / "migrations" / "versions"


def _imports(path: Path) -> set[str]:
    """Every module ``path`` imports (relative imports resolved); ``from a import b``
    records ``a`` and ``a.b``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts)
    if path.name != "__init__.py":
        package = package.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parent = ".".join(parts[: len(parts) - node.level + 1])
                base = f"{parent}.{base}" if base else parent
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            found.add(node.args[0].value)
    return found


def _sources(folder: Path) -> list[Path]:
    return [p for p in sorted(folder.rglob("*.py")) if MIGRATION_REVISIONS not in p.parents]


def _modules(folder: Path = PACKAGE) -> dict[str, set[str]]:
    return {str(p.relative_to(ROOT)): _imports(p) for p in _sources(folder)}


def _within(imported: set[str], package: str) -> set[str]:
    return {m for m in imported if m == package or m.startswith(package + ".")}


# ----------------------------------------------------------------- the map
def test_every_module_is_on_the_map() -> None:
    """docs/ARCHITECTURE.md names every module by its path (the migration revisions
    by their folder), and names no module that is gone."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    listed = set(re.findall(r"`(poolcheckers/[\w/]+(?:\.py)?/?)`", text))
    modules = {str(p.relative_to(ROOT)) for p in _sources(PACKAGE)}
    missing = sorted(modules - listed)
    assert not missing, f"modules missing from docs/ARCHITECTURE.md: {missing}"
    gone = sorted(m for m in listed if m.endswith(".py") and m not in modules)
    assert not gone, f"docs/ARCHITECTURE.md lists modules that do not exist: {gone}"


# ----------------------------------------------------------------- the layers
def test_only_the_cli_imports_the_commands() -> None:
    offenders = {
        name
        for name, imported in _modules().items()
        if not name.startswith(("poolcheckers/commands/", "poolcheckers/cli.py"))
        and _within(imported, "poolcheckers.commands")
    }
    assert not offenders, f"only poolcheckers/cli.py may import poolcheckers.commands: {offenders}"


def test_hub_and_server_use_only_the_engine_facade() -> None:
    for name, imported in _modules().items():
        if name == "poolcheckers/hub.py" or name.startswith("poolcheckers/server/"):
            inner = {m for m in imported if m.startswith("poolcheckers.engine.")}
            # "from poolcheckers.engine import X" is recorded as poolcheckers.engine.X:
            # allowed when X is a name of the facade, not one of its modules
            modules = {m for m in inner if m.rpartition(".")[2] not in facade.__all__}
            assert not modules, f"{name} reaches around the facade: {modules}"
            assert "poolcheckers._core" not in imported, name


def test_the_rules_library_knows_no_engine_web_or_command_line() -> None:
    layers = ("poolcheckers.engine", "poolcheckers.server", "poolcheckers.commands")
    for name, imported in _modules().items():
        top = name.count("/") == 1 and name not in ("poolcheckers/cli.py", "poolcheckers/hub.py")
        if top:
            bad = {m for m in imported if m.startswith(layers) or m == "poolcheckers.cli"}
            assert not bad, f"{name} imports {bad}"


def test_the_server_imports_no_command_line_and_no_tooling() -> None:
    """Matches, SPRT and tuning (``poolcheckers.tooling``) and the command line are
    tools around the engine; the web server runs without them."""
    for name, imported in _modules(PACKAGE / "server").items():
        bad = _within(imported, "poolcheckers.tooling") | _within(imported, "poolcheckers.commands")
        assert not bad, f"{name} imports {bad}"


def test_routers_run_no_sql() -> None:
    """Routers validate and delegate: queries and tables belong to the repositories."""
    for path in _sources(PACKAGE / "server" / "api" / "routers"):
        imported = _imports(path)
        bad = _within(imported, "sqlalchemy") | _within(
            imported, "poolcheckers.server.database.tables"
        )
        assert not bad, f"{path.name} imports {bad}"
        tree = ast.parse(path.read_text(encoding="utf-8"))
        sql_text = [
            node.lineno
            for node in ast.walk(tree)
            if isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "text"
        ]
        assert not sql_text, f"{path.name} writes SQL text (text(...)) at lines {sql_text}"


def test_benchmarks_do_not_import_the_command_line() -> None:
    importing = {
        path.name
        for path in _sources(ROOT / "benchmarks")
        if _within(_imports(path), "poolcheckers.commands")
    }
    assert not importing, importing


def test_the_endgame_play_hooks_are_reached_through_the_engine_facade() -> None:
    importing = {
        name
        for name, imported in _modules().items()
        if _within(imported, "poolcheckers.egdb.play")
        and not name.startswith(("poolcheckers/engine/", "poolcheckers/egdb/"))
    }
    assert not importing, importing


def test_puzzles_are_read_and_checked_without_the_engine() -> None:
    """A puzzle's stored form and its themes need the rules library alone; the web app
    reads and judges puzzles with them, and loads the generator (the engine) only to
    make a puzzle of a position set up in the board editor."""
    layers = ("poolcheckers.engine", "poolcheckers.egdb", "poolcheckers.server",
              "poolcheckers.commands", "poolcheckers.tooling", "poolcheckers._core")  # fmt: skip
    for name in ("__init__.py", "record.py", "themes.py"):
        imported = _imports(PACKAGE / "puzzles" / name)
        bad = {m for m in imported if m.startswith(layers)}
        assert not bad, f"poolcheckers/puzzles/{name} imports {bad}"
    for name, imported in _modules(PACKAGE / "server").items():
        if name == "poolcheckers/server/puzzles/service.py":
            continue  # the board editor's "make it a puzzle", loaded on that request only
        bad = _within(imported, "poolcheckers.puzzles.generate")
        assert not bad, f"{name} imports the puzzle generator"
