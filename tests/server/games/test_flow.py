"""Game-flow helpers: PDN player tags, abort, clocks from the first move, rematch, rated results."""

from __future__ import annotations

import pytest

from poolcheckers import Board, Color, Outcome, Termination
from poolcheckers.pdn import game_from_board, read_games
from poolcheckers.server.domain_errors import CommunityError
from poolcheckers.server.games.flow import (
    Seat,
    abort_refusal,
    black_score,
    can_abort,
    clock_runs,
    player_tags,
    rated_result,
)
from poolcheckers.server.games.timecontrol import Category, Clock, Correspondence
from poolcheckers.server.ratings.model import MemoryRatingStore, RatedResult, apply_result


def test_player_tags_survive_a_pdn_round_trip() -> None:
    board = Board()
    for move in ("11-15", "23-19", "8-11", "22-17"):
        board.push_notation(move)
    tags = player_tags(Seat("Ann_B", 1612), Seat("bob-9", 1488), Clock(180, 2))
    text = game_from_board(board, tags).to_pdn()
    assert '[TimeControl "180+2"]' in text
    [game] = read_games(text)
    for name in ("Black", "White", "BlackElo", "WhiteElo", "TimeControl"):
        assert game.tags[name] == tags[name]


def test_tags_for_anonymous_engine_and_unlimited_games() -> None:
    tags = player_tags(Seat(), Seat("Engine level 3"), None)
    assert tags == {
        "Black": "Anonymous",
        "White": "Engine level 3",
        "BlackElo": "-",
        "WhiteElo": "-",
        "TimeControl": "-",
    }
    assert player_tags(Seat(), Seat(), Correspondence(5))["TimeControl"] == "1/432000"


def test_rating_diff_tags_of_a_rated_game() -> None:
    store = MemoryRatingStore()
    update = apply_result(store, RatedResult("g", Category.BLITZ, "a", "b", 0.0, 0.0))
    tags = player_tags(Seat("Ann", 1500), Seat("Bob", 1500), Clock(300, 0), update)
    assert tags["BlackRatingDiff"] == f"{update.black_diff:+d}"
    assert tags["BlackRatingDiff"].startswith("-")
    assert tags["WhiteRatingDiff"].startswith("+")


@pytest.mark.parametrize(("ply", "allowed"), [(0, True), (1, True), (2, False), (40, False)])
def test_abort_only_while_a_side_has_not_moved(ply: int, allowed: bool) -> None:
    assert can_abort(ply, finished=False) is allowed
    assert (abort_refusal(ply, finished=False) is None) is allowed


def test_finished_games_cannot_be_aborted() -> None:
    assert not can_abort(0, finished=True)
    assert abort_refusal(1, finished=True) == "the game is over: it can no longer be aborted"
    refusal = abort_refusal(2, finished=False)
    assert refusal is not None and "R20" in refusal


def test_each_clock_starts_with_its_sides_first_move() -> None:
    """Black's clock does not run before Black's first move (R3: Black moves first),
    White's not before White's; from ply 2 the side to move has moved before."""
    assert [clock_runs(p) for p in (0, 1, 2, 3)] == [False, False, True, True]


def test_clock_rule_holds_from_a_set_up_position_with_white_to_move() -> None:
    board = Board("W:W21,22:B9,10")
    assert board.turn is Color.WHITE
    assert not clock_runs(board.ply)
    board.push(board.legal_moves[0])
    assert not clock_runs(board.ply)  # Black has not moved yet
    board.push(board.legal_moves[0])
    assert clock_runs(board.ply)


@pytest.mark.parametrize(("winner", "score"), [(Color.BLACK, 1.0), (Color.WHITE, 0.0), (None, 0.5)])
def test_black_score(winner: Color | None, score: float) -> None:
    term = Termination.AGREEMENT if winner is None else Termination.NO_MOVES
    assert black_score(Outcome(term, winner)) == score


def test_only_finished_games_between_two_accounts_with_a_clock_are_rated() -> None:
    won = Outcome(Termination.TIME, Color.WHITE)
    assert rated_result("g", Category.BLITZ, "a", "b", None, 0.0) is None  # aborted
    assert rated_result("g", None, "a", "b", won, 0.0) is None  # no clock
    assert rated_result("g", Category.BLITZ, None, "b", won, 0.0) is None  # anonymous/engine
    result = rated_result("g", Category.BLITZ, "a", "b", won, 9.0)
    assert result == RatedResult("g", Category.BLITZ, "a", "b", 0.0, 9.0)
    with pytest.raises(CommunityError, match="against oneself"):
        rated_result("g", Category.BLITZ, "a", "a", won, 0.0)
