"""Glicko-2: Glickman's worked example, the lichess way of running it, exactly-once updates."""

from __future__ import annotations

import math
import threading

import pytest
from hypothesis import given
from hypothesis import strategies as st

from poolcheckers.server.domain_errors import RatingError
from poolcheckers.server.games.timecontrol import Category
from poolcheckers.server.ratings.model import (
    LICHESS,
    Glicko,
    MemoryRatingStore,
    Perf,
    RatedResult,
    RatingSystem,
    apply_result,
    compute_update,
    expected_score,
    glicko2_period,
)

PAPER_PLAYER = Glicko(1500, 200, 0.06)
PAPER_RESULTS = [(Glicko(1400, 30), 1.0), (Glicko(1550, 100), 0.0), (Glicko(1700, 300), 0.0)]
DAY = 86_400.0


def test_glickman_worked_example() -> None:
    """'Example of the Glicko-2 system': r' = 1464.06, RD' = 151.52, σ' = 0.05999."""
    new = glicko2_period(PAPER_PLAYER, PAPER_RESULTS, tau=0.5)
    assert new.rating == pytest.approx(1464.06, abs=0.01)
    assert new.deviation == pytest.approx(151.52, abs=0.005)
    assert new.volatility == pytest.approx(0.05999, abs=1e-5)
    # the paper's Glicko-2 scale figures: μ' = -0.2069, φ' = 0.8722
    assert round(new.mu, 4) == -0.2069
    assert round(new.phi, 4) == 0.8722


def test_glickman_expected_scores() -> None:
    """The paper's table: E = 0.639, 0.432, 0.303 against the three opponents."""
    expected = [round(expected_score(PAPER_PLAYER, opp), 3) for opp, _ in PAPER_RESULTS]
    assert expected == [0.639, 0.432, 0.303]


def test_no_games_only_grows_the_deviation() -> None:
    """Step 6 alone: φ* = √(φ² + σ²) per period; rating and volatility unchanged."""
    new = glicko2_period(PAPER_PLAYER, [], tau=0.5, elapsed_periods=1.0)
    assert new.rating == 1500
    assert new.volatility == 0.06
    assert new.phi == pytest.approx(math.hypot(200 / 173.7178, 0.06))
    assert glicko2_period(PAPER_PLAYER, [], elapsed_periods=0.0) == PAPER_PLAYER


def test_provisional_from_deviation_110() -> None:
    assert Glicko(1500, 110).provisional
    assert Glicko(1500, 110).display() == "1500?"
    assert not Glicko(1500, 109.9).provisional
    assert Glicko(1500.9, 60).display() == "1500"


def test_new_players_start_provisional_and_settle_after_enough_games() -> None:
    """Alternating wins and losses against established 1500 ± 60 players, one an hour:
    the "?" goes with the 11th game (computed with these parameters)."""
    perf = LICHESS.new_perf()
    assert perf.provisional
    t, games = 0.0, 0
    while perf.provisional:
        games += 1
        perf = LICHESS.rate_one(perf, Glicko(1500, 60), 1.0 if games % 2 else 0.0, t)
        t += 3600
    assert games == 11
    assert perf.games == 11


def test_deviation_grows_over_idle_time_like_lichess() -> None:
    """0.21436 rating periods a day: 60 grows to about 110 in a year, and never past 500."""
    perf = Perf(Glicko(1800, 60, 0.06), games=100, last_played=0.0)
    assert LICHESS.live_deviation(perf, at=0.0) == pytest.approx(60)
    assert LICHESS.live_deviation(perf, at=365 * DAY) == pytest.approx(110, abs=1)
    assert LICHESS.live_deviation(perf, at=100 * 365 * DAY) == 500
    # the rating after a long break moves more than after a short one
    short = LICHESS.rate_one(perf, Glicko(1800, 60), 1.0, at=1 * DAY)
    long = LICHESS.rate_one(perf, Glicko(1800, 60), 1.0, at=365 * DAY)
    assert long.glicko.rating - 1800 > short.glicko.rating - 1800 > 0


def test_ratings_are_per_category() -> None:
    store = MemoryRatingStore()
    apply_result(store, RatedResult("g", Category.BLITZ, "ann", "bob", 1.0, 0.0))
    assert store.perf("ann", Category.BLITZ).games == 1
    assert store.perf("ann", Category.RAPID) == LICHESS.new_perf()


def test_apply_result_is_idempotent() -> None:
    store = MemoryRatingStore()
    result = RatedResult("g1", Category.BLITZ, "ann", "bob", 0.5, 100.0)
    first = apply_result(store, result)
    again = apply_result(store, result)
    assert again == first
    assert store.perf("ann", Category.BLITZ) == first.black_after
    assert store.perf("bob", Category.BLITZ).games == 1
    assert len(store.history) == 1


def test_a_second_finish_of_the_same_game_with_another_result_changes_nothing() -> None:
    """Racing finishes (resign v flag v last move): the first result stored wins."""
    store = MemoryRatingStore()
    resigned = RatedResult("g1", Category.BLITZ, "ann", "bob", 0.0, 100.0)
    flagged = RatedResult("g1", Category.BLITZ, "ann", "bob", 1.0, 100.1)
    first = apply_result(store, resigned)
    assert apply_result(store, flagged) == first
    assert store.perf("bob", Category.BLITZ) == first.white_after


