"""The theme tagger reads a line by the rules: what the solver gives and takes (a shot
N-for-M), whether the opponent's replies were compulsory captures (R11), crowning
(R15), a block (R16), the material of an ending (R19's three kings against one)."""

from __future__ import annotations

from poolcheckers import Board
from poolcheckers.puzzles.themes import tag


def test_a_sacrifice_taken_by_force_then_a_double_jump_is_a_2_for_1_shot_R11_R13() -> None:
    # White gives 28-24; the black king must take it (R11), and White's man takes two
    # on its way to the king row (R13, R15)
    themes = tag(Board("W:W12,19,20,28:B3,5,8,18,K30"), ["28-24", "30x16", "20x4"])
    assert {"shot", "shot_2_for_1", "sacrifice", "forced_capture", "multi_jump"} <= set(themes)
    assert {"king_row", "breakthrough", "short"} <= set(themes)


def test_a_single_capture_choice_is_a_one_move_puzzle_without_a_shot() -> None:
    themes = tag(Board("W:W14,15,17,18,21,22,23,27,28,29,31,32:B1,5,6,7,8,9,11,12,19,20"),
                 ["15x24"])  # fmt: skip
    assert themes == ["one_move"]


def test_the_ending_material_is_named_R19() -> None:
    assert "three_kings_v_one" in tag(Board("W:WK1,K2,K3:BK32"), ["3-7"])
    assert "two_kings_v_one" in tag(Board("W:WK1,K2:BK32"), ["2-6"])
    assert "kings_ending" in tag(Board("W:WK1,K2:BK32"), ["2-6"])


def test_leaving_the_opponent_without_a_move_is_a_block_R16() -> None:
    # Black's last man, on 28, cannot move past White's man on 32: any quiet move of
    # White leaves Black with a piece and no move (R16), and the game won
    board = Board("W:W5,32:B28")
    themes = tag(board, ["5-1"])
    assert "block" in themes and "king_row" in themes
    board.push_notation("5-1")
    assert board.outcome() is not None and not board.legal_moves
