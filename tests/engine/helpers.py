"""Shared helpers of the engine tests: random positions and games."""

from __future__ import annotations

import random
from pathlib import Path

from hypothesis import strategies as st

from poolcheckers import Board, RuleSet

#: one rule set per option value of docs/RULES.md §9 (besides the default)
RULE_SETS: dict[str, RuleSet] = {
    "apca": RuleSet.apca(),
    "crown_during_capture=stop": RuleSet(crown_during_capture="stop"),
    "three_kings_limit_result=loss": RuleSet(three_kings_limit_result="loss"),
    "king_only_move_limit=15": RuleSet(king_only_move_limit=15),
    "repetition_draw=true": RuleSet(repetition_draw=True),
}

# piece codes: 0 empty, 1 black man, 2 white man, 3 black king, 4 white king
_SYMBOL = {1: ("B", ""), 2: ("W", ""), 3: ("B", "K"), 4: ("W", "K")}


def fen_from_codes(codes: list[int], white_to_move: bool) -> str:
    """A valid FEN (R5) from 32 piece codes: at most 12 pieces a side (R3), no man
    on its own king row (such a man is a king, R15)."""
    sides: dict[str, list[str]] = {"B": [], "W": []}
    for square, code in enumerate(codes, start=1):
        if code == 0:
            continue
        color, king = _SYMBOL[code]
        if len(sides[color]) >= 12:
            continue
        row = (square - 1) // 4
        if not king and ((color == "B" and row == 7) or (color == "W" and row == 0)):
            king = "K"
        sides[color].append(f"{king}{square}")
    turn = "W" if white_to_move else "B"
    return f"{turn}:W{','.join(sides['W'])}:B{','.join(sides['B'])}"


@st.composite
def placements(draw: st.DrawFn) -> str:
    """Random placements, king-heavy and crowded ones included (R9, R10, R14, R15)."""
    density = draw(st.sampled_from([0.15, 0.3, 0.5, 0.7]))
    king_share = draw(st.sampled_from([0.0, 0.3, 0.7, 1.0]))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = random.Random(seed)
    codes = []
    for _ in range(32):
        if rng.random() >= density:
            codes.append(0)
            continue
        white = rng.random() < 0.5
        king = rng.random() < king_share
        codes.append((2 if white else 1) + (2 if king else 0))
    return fen_from_codes(codes, draw(st.booleans()))


def random_playout(seed: int, plies: int, rules: RuleSet | None = None) -> Board:
    """The position after up to ``plies`` random legal moves from the start."""
    rng = random.Random(seed)
    board = Board(rules=rules)
    for _ in range(plies):
        moves = board.legal_moves
        if not moves or board.is_game_over():
            break
        board.push(rng.choice(moves))
    return board


@st.composite
def boards(draw: st.DrawFn) -> Board:
    """Either a random placement or a position reached by random play."""
    if draw(st.booleans()):
        return Board(draw(placements()))
    return random_playout(draw(st.integers(0, 2**32 - 1)), draw(st.integers(0, 80)))


def random_games_pdn(path: Path, games: int, seed: int) -> None:
    """``games`` games of random legal moves, played to their end, as a PDN file;
    none goes through a held-out opening (the tuner would leave it out)."""
    from poolcheckers.pdn import PdnGame, game_from_board, write_file
    from poolcheckers.tooling.openings import passes_through_heldout

    rng = random.Random(seed)
    out: list[PdnGame] = []
    while len(out) < games:
        board = Board()
        while board.outcome() is None:
            board.push(rng.choice(board.legal_moves))
        game = game_from_board(board)
        if not passes_through_heldout(game.notations()):
            out.append(game)
    write_file(path, out)
