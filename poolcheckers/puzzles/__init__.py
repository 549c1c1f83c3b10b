"""Pool puzzles (docs/PUZZLES.md): the stored form of a puzzle and its check by the
rules library (:mod:`~poolcheckers.puzzles.record`), the rule-based theme tagger
(:mod:`~poolcheckers.puzzles.themes`), and the generator that finds them in games with
the engine and the endgame tables (:mod:`~poolcheckers.puzzles.generate`).

``record`` and ``themes`` know no engine: the web app reads and checks puzzles with
them; only ``generate`` searches (through the engine facade) and probes the tables.
"""

from .record import (
    GOALS,
    Goal,
    Puzzle,
    PuzzleError,
    read_puzzles,
    replay,
    shipped_puzzles,
    write_puzzles,
)

__all__ = [
    "GOALS",
    "Goal",
    "Puzzle",
    "PuzzleError",
    "read_puzzles",
    "replay",
    "shipped_puzzles",
    "write_puzzles",
]
