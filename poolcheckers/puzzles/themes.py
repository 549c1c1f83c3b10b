"""The themes of a puzzle, by rules read off its line (no engine): what the solver
gives and takes, whether a man is crowned, whether the opponent's replies were forced
captures (R6, R11), the material of an ending.

Themes (words a player can choose on the trainer page):

- ``shot``: the solver gives material and takes more back; with ``shot_2_for_1``,
  ``shot_3_for_1``, ``shot_3_for_2``… (taken for given, pieces);
- ``sacrifice``: the solver's first move lets a piece be taken;
- ``forced_capture``: a reply of the opponent is a capture they must make (R11);
- ``multi_jump``: a solver's move takes two pieces or more (R13);
- ``king_row``: a solver's man is crowned (R15); ``breakthrough`` when after a
  sacrifice;
- ``block``: the opponent is left with pieces and no move (R16);
- ``endgame``: eight pieces or fewer; ``kings_ending``: no men left;
  ``three_kings_v_one`` (the R19 count) and ``two_kings_v_one``;
- ``one_move``, ``short`` (two solver moves), ``long`` (three or more).

>>> from poolcheckers import Board
>>> tag(Board("W:W22,27:B18,11"), ["22x8"])
['endgame', 'multi_jump', 'one_move']
"""

from __future__ import annotations

from collections.abc import Sequence

from poolcheckers.board import Board
from poolcheckers.move import Move
from poolcheckers.pieces import Color, PieceType


def N_(words: str) -> str:
    """Marks ``words`` for a user interface's catalogs (the site's gettext catalogs
    extract them); the library itself speaks English."""
    return words


#: every theme and its words on the trainer page
THEME_WORDS = {
    "shot": N_("Shots"),
    "sacrifice": N_("Sacrifices"),
    "forced_capture": N_("Forced captures"),
    "multi_jump": N_("Multi-jumps"),
    "king_row": N_("To the king row"),
    "breakthrough": N_("Breakthroughs"),
    "block": N_("Blocks"),
    "endgame": N_("Endgames"),
    "kings_ending": N_("Kings endings"),
    "three_kings_v_one": N_("Three kings against one"),
    "two_kings_v_one": N_("Two kings against one"),
    "endgame_technique": N_("Endgame technique (tables)"),
    "one_move": N_("One move"),
    "short": N_("Two moves"),
    "long": N_("Three moves or more"),
}
THEMES = tuple(THEME_WORDS)


def counts(board: Board, color: Color) -> tuple[int, int]:
    """(men, kings) of ``color``."""
    return len(board.pieces(color, PieceType.MAN)), len(board.pieces(color, PieceType.KING))


def tag(start: Board, solution: Sequence[Move | str]) -> list[str]:
    """The themes of the line ``solution`` from ``start`` (sorted)."""
    board = start.copy(stack=False)
    solver = board.turn
    other = solver.opponent
    themes: set[str] = set()
    given = taken = 0
    sacrificed = False
    for i, item in enumerate(solution):
        move = board.parse_move(item) if isinstance(item, str) else item
        mine = i % 2 == 0
        forced = len(board.legal_moves) == 1
        kings_before = counts(board, board.turn)[1]
        board.push(move)
        if mine:
            taken += len(move.captured)
            if len(move.captured) >= 2:
                themes.add("multi_jump")
            if counts(board, solver)[1] > kings_before:
                themes.add("king_row")
                if sacrificed:
                    themes.add("breakthrough")
        else:
            given += len(move.captured)
            if move.captured:
                if i == 1:
                    sacrificed = True
                    themes.add("sacrifice")
                if forced:
                    themes.add("forced_capture")
    if given and taken > given:
        themes.update(("shot", f"shot_{taken}_for_{given}"))
    if board.turn == other and not board.legal_moves and any(counts(board, other)):
        themes.add("block")
    themes.update(_material(start, solver))
    solver_moves = (len(solution) + 1) // 2
    themes.add("one_move" if solver_moves == 1 else "short" if solver_moves == 2 else "long")
    return sorted(themes)


def _material(board: Board, solver: Color) -> set[str]:
    (sm, sk), (om, ok) = counts(board, solver), counts(board, solver.opponent)
    out: set[str] = set()
    if sm + sk + om + ok <= 8:
        out.add("endgame")
    if sm == om == 0:
        out.add("kings_ending")
        if (sk, ok) == (3, 1):
            out.add("three_kings_v_one")
        elif (sk, ok) == (2, 1):
            out.add("two_kings_v_one")
    return out
