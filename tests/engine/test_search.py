"""The search: legal results, mates, draw rules (R16, R18, R19), limits, stop, GIL, levels."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable

import pytest

from poolcheckers import Board, Move, RuleSet
from poolcheckers.engine import (
    LEVELS,
    Engine,
    Limit,
    SearchResult,
    bench,
    default_weights,
)

from .helpers import random_playout


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine(hash_mb=8, seed=1)


def _wins_within(board: Board, plies: int) -> bool:
    """Plain minimax over the library: can the side to move leave the opponent
    without a legal move (R16) within ``plies`` plies?"""
    for move in board.legal_moves:
        board.push(move)
        try:
            replies = board.legal_moves
            if not replies:
                return True
            if plies >= 3 and all(_reply_loses(board, r, plies - 1) for r in replies):
                return True
        finally:
            board.pop()
    return False


def _reply_loses(board: Board, reply: Move, plies: int) -> bool:
    board.push(reply)
    try:
        return _wins_within(board, plies - 1)
    finally:
        board.pop()


# Positions whose shortest forced win (R16) the minimax above confirms.
MATES = [
    ("B:W31:B26,K1", 3),
    ("B:W31:BK25,K30", 3),
    ("W:WK13,24,31,19:BK11", 3),
    ("B:W17:BK30,K23", 5),
    ("W:WK22,K14,K9:B3,K32", 5),
    ("B:W23,27:B18,K30,19", 7),
    ("B:W19,28:B9,K23", 7),
]


@pytest.mark.parametrize(("fen", "plies"), MATES)
def test_mate_in_n(engine: Engine, fen: str, plies: int) -> None:
    board = Board(fen)
    assert _wins_within(board, plies)
    if plies > 1:
        assert not _wins_within(board, plies - 2)
    result = engine.search(board, Limit(depth=12))
    assert result.mate_in == plies
    # the chosen move keeps the win: after it the opponent loses within plies-1
    board.push(result.move)
    replies = board.legal_moves
    assert not replies or all(_reply_loses(board, r, plies - 1) for r in replies)


def test_losing_side_sees_the_loss(engine: Engine) -> None:
    board = Board("B:W31:B26,K1")
    board.push(engine.search(board, Limit(depth=8)).move)
    result = engine.search(board, Limit(depth=8))
    assert result.mate_in is not None and result.mate_in < 0


def test_results_are_legal_on_random_positions(engine: Engine) -> None:
    for seed in range(25):
        board = random_playout(seed, 10 + seed * 3)
        if not board.legal_moves:
            continue
        result = engine.search(board, Limit(depth=5))
        assert result.move in board.legal_moves
        replay = board.copy()
        for move in result.pv:
            assert move in replay.legal_moves
            replay.push(move)
        assert result.depth == 5 and result.nodes > 0


def test_game_over_is_refused(engine: Engine) -> None:
    with pytest.raises(ValueError, match="R16"):
        engine.search(Board("W:W:B5"), Limit(depth=3))


def test_r19_draw_and_loss_are_scored() -> None:
    fen = "W:WK1,K5,K9:BK32:C12"
    draw = Engine(hash_mb=2).search(Board(fen), Limit(depth=6))
    assert draw.score == 0 and draw.mate_in is None
    loss_rules = RuleSet(three_kings_limit_result="loss")
    lost = Engine(hash_mb=2).search(Board(fen, loss_rules), Limit(depth=6))
    assert lost.mate_in is not None and lost.mate_in < 0


def test_r18_draw_is_scored() -> None:
    board = Board("B:WK29:BK1,K5:H49")
    assert Engine(hash_mb=2).search(board, Limit(depth=6)).score == 0
    fifteen = Board("B:WK29:BK1,K5:H29", RuleSet(king_only_move_limit=15))
    assert Engine(hash_mb=2).search(fifteen, Limit(depth=6)).score == 0


def test_repetition_is_a_draw_in_search() -> None:
    """Every root move repeats a position of the history: the score is a draw (0)."""
    import poolcheckers._core as core

    rules = RuleSet(king_only_move_limit=40)
    board = Board("B:WK32,K28:BK1,K2,K3,K5:H60", rules)
    ahead = Engine(hash_mb=2).search(board, Limit(depth=4))
    assert ahead.score > 150

    def key(b: Board) -> tuple[int, int, int, int]:
        return b.black, b.white, b.kings, int(b.turn)

    root = key(board)
    history: list[tuple[int, int, int, int]] = []
    for move in board.legal_moves:
        board.push(move)
        history += [root, key(board)]
        board.pop()
    searcher = core.Searcher(2)
    depth, score, _, _, pv, _lines = searcher.search(
        *root, 60, 0, history=history[1:], rules=(False, False, 40, False), depth=4
    )
    assert depth == 4 and score == 0 and pv


def test_engine_rules_must_match_board() -> None:
    engine = Engine(hash_mb=1, rules=RuleSet(crown_during_capture="stop"))
    with pytest.raises(ValueError, match="rules"):
        engine.search(Board(), Limit(depth=1))


def test_fixed_depth_and_nodes_are_deterministic() -> None:
    board = random_playout(7, 20)
    a = Engine(hash_mb=4).search(board, Limit(depth=7))
    b = Engine(hash_mb=4).search(board, Limit(depth=7))
    assert (a.nodes, a.score, a.pv) == (b.nodes, b.score, b.pv)
    c = Engine(hash_mb=4).search(board, Limit(nodes=20_000))
    d = Engine(hash_mb=4).search(board, Limit(nodes=20_000))
    assert (c.nodes, c.move) == (d.nodes, d.move)
    assert c.nodes <= 20_000 + 100


def _last_complete_and_played(
    engine: Engine, board: Board, limit: Limit, multipv: int = 1
) -> tuple[SearchResult, SearchResult]:
    """The result of the last finished depth (``on_info``) and the move played,
    from a cleared engine (a reproducible search)."""
    finished: list[SearchResult] = []
    engine.clear()
    played = engine.search(board, limit, on_info=finished.append, multipv=multipv)
    return finished[-1], played


def test_an_unfinished_depth_plays_the_move_that_beat_the_last_best() -> None:
    """A node (or time) bound inside a depth: when a root move there beat the
    last depth's best (searched first), that move is played, with a legal line
    that starts with it; the depth reported is still the last finished one.
    Node-bounded one-thread searches are deterministic, so the moves changed
    are the same on every run (about 3 in 100 of these bounds change one)."""
    engine = Engine(hash_mb=4)
    changed = 0
    for seed in range(12):
        board = random_playout(seed, 14)
        if len(board.legal_moves) < 2:
            continue
        for nodes in range(2_000, 40_000, 2_000):
            last, played = _last_complete_and_played(engine, board, Limit(nodes=nodes))
            assert played.move in board.legal_moves
            assert played.pv[0] == played.move
            assert len(board.legal_prefix(played.pv)) == len(played.pv)
            assert played.depth == last.depth
            if played.move != last.move:
                changed += 1
    assert changed > 0  # some bounds fell in a depth that changed the move


def test_multipv_keeps_the_last_finished_depth() -> None:
    """With several lines an unfinished depth is dropped whole: the lines
    played are those of the last finished depth."""
    engine = Engine(hash_mb=4)
    board = random_playout(3, 14)
    for nodes in (5_000, 17_000, 29_000):
        last, played = _last_complete_and_played(engine, board, Limit(nodes=nodes), 3)
        assert [line.move for line in played.lines] == [line.move for line in last.lines]
        assert played.move == last.move and played.score == last.score


def test_time_limit_is_respected() -> None:
    start = time.perf_counter()
    result = Engine(hash_mb=4).search(Board(), Limit(time=0.3))
    elapsed = time.perf_counter() - start
    assert elapsed < 0.3 + 0.5
    assert result.depth >= 4


def test_clock_budget() -> None:
    # soft: the clock over 30 moves plus 3/4 of the increment; hard: three times that
    assert Limit(clock=60.0, increment=1.0).soft_budget() == pytest.approx(2.75)
    assert Limit(clock=60.0, increment=1.0).budget() == pytest.approx(8.25)
    assert Limit(clock=1.0).budget() == pytest.approx(0.1, abs=1e-5)
    # never more than a third of what is left, even with a large increment
    assert Limit(clock=3.0, increment=10.0).budget() == pytest.approx(1.0)
    assert Limit(clock=3.0, increment=10.0).soft_budget() <= 0.6
    assert Limit(depth=3).budget() == 0 and Limit(time=1.0).soft_budget() == 0


def test_multipv_gives_distinct_lines_best_first(engine: Engine) -> None:
    board = random_playout(3, 12)
    result = engine.search(board, Limit(depth=7), multipv=3)
    lines = result.lines
    assert 1 <= len(lines) <= 3 and len(lines) == min(3, len(board.legal_moves))
    assert len({line.move for line in lines}) == len(lines)
    assert [line.score for line in lines] == sorted((line.score for line in lines), reverse=True)
    assert lines[0].move == result.move and lines[0].score == result.score
    for line in lines:
        assert board.legal_prefix(line.pv) == line.pv and line.pv[0] == line.move
    assert engine.search(board, Limit(depth=5)).lines == ()  # one line: none listed
    with pytest.raises(ValueError, match="multipv"):
        engine.search(board, Limit(depth=2), multipv=0)


def test_threads_search_legal_moves_and_find_wins() -> None:
    engine = Engine(hash_mb=4, threads=2)
    assert engine.threads == 2
    board = Board("W:WK22,K14,K9:B3,K32")
    assert engine.search(board, Limit(depth=10)).mate_in == 5
    for seed in range(3):
        position = random_playout(seed, 16)
        if position.legal_moves:
            assert engine.search(position, Limit(depth=6)).move in position.legal_moves
    engine.threads = 1
    engine.clear()
    first = engine.search(Board(), Limit(depth=6)).nodes
    engine.clear()
    assert engine.search(Board(), Limit(depth=6)).nodes == first  # one thread: deterministic
    with pytest.raises(ValueError, match="threads"):
        Engine(hash_mb=1, threads=65)


def test_two_threads_report_rising_depths_and_answer_with_the_deepest() -> None:
    """Lazy SMP: a depth a helper completes first is taken from it, so the
    reported depths rise (some may be skipped) up to the limit, every report
    has a legal line, and the answer is the deepest one."""
    engine = Engine(hash_mb=8, threads=2)
    for seed in range(4):
        board = random_playout(seed, 8) if seed else Board()
        if not board.legal_moves:
            continue
        seen: list[SearchResult] = []
        result = engine.search(board, Limit(depth=14), on_info=seen.append)
        depths = [r.depth for r in seen]
        assert depths == sorted(set(depths))
        assert result.depth == 14 and seen[-1].depth == 14
        assert result.move == seen[-1].move and result.pv == seen[-1].pv
        for r in seen:
            assert board.legal_prefix(r.pv) == r.pv and r.pv[0] == r.move


def test_two_threads_stop_and_time_limit() -> None:
    engine = Engine(hash_mb=8, threads=2)
    timer = threading.Timer(0.3, engine.stop)
    timer.start()
    result = engine.search(Board(), Limit(depth=100))
    timer.join()
    assert result.move in Board().legal_moves and result.depth >= 1
    result = engine.search(Board(), Limit(time=0.05))
    assert result.move in Board().legal_moves
    assert Board().legal_prefix(result.pv) == result.pv


def test_on_info_once_per_depth(engine: Engine) -> None:
    seen: list[SearchResult] = []
    engine.search(Board(), Limit(depth=6), on_info=seen.append)
    assert [r.depth for r in seen] == [1, 2, 3, 4, 5, 6]
    assert all(r.move in Board().legal_moves for r in seen)


def test_on_info_exception_propagates(engine: Engine) -> None:
    def boom(result: SearchResult) -> None:
        raise RuntimeError("callback failed")

    with pytest.raises(RuntimeError, match="callback failed"):
        engine.search(Board(), Limit(depth=4), on_info=boom)
    # the engine is usable afterwards
    assert engine.search(Board(), Limit(depth=2)).depth == 2


def test_stop_from_another_thread() -> None:
    engine = Engine(hash_mb=8)
    timer = threading.Timer(0.3, engine.stop)
    timer.start()
    start = time.perf_counter()
    result = engine.search(Board(), Limit(depth=100))
    elapsed = time.perf_counter() - start
    timer.join()
    assert elapsed < 5.0
    assert result.move in Board().legal_moves
    assert result.depth >= 1


def test_search_releases_the_gil() -> None:
    engine = Engine(hash_mb=8)
    counter = 0
    done = threading.Event()
    results: list[SearchResult] = []

    def run() -> None:
        results.append(engine.search(Board(), Limit(time=0.6)))
        done.set()

    thread = threading.Thread(target=run)
    thread.start()
    time.sleep(0.05)  # the search is running
    while not done.is_set():
        counter += 1
    thread.join()
    assert results and results[0].move in Board().legal_moves
    assert counter > 10_000


def test_concurrent_search_on_one_engine_is_refused() -> None:
    engine = Engine(hash_mb=4)
    errors: list[BaseException] = []

    def run() -> None:
        try:
            engine.search(Board(), Limit(time=0.5))
        except RuntimeError as exc:
            errors.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    time.sleep(0.1)
    with pytest.raises(RuntimeError, match="already searching"):
        engine.search(Board(), Limit(depth=2))
    engine.stop()
    thread.join()
    assert not errors


@pytest.mark.parametrize("level", sorted(LEVELS))
def test_levels_play_legal_moves(level: int) -> None:
    engine = Engine(hash_mb=2, seed=level)
    for seed in range(4):
        board = random_playout(100 + seed, 12)
        result = engine.search(board, Limit(time=2.0), level=level)
        assert result.move in board.legal_moves


def test_weak_levels_never_blunder_a_free_win() -> None:
    # A capture of the last piece wins at once (R16): every level takes it.
    for level in sorted(LEVELS):
        engine = Engine(hash_mb=1, seed=level)
        result = engine.search(Board("B:W14,30:B9,1"), Limit(depth=4), level=level)
        assert str(result.move) == "9x18"


def test_weak_levels_vary_and_strong_level_does_not() -> None:
    board = Board()
    weak = {str(Engine(hash_mb=1, seed=s).search(board, level=1).move) for s in range(12)}
    assert len(weak) > 1
    strong = {str(Engine(hash_mb=1, seed=s).search(board, Limit(depth=6)).move) for s in range(3)}
    assert len(strong) == 1


def test_bad_level_and_limits() -> None:
    engine = Engine(hash_mb=1)
    with pytest.raises(ValueError, match="level"):
        engine.search(Board(), Limit(depth=1), level=11)
    with pytest.raises(ValueError, match=r"Limit\.time"):
        Limit(time=-1.0)
    with pytest.raises(ValueError, match=r"Limit\.nodes"):
        Limit(nodes=0)
    with pytest.raises(ValueError, match="hash_mb"):
        Engine(hash_mb=0)


def test_weights_are_settable() -> None:
    defaults = default_weights()
    engine = Engine(hash_mb=1, weights={"king": 200})
    assert engine.weights["king"] == 200
    assert engine.weights["man"] == defaults["man"]
    board = Board("B:W:BK1,2")
    before = engine.evaluate(board)
    engine.set_weights({"king": 300})
    assert engine.evaluate(board) == before + 100
    with pytest.raises(ValueError, match="unknown evaluation weight"):
        engine.set_weights({"queen": 900})
    with pytest.raises(ValueError, match="man"):
        engine.set_weights({"man": 10**9})


def test_evaluation_symmetry() -> None:
    engine = Engine(hash_mb=1)
    rng = random.Random(3)
    for _ in range(40):
        board = random_playout(rng.randrange(10**6), rng.randrange(40))
        mirror = Board(_mirror_fen(board))
        assert engine.evaluate(board) == engine.evaluate(mirror), board.fen()


def _mirror_fen(board: Board) -> str:
    """The same position with colours swapped and the board turned round (square s -> 33-s)."""

    def side(mask: int) -> str:
        return ",".join(
            ("K" if board.kings >> (s - 1) & 1 else "") + str(33 - s)
            for s in range(1, 33)
            if mask >> (s - 1) & 1
        )

    turn = "W" if int(board.turn) == 0 else "B"
    return f"{turn}:W{side(board.black)}:B{side(board.white)}"


def test_bench_signature_is_stable() -> None:
    a, b = bench(6), bench(6)
    assert a.nodes == b.nodes and a.nodes > 1000 and a.depth == 6


def test_level_search_honours_the_time_limit() -> None:
    engine = Engine(hash_mb=4, seed=5)
    board = random_playout(11, 30)
    start = time.perf_counter()
    result = engine.search(board, Limit(time=0.05), level=9)
    assert time.perf_counter() - start < 1.0
    assert result.move in board.legal_moves and result.nodes > 0


def test_known_draws_evaluate_to_zero() -> None:
    engine = Engine(hash_mb=1)
    for fen in ["B:WK1:BK5,K9", "W:WK1:BK5,K9", "B:WK1,K2:BK30", "W:WK10:BK20"]:
        assert engine.evaluate(Board(fen)) == 0, fen


def test_wrong_argument_types() -> None:
    # each call deliberately passes a wrong type: the native module's checks under test
    engine = Engine(hash_mb=1)
    with pytest.raises(TypeError, match="Board"):
        engine.search("B:W21:B1", Limit(depth=1))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="Limit"):
        engine.search(Board(), 0.5)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="Board"):
        engine.evaluate(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        engine.set_weights({"king": "big"})  # type: ignore[dict-item]


def test_changing_rules_forgets_the_hash_table() -> None:
    fen = "W:WK3,K10,11,30:BK6,7,K29,K31"
    stop = RuleSet(crown_during_capture="stop")
    fresh = Engine(hash_mb=2).search(Board(fen, stop), Limit(depth=6))
    engine = Engine(hash_mb=2)
    engine.search(Board(fen), Limit(depth=6))
    reused = engine.search(Board(fen, stop), Limit(depth=6))
    assert (reused.nodes, reused.score, reused.pv) == (fresh.nodes, fresh.score, fresh.pv)


class _Interrupted(Exception):
    pass


def test_a_signal_handler_can_interrupt_a_search() -> None:
    """Ctrl-C (here: a timer signal whose handler raises) stops a long search."""
    import signal

    def handler(signum: int, frame: object) -> None:
        raise _Interrupted

    previous = signal.signal(signal.SIGALRM, handler)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.3)
        start = time.perf_counter()
        with pytest.raises(_Interrupted):
            Engine(hash_mb=8).search(Board(), Limit(depth=90))
        assert time.perf_counter() - start < 10
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def test_engines_in_parallel_threads_match_sequential_results() -> None:
    boards = [random_playout(31, 16), random_playout(32, 24)]
    sequential = [Engine(hash_mb=4).search(b, Limit(depth=9)) for b in boards]
    parallel: dict[int, SearchResult] = {}

    def run(i: int) -> None:
        parallel[i] = Engine(hash_mb=4).search(boards[i], Limit(depth=9))

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i, expected in enumerate(sequential):
        got = parallel[i]
        assert (got.nodes, got.score, got.pv) == (expected.nodes, expected.score, expected.pv)


_SECONDS_LIMITS: dict[str, Callable[[float], Limit]] = {
    "time": lambda seconds: Limit(time=seconds),
    "clock": lambda seconds: Limit(clock=seconds),
    "increment": lambda seconds: Limit(increment=seconds),
}


@pytest.mark.parametrize("field", list(_SECONDS_LIMITS))
def test_limit_times_beyond_the_native_range_are_refused(field: str) -> None:
    limit = _SECONDS_LIMITS[field]
    with pytest.raises(ValueError, match=f"Limit.{field} must be at most"):
        limit(1e10)
    assert getattr(limit(1e8), field) == 1e8