def test_racing_threads_change_ratings_exactly_once() -> None:
    store = MemoryRatingStore()
    result = RatedResult("g1", Category.RAPID, "ann", "bob", 1.0, 10.0)
    barrier = threading.Barrier(8)
    updates = []

    def finish() -> None:
        barrier.wait()
        updates.append(apply_result(store, result))

    threads = [threading.Thread(target=finish) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(store.history) == 1
    assert all(u == store.history[0] for u in updates)


def test_concurrent_games_of_one_player_are_all_counted() -> None:
    """A commit that lost the compare-and-set to another game is recomputed, not dropped."""
    store = MemoryRatingStore()
    barrier = threading.Barrier(6)

    def finish(i: int) -> None:
        barrier.wait()
        apply_result(store, RatedResult(f"g{i}", Category.BLITZ, "ann", f"p{i}", 1.0, 10.0 + i))

    threads = [threading.Thread(target=finish, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert store.perf("ann", Category.BLITZ).games == 6
    # each stored update starts from the standing the previous one left
    chain = [u.black_after for u in store.history]
    assert [u.black_before for u in store.history[1:]] == chain[:-1]


def test_commit_refuses_a_stale_update() -> None:
    store = MemoryRatingStore()
    stale = compute_update(
        RatedResult("g2", Category.BLITZ, "ann", "bob", 1.0, 5.0),
        LICHESS.new_perf(),
        LICHESS.new_perf(),
    )
    apply_result(store, RatedResult("g1", Category.BLITZ, "ann", "cat", 1.0, 1.0))
    assert not store.commit(stale)
    assert store.applied("g2") is None


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"black": "ann", "white": "ann"}, "cannot be rated against themselves"),
        ({"black_score": 2.0}, "Black's score is 0, 0.5 or 1"),
        ({"game_id": ""}, "needs its game id"),
    ],
)
def test_bad_rated_results(kwargs: dict[str, object], message: str) -> None:
    values: dict[str, object] = {
        "game_id": "g",
        "category": Category.BLITZ,
        "black": "ann",
        "white": "bob",
        "black_score": 1.0,
        "finished_at": 0.0,
    }
    values.update(kwargs)
    with pytest.raises(RatingError, match=message):
        RatedResult(**values)  # type: ignore[arg-type]  # deliberately bad fields


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -1.0, 0.0])
def test_bad_glicko_values(bad: float) -> None:
    with pytest.raises(RatingError):
        Glicko(1500, bad)


def test_perf_as_in_the_api() -> None:
    assert Perf(Glicko(1612.8, 74.2), games=31).to_dict() == {
        "rating": 1612,
        "rd": 74,
        "games": 31,
        "provisional": False,
    }


glickos = st.builds(
    Glicko,
    st.floats(400, 3000),
    st.floats(45, 500),
    st.floats(0.03, 0.1),
)
perfs = st.builds(Perf, glickos, st.integers(0, 1000), st.one_of(st.none(), st.floats(0, 1e8)))
scores = st.sampled_from([0.0, 0.5, 1.0])


@given(perfs, perfs, scores, st.floats(1e8, 2e8))
def test_updates_stay_in_bounds_and_go_the_right_way(
    black: Perf, white: Perf, score: float, at: float
) -> None:
    system = RatingSystem()
    b, w = system.rate_game(black, white, score, at)
    for before, after, s in ((black, b, score), (white, w, 1 - score)):
        g = after.glicko
        assert system.min_deviation <= g.deviation <= system.max_deviation
        assert 0 < g.volatility <= system.max_volatility
        assert g.rating >= system.min_rating
        assert abs(g.rating - before.glicko.rating) <= system.max_rating_delta + 1e-9
        assert after.games == before.games + 1
        assert after.last_played == at
        if s == 1.0:
            assert g.rating >= before.glicko.rating
        if s == 0.0:
            assert g.rating <= before.glicko.rating or g.rating == system.min_rating


@given(perfs, perfs, scores, st.floats(1e8, 2e8))
def test_colours_do_not_matter(black: Perf, white: Perf, score: float, at: float) -> None:
    b, w = LICHESS.rate_game(black, white, score, at)
    w2, b2 = LICHESS.rate_game(white, black, 1 - score, at)
    assert (b, w) == (b2, w2)


@given(glickos)
def test_a_draw_between_equals_changes_no_rating(g: Glicko) -> None:
    b, w = LICHESS.rate_game(Perf(g), Perf(g), 0.5, 0.0)
    assert b.glicko.rating == pytest.approx(g.rating)
    assert w.glicko.rating == pytest.approx(g.rating)


def test_volatility_rises_after_an_upset_as_step_5_says() -> None:
    """A 1000 ± 30 player beating ten 2000 ± 30 players: Δ² > φ² + v, so step 5 starts
    from B = ln(Δ² − φ² − v) and σ′ rises to 0.06140 (docs/COMMUNITY.md compares this
    with the PyPI glicko2 package, whose f(x) uses μ² for φ² and gives 0.06086)."""
    new = glicko2_period(Glicko(1000, 30, 0.06), [(Glicko(2000, 30), 1.0)] * 10, tau=0.5)
    assert round(new.volatility, 5) == 0.06140
    assert new.rating > 1000
