"""Player pages: results, filters, head-to-head, rating history and its plot, leaderboard."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import TypedDict

import pytest

from poolcheckers.server.domain_errors import CommunityError
from poolcheckers.server.games.timecontrol import Category
from poolcheckers.server.ratings.model import (
    LICHESS,
    Glicko,
    MemoryRatingStore,
    Perf,
    RatedResult,
    apply_result,
)
from poolcheckers.server.ratings.players import (
    HistoryPoint,
    PlayerResult,
    Record,
    ScoredGame,
    head_to_head,
    leaderboard,
    matches_filter,
    rating_history,
    rating_history_svg,
    result_for,
)

DAY = 86_400.0


def game(
    gid: str,
    black: str | None,
    white: str | None,
    score: float | None,
    category: Category | None = Category.BLITZ,
    rated: bool = True,
) -> ScoredGame:
    names = {"u1": "Ann", "u2": "Bob", "u3": "Cy", None: "Anonymous"}
    return ScoredGame(
        gid,
        category,
        rated,
        black,
        white,
        names.get(black, "Engine level 5"),
        names.get(white, "Engine level 5"),
        score,
        0.0 if score is not None else None,
    )


GAMES = [
    game("g1", "u1", "u2", 1.0),
    game("g2", "u2", "u1", 1.0),
    game("g3", "u1", "u2", 0.5, Category.RAPID),
    game("g4", "u1", None, 0.0, Category.BULLET, rated=False),
    game("g5", "u3", "u1", None),  # running
    game("g6", "u1", "u3", None),  # aborted
]


def test_results_from_either_side() -> None:
    assert [result_for(g, "u1") for g in GAMES] == ["win", "loss", "draw", "loss", None, None]
    assert result_for(GAMES[0], "u2") == "loss"
    with pytest.raises(CommunityError, match="did not play game g1"):
        result_for(GAMES[0], "u3")


class _Filter(TypedDict, total=False):
    result: PlayerResult
    category: Category
    rated: bool


@pytest.mark.parametrize(
    ("kwargs", "ids"),
    [
        ({}, ["g1", "g2", "g3", "g4", "g5", "g6"]),
        ({"result": "win"}, ["g1"]),
        ({"result": "loss"}, ["g2", "g4"]),
        ({"category": Category.BLITZ}, ["g1", "g2", "g5", "g6"]),
        ({"category": Category.BLITZ, "result": "loss"}, ["g2"]),
        ({"rated": False}, ["g4"]),
    ],
)
def test_filters(kwargs: _Filter, ids: list[str]) -> None:
    assert [g.game_id for g in GAMES if matches_filter(g, "u1", **kwargs)] == ids
    assert not any(matches_filter(g, "u9") for g in GAMES)


def test_head_to_head() -> None:
    rows = head_to_head(GAMES, "u1")
    assert [(h.opponent, h.opponent_id, str(h.record)) for h in rows] == [
        ("Bob", "u2", "+1 =1 -1"),
        ("Anonymous", None, "+0 =0 -1"),
    ]
    assert rows[0].record.games == 3 and rows[0].record.score == 1.5


def test_record_adds() -> None:
    assert Record().add("win").add("draw").add("loss").add("loss") == Record(1, 1, 2)


def test_rating_history_follows_every_rated_game() -> None:
    store = MemoryRatingStore()
    for i, score in enumerate([1.0, 1.0, 0.0, 0.5]):
        apply_result(store, RatedResult(f"g{i}", Category.BLITZ, "u1", "u2", score, i * DAY))
    apply_result(store, RatedResult("r", Category.RAPID, "u2", "u1", 1.0, 9 * DAY))
    history = rating_history(store.history, "u1", Category.BLITZ)
    assert [p.at for p in history] == [0.0, DAY, 2 * DAY, 3 * DAY]
    assert history[0].rating > 1500 and history[2].rating < history[1].rating
    assert [p.rating for p in history] == [
        u.black_after.glicko.rating for u in store.history if u.category is Category.BLITZ
    ]
    bob = rating_history(store.history, "u2", Category.RAPID)
    assert len(bob) == 1 and bob[0].rating > 1500
    assert rating_history(store.history, "u3", Category.BLITZ) == []


def test_the_history_plot_is_an_svg_with_one_line_per_category() -> None:
    histories = {
        Category.BLITZ: [HistoryPoint(i * DAY, 1500 + 10 * i, 200 - i) for i in range(5)],
        Category.RAPID: [HistoryPoint(2 * DAY, 1480, 300)],
    }
    svg = rating_history_svg(histories, title="Ann <script>")
    root = ET.fromstring(svg)
    assert root.tag.endswith("svg")
    assert "blitz" in svg and "rapid" in svg and "classical" not in svg
    assert "<script>" not in svg  # the title is escaped
    empty = rating_history_svg({})
    assert "no rated games yet" in empty


def test_leaderboard_ranks_only_settled_active_ratings() -> None:
    now = 400 * DAY
    perfs = [
        ("Ann", Perf(Glicko(1900, 50), 100, now - DAY)),
        ("Bob", Perf(Glicko(2100, 50), 100, now - 300 * DAY)),  # idle: RD grew past 75
        ("Cy", Perf(Glicko(2000, 140), 8, now - DAY)),  # provisional
        ("di", Perf(Glicko(1800.2, 60), 40, now)),
        ("Di2", Perf(Glicko(1800.7, 60), 40, now)),
    ]
    assert LICHESS.live_deviation(perfs[1][1], now) > 75
    board = leaderboard(perfs, now)
    assert [(e.rank, e.username, e.rating) for e in board] == [
        (1, "Ann", 1900),
        (2, "Di2", 1800),
        (3, "di", 1800),
    ]
    assert leaderboard(perfs, now, limit=1)[0].username == "Ann"
    assert board[0].games == 100 and board[0].deviation == 50
