"""Pairing systems: Berger round robins, FIDE Dutch Swiss rounds, arena matchings."""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from poolcheckers.server.tournaments import systems
from poolcheckers.server.tournaments.systems import (
    ArenaPlayer,
    NoPairing,
    Pair,
    PairResult,
    arena_pairs,
    round_robin_rounds,
    round_robin_schedule,
    swiss_round,
)


def names(n: int) -> list[str]:
    return [f"p{i:02d}" for i in range(1, n + 1)]


def test_round_one_of_a_six_player_round_robin_is_fides_berger_table() -> None:
    # FIDE Handbook C.05 Annex 1, 5 or 6 players, round 1: 1-6, 2-5, 3-4
    first = round_robin_schedule(names(6), double=False)[0]
    assert [(p.first, p.second) for p in first] == [
        ("p01", "p06"),
        ("p02", "p05"),
        ("p03", "p04"),
    ]


@given(st.integers(min_value=2, max_value=24), st.booleans())
def test_every_pair_meets_once_per_cycle_and_everyone_plays_once_a_round(
    n: int, double: bool
) -> None:
    players = names(n)
    rounds = round_robin_schedule(players, double=double)
    assert len(rounds) == round_robin_rounds(n, double=double)
    met: Counter[frozenset[str]] = Counter()
    firsts: Counter[tuple[str, str]] = Counter()
    for r in rounds:
        seen = [p for pair in r for p in pair.players()]
        assert sorted(seen) == sorted(players)  # each once a round, byes included
        assert sum(p.bye for p in r) == n % 2
        for pair in r:
            if pair.second is not None:
                met[frozenset(pair.players())] += 1
                firsts[(pair.first, pair.second)] += 1
    cycles = 2 if double else 1
    assert met == {frozenset(c): cycles for c in combinations(players, 2)}
    if double:  # the second meeting swaps who begins
        assert all(firsts[(b, a)] == 1 for (a, b) in firsts)


def test_an_odd_round_robin_gives_each_player_one_bye() -> None:
    rounds = round_robin_schedule(names(5), double=False)
    byes = Counter(p.first for r in rounds for p in r if p.bye)
    assert byes == dict.fromkeys(names(5), 1)


def test_a_round_robin_of_more_than_24_is_refused() -> None:
    with pytest.raises(ValueError, match="2 to 24 players"):
        round_robin_schedule(names(25), double=False)


def play_swiss(
    n: int, rounds: int, seed: int, forbidden: tuple[tuple[str, str], ...] = ()
) -> list[list[Pair]]:
    rng = random.Random(seed)
    players = names(n)
    ratings = {p: 2000 - 10 * i for i, p in enumerate(players)}
    history: list[PairResult] = []
    out = []
    for number in range(1, rounds + 1):
        pairs = swiss_round(
            players, ratings, history, round_number=number, total_rounds=rounds, forbidden=forbidden
        )
        out.append(pairs)
        for p in pairs:
            if p.second is None:
                history.append(PairResult(number, p.first, None, 1.0, 0.0))
            else:
                a = rng.choice((0.0, 0.5, 0.5, 1.0))  # checkers: many draws
                history.append(PairResult(number, p.first, p.second, a, 1.0 - a))
    return out


