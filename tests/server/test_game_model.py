"""The game model without a database: moves, clocks (R20), draws (R17), takeback,
retries and the end of the game (R16), as plain code over the rules library."""

from __future__ import annotations

import pytest

from poolcheckers import Board
from poolcheckers.server.api.schemas import Mode
from poolcheckers.server.errors import ApiError
from poolcheckers.server.games import model
from poolcheckers.server.games.model import Change, Loaded, NewGame
from poolcheckers.server.games.seats import give_seats, hash_token, require_seat, seat_of


def start(mode: Mode = "online", clock: float | None = None, fen: str | None = None) -> Loaded:
    spec = NewGame(mode=mode, fen=fen, level=3, clock_initial=clock, clock_increment=1.0)
    g = model.new_game(spec, "g1", 0)
    give_seats(g, "tb", "black")
    if mode == "online":
        g.white_token_hash = hash_token("tw")
    return Loaded(g, [], model.replay(g, []))


def after(change: Change | Loaded | None) -> Loaded:
    assert isinstance(change, Change)
    return Loaded(change.game, change.moves, change.board)


def opened(g: Loaded) -> Loaded:
    """Both sides' first moves, which start the clock (each side's first move is free)."""
    g = after(model.player_move(g, "black", "11-15", 0, 0))
    assert g.game.clock_running is None and g.game.black_ms == g.game.clock_initial_ms
    return after(model.player_move(g, "white", "22-18", 1, 0))


def test_a_move_charges_the_clock_and_adds_the_increment_r20() -> None:
    g = opened(start(clock=60))
    assert g.game.clock_running == "black" and g.game.deadline_ms == 60_000
    assert g.game.white_ms == 60_000  # no increment for the free first move
    g = after(model.player_move(g, "black", "15x22", 2, 5_000))
    assert g.game.black_ms == 60_000 - 5_000 + 1_000
    assert g.game.clock_running == "white" and g.game.turn_started_ms == 5_000
    assert g.moves[2].notation == "15x22" and g.moves[2].black_ms == 56_000


def test_a_fallen_flag_loses_r20() -> None:
    g = start(clock=10)
    assert model.flag(g, 10**9) is None  # no clock runs before both sides have moved
    g = opened(g)
    assert model.flag(g, 9_999) is None
    lost = after(model.flag(g, 10_000))
    assert lost.game.status == "finished" and lost.game.termination == "time"
    assert lost.game.winner == "white" and lost.game.black_ms == 0


def test_moves_are_checked_by_the_library() -> None:
    g = start()
    with pytest.raises(ApiError) as exc:
        model.player_move(g, "black", "22-18", 0, 0)
    assert exc.value.code == "illegal_move"
    with pytest.raises(ApiError) as exc:
        model.player_move(g, "black", "11--15", 0, 0)
    assert exc.value.code == "malformed" and "R4" in exc.value.message
    with pytest.raises(ApiError) as exc:
        model.player_move(g, "white", "22-18", 0, 0)
    assert exc.value.code == "forbidden"
    with pytest.raises(ApiError) as exc:
        model.player_move(g, "black", "11-15", 1, 0)
    assert exc.value.code == "stale_ply"


def test_a_retry_answers_the_game_right_after_the_stored_move() -> None:
    g = after(model.player_move(start(), "black", "11-15", 0, 1_000))
    g = after(model.player_move(g, "white", "22-18", 1, 2_000))
    again = model.player_move(g, "black", "11-15", 0, 3_000)
    assert isinstance(again, Loaded)
    assert again.game.ply == 1 and [m.notation for m in again.moves] == ["11-15"]
    with pytest.raises(ApiError) as exc:  # another move for a played ply is stale
        model.player_move(g, "black", "12-16", 0, 3_000)
    assert exc.value.code == "stale_ply"
    with pytest.raises(ApiError):  # the opponent "retrying" it is not a retry
        model.player_move(g, "white", "11-15", 0, 3_000)


def test_draw_offers_r17() -> None:
    g = start()
    offered = after(model.offer_draw(g, "black", 0))
    assert offered.game.draw_offer == "black"
    with pytest.raises(ApiError) as exc:
        model.answer_draw(offered, "black", True, 0)
    assert exc.value.code == "forbidden"
    declined = after(model.player_move(offered, "black", "11-15", 0, 0))
    assert declined.game.draw_offer == "black"  # one's own move keeps one's offer
    declined = after(model.player_move(declined, "white", "22-18", 1, 0))
    assert declined.game.draw_offer is None  # the opponent's move declines it
    both = after(model.offer_draw(after(model.offer_draw(g, "white", 0)), "black", 0))
    assert both.game.termination == "agreement" and both.game.result == "1-1"


def test_no_draw_offer_before_the_invited_player_joins() -> None:
    g = start()
    g.game.white_token_hash = None
    with pytest.raises(ApiError) as exc:
        model.offer_draw(g, "black", 0)
    assert exc.value.code == "conflict"
    joined = after(model.join(g, hash_token("new"), 0))
    assert seat_of(joined.game, "new") == "white"


def test_takeback_undoes_the_human_move_and_the_engine_reply() -> None:
    g = start(mode="engine")
    assert g.game.engine_color == "white" and g.game.level == 3
    g = after(model.player_move(g, "black", "11-15", 0, 0))
    assert g.game.engine_to_move(g.board)
    g = after(model.engine_move(g, 1, "22-18", 0))
    assert model.engine_move(g, 1, "23-19", 0) is None  # the game moved on
    back = after(model.takeback(g, "black", 0))
    assert back.game.ply == 0 and back.moves == [] and back.board.fen() == Board().fen()
    with pytest.raises(ApiError):
        model.takeback(back, "black", 0)


def test_the_board_ends_the_game_r16_and_resigning_r20() -> None:
    g = start(mode="local", fen="B:W9:B5")
    over = after(model.player_move(g, "both", "5x14", 0, 0))
    assert over.game.status == "finished" and over.game.winner == "black"
    assert "(R16)" in (over.game.reason or "")
    with pytest.raises(ApiError) as exc:
        model.resign(over, "white", 0)
    assert exc.value.code == "game_over"
    g = after(model.player_move(start(), "black", "11-15", 0, 0))
    g = after(model.player_move(g, "white", "23-19", 1, 0))
    resigned = after(model.resign(g, "white", 0))
    assert resigned.game.termination == "resignation" and resigned.game.result == "2-0"


def test_resigning_or_agreeing_a_draw_before_both_sides_moved_aborts_a_rated_game() -> None:
    rated = start()
    rated.game.rated = True
    resigned = after(model.resign(rated, "white", 0))
    assert resigned.game.status == "aborted" and resigned.game.result == "*"
    assert resigned.game.winner is None and "before both sides had moved" in str(
        resigned.game.reason
    )
    g = after(model.player_move(rated, "black", "11-15", 0, 0))
    g = after(model.offer_draw(g, "black", 0))
    drawn = after(model.answer_draw(g, "white", True, 0))
    assert drawn.game.status == "aborted" and drawn.game.termination == "aborted"
    casual = after(model.resign(start(), "white", 0))
    assert casual.game.status == "finished" and casual.game.result == "2-0"


def test_seats_are_checked_in_constant_time_against_hashes() -> None:
    g = start().game
    assert g.black_token_hash == hash_token("tb") != "tb"
    assert seat_of(g, "tb") == "black" and seat_of(g, None) is None
    with pytest.raises(ApiError) as exc:
        seat_of(g, "\ud800")  # a lone surrogate is just a wrong token
    assert exc.value.status == 403
    with pytest.raises(ApiError):
        require_seat(g, None)
