"""The engine facade (poolcheckers.engine): levels, limits, opening an engine,
"win in N" in moves, the draw policy, and who may import what."""

from __future__ import annotations

import contextlib
import io
from collections.abc import Callable
from pathlib import Path
from typing import TypedDict

import pytest
from hypothesis import given
from hypothesis import strategies as st

from poolcheckers import Board, Color, RuleSet
from poolcheckers import engine as facade
from poolcheckers.engine import (
    LEVELS,
    MAX_LEVEL,
    MIN_LEVEL,
    EngineUnavailable,
    Limit,
    Phase,
    SearchInfo,
    SearchResult,
    accepts_draw,
    check_level,
    decide_draw,
    draw_decision,
    format_score,
    game_phase,
    info_fields,
    is_dead_draw,
    level_limit,
    make_limit,
    mate_in_moves,
    native_available,
    open_engine,
)
from poolcheckers.hub import PARAMS, HubSession

needs_engine = pytest.mark.skipif(not native_available(), reason="native core not built")

#: Black to move with four kings against one: 1-15 29x8 3x12 wins with Black's 2nd move.
FOUR_KINGS = "B:WK29:BK1,K2,K3,K4"


# ----------------------------------------------------------------- levels and limits
def test_one_level_range_everywhere() -> None:
    assert (MIN_LEVEL, MAX_LEVEL) == (min(LEVELS), max(LEVELS)) == (1, 10)
    kind, default, extra = PARAMS["level"]
    assert (kind, default, dict(extra)) == ("int", str(MAX_LEVEL), {"min": "1", "max": "10"})
    for level in LEVELS:
        assert check_level(level) == level
    for bad in (0, 11, -1, True, 2.0, "3", None):
        with pytest.raises(ValueError, match=r"level must be an int in 1\.\.10"):
            check_level(bad)


def test_level_limits_and_clock_share() -> None:
    assert level_limit(1) == Limit(time=0.1)
    assert level_limit(None) == level_limit(10) == Limit(time=1.0)
    assert level_limit(4, move_time=0.05).time == 0.05
    clocked = level_limit(10, clock=2.0, increment=0.0)
    # no new depth after a thirtieth of the clock; the hard stop is three times that
    assert clocked.soft_budget() == pytest.approx(2.0 / 30, abs=1e-5)
    assert clocked.budget() == pytest.approx(0.2, abs=1e-5)
    with pytest.raises(ValueError, match="level"):
        level_limit(11)
    with pytest.raises(ValueError, match="clock must be a finite number of seconds"):
        level_limit(5, clock=-1.0)


class _Bounds(TypedDict, total=False):
    time: float
    depth: int
    nodes: int
    increment: float