@settings(max_examples=15, deadline=None)
@given(st.integers(min_value=4, max_value=20), st.integers(min_value=0, max_value=10**6))
def test_swiss_rounds_never_repeat_a_pairing_nor_give_a_second_bye(n: int, seed: int) -> None:
    rounds = play_swiss(n, min(5, n // 2), seed)
    met: set[frozenset[str]] = set()
    byes: Counter[str] = Counter()
    for r in rounds:
        seen = [p for pair in r for p in pair.players()]
        assert sorted(seen) == sorted(names(n))
        for pair in r:
            if pair.second is None:
                byes[pair.first] += 1
            else:
                key = frozenset(pair.players())
                assert key not in met
                met.add(key)
    assert all(count == 1 for count in byes.values())


def test_swiss_round_one_pairs_top_half_against_bottom_half() -> None:
    pairs = swiss_round(names(8), {p: 0 for p in names(8)}, [], round_number=1, total_rounds=5)
    assert {frozenset(p.players()) for p in pairs} == {
        frozenset({"p01", "p05"}),
        frozenset({"p02", "p06"}),
        frozenset({"p03", "p07"}),
        frozenset({"p04", "p08"}),
    }


def test_a_forbidden_pair_is_never_paired() -> None:
    forbidden = (("p01", "p05"), ("p02", "p06"))
    for r in play_swiss(8, 4, 7, forbidden):
        for p in r:
            assert frozenset(p.players()) not in {frozenset(f) for f in forbidden}


def test_a_late_joiner_is_paired_with_no_history() -> None:
    history = [PairResult(1, "p01", "p02", 1.0, 0.0), PairResult(1, "p03", "p04", 0.5, 0.5)]
    pairs = swiss_round(names(5), {}, history, round_number=2, total_rounds=4)
    assert sorted(p for pair in pairs for p in pair.players()) == names(5)
    assert sum(pair.bye for pair in pairs) == 1


def test_when_everyone_has_met_no_swiss_pairing_exists() -> None:
    history = [PairResult(1, "p01", "p02", 1.0, 0.0)]
    with pytest.raises(NoPairing):
        swiss_round(["p01", "p02"], {}, history, round_number=2, total_rounds=2)


def test_arena_pairs_neighbours_in_rank_and_avoids_the_last_opponent() -> None:
    free = [
        ArenaPlayer("a", 1, 1500, recent=("b",)),
        ArenaPlayer("b", 2, 1500, recent=("a",)),
        ArenaPlayer("c", 3, 1500),
        ArenaPlayer("d", 4, 1500),
    ]
    pairs = arena_pairs(free, random.Random(1))
    assert {frozenset(p.players()) for p in pairs} == {frozenset("ac"), frozenset("bd")}


def test_arena_pairs_the_last_opponent_again_rather_than_leaving_both_waiting() -> None:
    free = [ArenaPlayer("a", 1, 1500, recent=("b",)), ArenaPlayer("b", 2, 1500, recent=("a",))]
    assert [frozenset(p.players()) for p in arena_pairs(free)] == [frozenset("ab")]


def test_in_an_arena_the_player_who_began_more_games_moves_second() -> None:
    free = [ArenaPlayer("a", 1, 1500, firsts=2), ArenaPlayer("b", 2, 1500, firsts=-1)]
    assert arena_pairs(free) == [Pair("b", "a")]


@given(st.lists(st.integers(min_value=800, max_value=2500), min_size=0, max_size=60))
@settings(max_examples=30, deadline=None)
def test_an_arena_matching_pairs_everyone_but_at_most_one_and_nobody_twice(
    ratings: list[int],
) -> None:
    free = [ArenaPlayer(f"u{i}", i + 1, r) for i, r in enumerate(ratings)]
    pairs = arena_pairs(free, random.Random(0))
    seen = [p for pair in pairs for p in pair.players()]
    assert len(seen) == len(set(seen))
    assert len(seen) == len(free) - len(free) % 2


def test_a_big_swiss_field_is_paired_quickly_and_within_the_absolute_criteria() -> None:
    # 60 players: pairing-core's kernel pairs first; the criteria are checked each round
    rounds = play_swiss(60, 6, seed=3)
    met: set[frozenset[str]] = set()
    for r in rounds:
        assert sorted(p for pair in r for p in pair.players()) == names(60)
        for pair in r:
            key = frozenset(pair.players())
            assert pair.bye or key not in met
            met.add(key)


def test_a_big_field_answer_that_breaks_a_criterion_is_paired_again_by_the_other_engine(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    players = names(40)
    history = [PairResult(1, "p01", "p02", 1.0, 0.0)]

    def rematch(*_args: object) -> list[Pair]:  # a broken answer: p01 meets p02 again
        rest = zip(players[2::2], players[3::2], strict=True)
        return [Pair("p01", "p02")] + [Pair(a, b) for a, b in rest]

    monkeypatch.setattr(systems, "_pairing_core_round", rematch)
    pairs = swiss_round(players, {}, history, round_number=2, total_rounds=5)
    assert frozenset(("p01", "p02")) not in {frozenset(p.players()) for p in pairs}
    assert sorted(p for pair in pairs for p in pair.players()) == sorted(players)
