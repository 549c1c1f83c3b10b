"""Standings from stored results: scores, arena streaks and berserk, tie-breaks, crosstable."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from poolcheckers.server.tournaments.standings import (
    ARENA_QUICK_DRAW_PLIES,
    Bye,
    GameResult,
    Outcome,
    Standing,
    crosstable,
    standings,
)


def by_player(rows: list[Standing]) -> dict[str, Standing]:
    return {r.player: r for r in rows}


def test_a_two_game_match_scores_each_game_and_gives_match_points() -> None:
    games = [GameResult(1, "ann", "bob", "black"), GameResult(1, "bob", "ann", "black")]
    rows = by_player(standings("round_robin", ["ann", "bob"], games))
    assert (rows["ann"].score, rows["bob"].score) == (1.0, 1.0)
    assert (rows["ann"].match_points, rows["bob"].match_points) == (1, 1)


def test_a_bye_scores_a_match_won() -> None:
    rows = by_player(standings("swiss", ["ann"], [], [Bye(1, "ann", 2.0)]))
    assert rows["ann"].score == 2.0 and rows["ann"].match_points == 2


def test_a_game_in_play_counts_nothing_yet() -> None:
    rows = by_player(standings("swiss", ["ann", "bob"], [GameResult(1, "ann", "bob", None)]))
    assert rows["ann"].games == rows["bob"].games == 0


def test_head_to_head_breaks_a_round_robin_tie() -> None:
    # ann, bob, cid all on 1 point; ann beat bob, bob beat cid, cid beat ann... a cycle:
    # head-to-head stays level, Sonneborn-Berger stays level, they share first place
    games = [
        GameResult(1, "ann", "bob", "black"),
        GameResult(2, "bob", "cid", "black"),
        GameResult(3, "cid", "ann", "black"),
    ]
    rows = standings("round_robin", ["ann", "bob", "cid"], games)
    assert [r.rank for r in rows] == [1, 1, 1]
    games[2] = GameResult(3, "cid", "ann", "white")  # now ann 2, bob 1, cid 0
    assert [r.player for r in standings("round_robin", ["ann", "bob", "cid"], games)] == [
        "ann",
        "bob",
        "cid",
    ]


def test_sonneborn_berger_counts_points_against_stronger_opponents() -> None:
    # dan and eve both score 1; dan beat the winner ann, eve beat the last, fay
    games = [
        GameResult(1, "ann", "bob", "black"),
        GameResult(1, "ann", "fay", "black"),
        GameResult(1, "dan", "ann", "black"),
        GameResult(1, "eve", "fay", "black"),
    ]
    rows = by_player(standings("swiss", ["ann", "bob", "dan", "eve", "fay"], games))
    assert rows["dan"].tiebreaks["sonneborn_berger"] == 2.0  # ann's 2 points
    assert rows["eve"].tiebreaks["sonneborn_berger"] == 0.0
    assert rows["dan"].rank < rows["eve"].rank


def test_buchholz_cut1_drops_the_weakest_opponent() -> None:
    games = [
        GameResult(1, "ann", "bob", "draw"),
        GameResult(2, "ann", "cid", "draw"),
        GameResult(3, "ann", "dan", "draw"),
        GameResult(4, "bob", "cid", "black"),
        GameResult(5, "bob", "dan", "black"),
    ]
    rows = by_player(standings("swiss", ["ann", "bob", "cid", "dan"], games))
    # ann's opponents: bob 2.5, cid 0.5, dan 0.5 -> cut the lowest 0.5
    assert rows["ann"].tiebreaks["buchholz_cut1"] == 3.0


def test_arena_streak_doubles_after_two_wins_until_a_game_is_not_won() -> None:
    long = ARENA_QUICK_DRAW_PLIES
    sequence: list[Outcome] = ["black", "black", "black", "draw", "black", "white"]
    games = [
        GameResult(0, "ann", f"x{i}", outcome, ended_ms=i, plies=long)
        for i, outcome in enumerate(sequence)
    ]
    rows = by_player(standings("arena", ["ann"], games))
    assert rows["ann"].sheet == [2, 2, 4, 2, 2, 0]
    assert rows["ann"].score == 12 and not rows["ann"].fire


def test_a_berserk_win_earns_an_extra_point_and_a_quick_draw_none() -> None:
    games = [
        GameResult(0, "ann", "bob", "black", ended_ms=1, plies=30, berserk=frozenset({"ann"})),
        GameResult(0, "ann", "bob", "black", ended_ms=2, plies=4, berserk=frozenset({"ann"})),
        GameResult(0, "ann", "bob", "draw", ended_ms=3, plies=6),
    ]
    rows = by_player(standings("arena", ["ann", "bob"], games))
    assert rows["ann"].sheet == [3, 2, 0]


def test_the_crosstable_writes_match_scores_as_pool_players_do() -> None:
    games = [
        GameResult(1, "ann", "bob", "black"),
        GameResult(1, "bob", "ann", "draw"),
        GameResult(2, "ann", "cid", "draw"),
        GameResult(2, "cid", "ann", None),
    ]
    assert crosstable(["ann", "bob", "cid"], games) == [
        ["–", "1½", ""],
        ["½", "–", ""],
        ["", "", "–"],
    ]


outcomes = st.sampled_from(["black", "white", "draw"])


@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5), outcomes), max_size=40))
def test_the_points_handed_out_equal_the_games_finished(
    games_spec: list[tuple[int, int, str]],
) -> None:
    players = [f"p{i}" for i in range(6)]
    games = [
        GameResult(1, players[a], players[b], o)  # type: ignore[arg-type]
        for a, b, o in games_spec
        if a != b
    ]
    rows = standings("swiss", players, games)
    assert sum(r.score for r in rows) == len(games)
    ranks = [r.rank for r in rows]
    assert ranks == sorted(ranks) and ranks[0] == 1