@pytest.mark.parametrize(
    ("bounds", "words"),
    [
        ({"depth": 0}, "depth must be 1..100"),
        ({"depth": 101}, "depth must be 1..100"),
        ({"nodes": 0}, "nodes must be 1.."),
        ({"time": float("inf")}, "time must be a finite number of seconds"),
        ({"increment": -0.5}, "increment must be a finite number of seconds"),
        ({"time": 1e9}, "time must be at most"),
    ],
)
def test_make_limit_names_the_bound_it_refuses(bounds: _Bounds, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        make_limit(**bounds)


# ----------------------------------------------------------------- win in N moves
def test_win_in_counts_the_winners_moves() -> None:
    # plies -> the winner's own moves: the side to move makes plies 1, 3, 5...
    assert [mate_in_moves(p) for p in (1, 3, 5, 7)] == [1, 2, 3, 4]
    # ...and when it loses, the opponent makes plies 2, 4, 6
    assert [mate_in_moves(p) for p in (-2, -4, -6)] == [-1, -2, -3]
    assert format_score(29_997, 3) == "win in 2" and format_score(-29_996, -4) == "loss in 2"


@given(st.integers(1, 1000))
def test_win_in_is_the_count_of_the_winners_plies(plies: int) -> None:
    # plies 1..p alternate, the side to move first: its own are the odd ones
    assert mate_in_moves(plies) == sum(1 for ply in range(1, plies + 1) if ply % 2 == 1)
    # a loss ends on the opponent's ply, an even one: the opponent's are the even ones
    even = 2 * ((plies + 1) // 2)
    assert mate_in_moves(-even) == -sum(1 for ply in range(1, even + 1) if ply % 2 == 0)


@needs_engine
def test_win_in_agrees_in_analyse_hub_and_the_web_fields() -> None:
    from poolcheckers.cli import main

    board = Board(FOUR_KINGS)
    engine = open_engine(hash_mb=4)
    result = engine.search(board, make_limit(depth=8))
    assert result.mate_in == 3  # plies, as the engine counts
    fields = info_fields(board, result)
    assert (fields["win_in"], fields["score_text"]) == (2, "win in 2")
    # the command line
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["analyse", "--fen", FOUR_KINGS, "--depth", "8", "--hash", "4"]) == 0
    assert "best move 1-15  score win in 2" in out.getvalue()
    # the Hub protocol
    hub_out = io.StringIO()
    session = HubSession(lambda h, r: open_engine(h, r), io.StringIO(), hub_out)
    session.handle("pos pos=" + "B" + "B" * 4 + "e" * 24 + "W" + "e" * 3)
    session.handle("level depth=8")
    session.handle("go analyze")
    assert session.wait(30)
    infos = [line for line in hub_out.getvalue().splitlines() if line.startswith("info")]
    assert infos and "win-in=2 " in infos[-1]


# ----------------------------------------------------------------- draw policy
MIDDLEGAME = "B:W19,20,21,22,23,24,25,26,27:B1,2,3,4,5,6,7,8,9"


def test_phases_by_material() -> None:
    assert game_phase(Board()) is Phase.OPENING
    board = Board()
    board.push_notation("11-15")
    assert game_phase(board) is Phase.OPENING
    assert game_phase(Board(MIDDLEGAME)) is Phase.MIDDLEGAME
    assert game_phase(Board("B:W19,20,21,22,23,24,25,26,27,28:B1,2,3,4,5,6,7,8,9,K10")) is (
        Phase.MIDDLEGAME  # a king: the opening is over
    )
    assert game_phase(Board("B:W20,21,22,23:B9,10,11,12")) is Phase.ENDGAME
    assert is_dead_draw(Board("W:WK29:BK1")) and is_dead_draw(Board("B:WK29,K30:BK1,K2"))
    assert not is_dead_draw(Board("W:WK29:BK1,K2,K3"))  # three kings can win (R19)
    assert not is_dead_draw(Board("W:WK29:BK1,5"))


def test_policy_without_a_search() -> None:
    assert not accepts_draw(Board(), Color.WHITE, None)
    assert accepts_draw(Board("W:WK29:BK1"), Color.WHITE, None)
    # past the opening the answer needs a search: without one, no
    assert not accepts_draw(Board(MIDDLEGAME), Color.WHITE, None)


@needs_engine
@pytest.mark.parametrize("level", range(1, 11))
def test_engine_refuses_in_the_opening_at_every_level(level: int) -> None:
    """The engine's answer does not depend on its level; before any move and
    after one it declines (issue: it used to accept at level 10 before any move)."""
    engine = open_engine(hash_mb=4, seed=level)
    board = Board()
    assert not decide_draw(engine, board, Color.WHITE).accept
    assert not decide_draw(engine, board, Color.BLACK).accept
    reply = engine.search(board, level_limit(level, move_time=0.05), level=level)
    board.push(reply.move)
    assert not decide_draw(engine, board, Color.BLACK).accept
    assert not decide_draw(engine, board, Color.WHITE).accept


@needs_engine
def test_engine_answers_by_its_evaluation_past_the_opening() -> None:
    engine = open_engine(hash_mb=4)
    depth = make_limit(depth=6)
    # king against king: a dead draw, accepted by both sides
    kk = Board("B:WK29:BK1")
    assert decide_draw(engine, kk, Color.WHITE, depth).accept
    assert decide_draw(engine, kk, Color.BLACK, depth).accept
    # three men against eight kings: clearly lost for White
    lost = Board("B:W28,29,30:BK1,K2,K3,K4,K5,K6,K7,K8")
    white = decide_draw(engine, lost, Color.WHITE, depth)
    black = decide_draw(engine, lost, Color.BLACK, depth)
    assert white.accept and not black.accept
    assert black.score is not None and black.score > 300
    # a middlegame where Black is four men up: Black declines, White accepts
    up = Board("W:W19,20,21,22,23:B1,2,3,4,5,6,7,8,9")
    assert game_phase(up) is Phase.MIDDLEGAME
    assert not decide_draw(engine, up, Color.BLACK, depth).accept
    assert decide_draw(engine, up, Color.WHITE, depth).accept


def test_decision_flips_the_search_score_to_the_engines_side() -> None:
    board = Board(MIDDLEGAME)  # Black to move
    move = board.legal_moves[0]
    info = SearchResult(move, -120, [move], 1, 1, 0.0, None)  # Black's view: Black is worse
    assert draw_decision(board, Color.BLACK, info).accept
    assert not draw_decision(board, Color.WHITE, info).accept
    assert draw_decision(board, Color.WHITE, info).score == 120


# ----------------------------------------------------------------- opening an engine
def test_without_the_native_core_opening_an_engine_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(facade.core, "_CORE", None)
    assert not facade.native_available()
    with pytest.raises(EngineUnavailable, match="native engine is not built"):
        open_engine(hash_mb=1, rules=RuleSet.apca())
    # what needs no engine still works
    assert not decide_draw(_Unusable(), Board(), Color.WHITE).accept


class _Unusable:
    def search(
        self,
        board: Board,
        limit: object,
        on_info: Callable[[SearchInfo], None] | None = None,
        level: int | None = None,
    ) -> SearchInfo:
        raise AssertionError("no search is needed in the opening")

    def stop(self) -> None:
        pass


@needs_engine
def test_open_engine_refuses_bad_tables_and_weights(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="hash table size"):
        open_engine(hash_mb=0)
    with pytest.raises(ValueError, match="unknown evaluation weight"):
        open_engine(hash_mb=1, weights={"nope": 1})
    with pytest.raises(ValueError, match="bad evaluation weights"):
        # deliberately not a number: the check under test
        open_engine(hash_mb=1, weights={"king": "x"})  # type: ignore[dict-item]
    path = tmp_path / "w.json"
    path.write_text('{"king": 140}', encoding="utf-8")
    assert open_engine(hash_mb=1, weights=path).weights["king"] == 140
    path.write_text("[" * 5000, encoding="utf-8")
    with pytest.raises(ValueError, match="not JSON"):
        open_engine(hash_mb=1, weights=path)
