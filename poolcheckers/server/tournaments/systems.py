"""Who plays whom: the three pairing systems of tournaments, behind the project's
own small interface (players are keys, a pairing is a :class:`Pair`).

- Round robin: the FIDE Berger tables (caissify-pairings' ``berger_round``), odd
  fields with a bye a round, double round robin with colours reversed.
- Swiss: the FIDE Dutch system (caissify-pairings' ``dutch`` engine, checked by its
  authors against bbpPairings; pairing-core's Dutch kernel first in big fields, see
  :func:`swiss_round`); this module only derives the history the engines ask for
  (scores, colours, floats, byes, who has met) from the results.
- Arena: a maximum-weight matching (networkx) of the players free at the moment,
  near in rank and rating, away from their last opponents.

Colours: the chess libraries speak of White as the side that moves first; in pool
Black moves first (R3), so a library's "white" is this project's ``first``.
"""

from __future__ import annotations

import random
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import networkx as nx
from caissify_pairings import MissingFloatHistoryWarning, generate_pairings
from caissify_pairings.engines.round_robin import berger_round
from pairing_core import (
    DUTCH_TILL2026_COMPAT,
    CanonicalPlayer,
    CanonicalRequest,
    ConstraintSet,
    ExecutionBudgets,
    PairingError,
    pair_canonical,
)

#: the largest round robin (a division of the APCA national has far fewer)
MAX_ROUND_ROBIN = 24


class NoPairing(Exception):
    """No pairing of the round respects the rules (every pair has met, say)."""


@dataclass(frozen=True, slots=True)
class Pair:
    """One pairing of a round: ``first`` moves first (Black, R3) in its first game
    (in a two-game match the second game swaps colours); ``second`` is None for a bye."""

    first: str
    second: str | None

    @property
    def bye(self) -> bool:
        return self.second is None

    def players(self) -> tuple[str, ...]:
        return (self.first,) if self.second is None else (self.first, self.second)


# ----------------------------------------------------------------------------- round robin


def round_robin_rounds(players: int, *, double: bool) -> int:
    """How many rounds a round robin of ``players`` has (an odd field adds a bye a round).

    >>> round_robin_rounds(6, double=False), round_robin_rounds(5, double=False)
    (5, 5)
    >>> round_robin_rounds(4, double=True)
    6
    """
    even = players + players % 2
    return (even - 1) * (2 if double else 1)


def round_robin_schedule(players: Sequence[str], *, double: bool) -> list[list[Pair]]:
    """Every round of a round robin of ``players`` (in seeding order: the first is
    Berger number 1), from the FIDE Berger tables; with ``double`` the same rounds
    again with colours reversed.  In an odd field the player who would meet the
    phantom sits out (a bye, listed last).

    >>> [[(p.first, p.second) for p in r] for r in round_robin_schedule("abcd", double=False)]
    [[('a', 'd'), ('b', 'c')], [('d', 'c'), ('a', 'b')], [('b', 'd'), ('c', 'a')]]
    """
    n = len(players)
    if not 2 <= n <= MAX_ROUND_ROBIN:
        raise ValueError(f"a round robin has 2 to {MAX_ROUND_ROBIN} players, not {n}")
    even = n + n % 2
    rounds: list[list[Pair]] = []
    for number in range(1, even):
        games: list[Pair] = []
        byes: list[Pair] = []
        for first, second in berger_round(even, number):
            if first > n:  # the phantom of an odd field: its opponent sits out
                byes.append(Pair(players[second - 1], None))
            elif second > n:
                byes.append(Pair(players[first - 1], None))
            else:
                games.append(Pair(players[first - 1], players[second - 1]))
        rounds.append(games + byes)
    if double:
        rounds += [[p if p.second is None else Pair(p.second, p.first) for p in r] for r in rounds]
    return rounds


# ----------------------------------------------------------------------------- Swiss


@dataclass(frozen=True, slots=True)
class PairResult:
    """A pairing of an earlier round as the Swiss history needs it: ``first_points``
    and ``second_points`` are the points each scored in it (all its games; a bye's
    points for a bye); ``played`` is False for a forfeit (it is not a game for the
    colours or the floats, FIDE C.04.A)."""

    round: int
    first: str
    second: str | None
    first_points: float
    second_points: float
    played: bool = True


def _swiss_entries(
    players: Sequence[str],
    ratings: Mapping[str, int],
    history: Sequence[PairResult],
    rounds_before: int,
) -> list[dict[str, Any]]:
    seeds = {p: i for i, p in enumerate(players, start=1)}
    score = dict.fromkeys(players, 0.0)
    colors = {p: ["none"] * rounds_before for p in players}
    floats = {p: ["none"] * rounds_before for p in players}
    byes = dict.fromkeys(players, 0)
    by_round: dict[int, list[PairResult]] = {}
    for r in history:
        by_round.setdefault(r.round, []).append(r)
    for number in sorted(by_round):
        before = dict(score)
        at = number - 1
        for r in by_round[number]:
            if r.first in score:
                score[r.first] += r.first_points
            if r.second is None:
                if r.first in byes:
                    byes[r.first] += 1
                continue
            if r.second in score:
                score[r.second] += r.second_points
            if not r.played or r.first not in seeds or r.second not in seeds:
                continue  # a forfeit is no game for colours and floats (FIDE C.04.A)
            if 0 <= at < rounds_before:
                colors[r.first][at], colors[r.second][at] = "white", "black"
                a, b = before[r.first], before[r.second]
                if a != b:
                    floats[r.first][at] = "down" if a > b else "up"
                    floats[r.second][at] = "up" if a > b else "down"
    return [
        {
            "id": seeds[p],
            "name": p,
            "score": score[p],
            "rating": max(0, int(ratings.get(p, 0))),
            "starting_number": seeds[p],
            "color_hist": colors[p],
            "float_history": floats[p],
            "bye_count": byes[p],
        }
        for p in players
    ]


def swiss_round(
    players: Sequence[str],
    ratings: Mapping[str, int],
    history: Sequence[PairResult],
    *,
    round_number: int,
    total_rounds: int,
    forbidden: Iterable[tuple[str, str]] = (),
    bye_points: float = 1.0,
) -> list[Pair]:
    """The pairings of Swiss round ``round_number`` (of ``total_rounds``) among
    ``players`` (those still in, in seeding order), by the FIDE Dutch system: no
    pair meets twice, the ``forbidden`` pairs never meet (FIDE's forbidden
    pairings), each player's score, colours, floats and byes come from ``history``
    (late joiners have none).  An odd field gives one bye of ``bye_points`` (listed
    last), not twice to one player.  :class:`NoPairing` when no pairing exists.

    Two implementations of the Dutch system are used: caissify-pairings (checked
    by its authors against bbpPairings) pairs fields below :data:`LARGE_FIELD`; in
    bigger fields its hundred-odd weighted matchings in pure Python take minutes a
    round (200 players: 140 to 300 s, benchmarks/README.md), so pairing-core's Dutch
    kernel pairs them first (a fraction of a second), its answer checked against the
    absolute criteria below, and caissify-pairings pairs the round if it fails."""
    forbidden = list(forbidden)
    if len(players) >= LARGE_FIELD:
        try:
            pairs = _pairing_core_round(players, ratings, history, round_number, forbidden)
            if _absolute_criteria_hold(pairs, players, history, forbidden):
                return pairs
        except NoPairing:
            pass  # pairing-core found none within its budget: the other engine looks
    return _caissify_round(
        players,
        ratings,
        history,
        round_number=round_number,
        total_rounds=total_rounds,
        forbidden=forbidden,
        bye_points=bye_points,
    )


#: a Swiss field this big is paired by pairing-core first (see :func:`swiss_round`)
LARGE_FIELD = 40
#: the time pairing-core may take on a big field before the other engine is asked
PAIRING_CORE_SECONDS = 20.0


def _absolute_criteria_hold(
    pairs: list[Pair],
    players: Sequence[str],
    history: Sequence[PairResult],
    forbidden: Sequence[tuple[str, str]],
) -> bool:
    """FIDE C.04.1's absolute criteria on a round: everyone once, no second meeting
    (nor a forbidden one), one bye at most and only for an odd field, not to a
    player who already had one."""
    seen = [p for pair in pairs for p in pair.players()]
    if sorted(seen) != sorted(players):
        return False
    met = {frozenset((r.first, r.second)) for r in history if r.second is not None}
    met |= {frozenset(f) for f in forbidden}
    if any(frozenset(p.players()) in met for p in pairs if p.second is not None):
        return False
    byes = [p.first for p in pairs if p.second is None]
    had = {r.first for r in history if r.second is None}
    return len(byes) == len(players) % 2 and not set(byes) & had


def _pairing_core_round(
    players: Sequence[str],
    ratings: Mapping[str, int],
    history: Sequence[PairResult],
    round_number: int,
    forbidden: Sequence[tuple[str, str]],
) -> list[Pair]:
    seeds = {p: i for i, p in enumerate(players, start=1)}
    entries = _swiss_entries(players, ratings, history, round_number - 1)
    code = {"white": "w", "black": "b", "none": "-", "up": "U", "down": "D"}
    met: dict[str, set[int]] = {p: set() for p in players}
    for r in history:
        if r.second is not None and r.first in seeds and r.second in seeds:
            met[r.first].add(seeds[r.second])
            met[r.second].add(seeds[r.first])
    request = CanonicalRequest(
        players=tuple(
            CanonicalPlayer(
                id=int(e["id"]),
                pairing_no=int(e["id"]),
                rating=int(e["rating"]),
                points=float(e["score"]),
                color_hist="".join(code[c] for c in e["color_hist"]),
                opponents=tuple(sorted(met[str(e["name"])])),
                received_bye=int(e["bye_count"]) > 0,
                float_hist="".join(code[f] for f in e["float_history"]),
            )
            for e in entries
        ),
        ruleset=DUTCH_TILL2026_COMPAT,
        round_number=round_number,
        constraints=ConstraintSet(
            forbidden_pairs=tuple(
                (seeds[a], seeds[b]) for a, b in forbidden if a in seeds and b in seeds
            )
        ),
        budgets=ExecutionBudgets(wall_clock_seconds=PAIRING_CORE_SECONDS),
    )
    try:
        result = pair_canonical(request)
    except PairingError as error:
        raise NoPairing(str(error)) from error
    by_seed = {i: p for p, i in seeds.items()}
    games = [
        Pair(by_seed[b.white_id], by_seed[b.black_id])
        for b in result.pairings
        if b.black_id is not None
    ]
    byes = [Pair(by_seed[b.white_id], None) for b in result.pairings if b.black_id is None]
    return games + byes


def _caissify_round(
    players: Sequence[str],
    ratings: Mapping[str, int],
    history: Sequence[PairResult],
    *,
    round_number: int,
    total_rounds: int,
    forbidden: Iterable[tuple[str, str]] = (),
    bye_points: float = 1.0,
) -> list[Pair]:
    """caissify-pairings' Dutch round (the forbidden pairs are given to the engine
    as if they had met)."""
    if len(players) < 2:
        raise NoPairing("a Swiss round needs at least 2 players")
    seeds = {p: i for i, p in enumerate(players, start=1)}
    previous: set[tuple[int, int]] = set()
    for r in history:
        if r.second is not None and r.first in seeds and r.second in seeds:
            previous.add((seeds[r.first], seeds[r.second]))
    for a, b in forbidden:
        if a in seeds and b in seeds:
            previous.add((seeds[a], seeds[b]))
    entries = _swiss_entries(players, ratings, history, round_number - 1)
    try:
        with warnings.catch_warnings():
            # after a first round of byes and forfeits alone there are no floats to give
            warnings.simplefilter("ignore", MissingFloatHistoryWarning)
            rows = generate_pairings(
                "dutch",
                entries,
                previous,
                round_number,
                max(total_rounds, round_number),
                bye_value=bye_points,
            )
    except (ValueError, RuntimeError) as error:
        raise NoPairing(str(error)) from error
    by_seed = {i: p for p, i in seeds.items()}
    games: list[Pair] = []
    byes: list[Pair] = []
    for row in sorted(rows, key=lambda row: int(row["table"])):
        black = row.get("black_id")
        if black is None:
            byes.append(Pair(by_seed[int(row["white_id"])], None))
        else:
            games.append(Pair(by_seed[int(row["white_id"])], by_seed[int(black)]))
    if len(byes) > len(players) % 2:
        # the engine's last resort when everyone left has met: byes all round
        raise NoPairing(f"no pairing of round {round_number} avoids a second meeting")
    if round_number == 1:
        # the engine's first round is the plain top-half-against-bottom-half split,
        # which does not look at forbidden pairs: transpose the lower half (FIDE C.04.3
        # transpositions) until no forbidden pair is left
        games = _transpose_forbidden(games, {frozenset(f) for f in forbidden})
    return games + byes


def _transpose_forbidden(games: list[Pair], banned: set[frozenset[str]]) -> list[Pair]:
    games = list(games)
    for i, pair in enumerate(games):
        if frozenset(pair.players()) not in banned:
            continue
        order = sorted(range(len(games)), key=lambda j: (abs(j - i), j))
        for j in order[1:]:
            other = games[j]
            a, b = Pair(pair.first, other.second), Pair(other.first, pair.second)
            if frozenset(a.players()) not in banned and frozenset(b.players()) not in banned:
                games[i], games[j] = a, b
                break
        else:
            raise NoPairing(f"{pair.first} and {pair.second} may not meet, and nobody can swap")
    return games


# ----------------------------------------------------------------------------- arena


@dataclass(frozen=True, slots=True)
class ArenaPlayer:
    """A player of an arena free to play now: ``rank`` in the standings (1 = first),
    ``rating``, ``recent`` the last opponents (most recent first), and ``firsts``
    how many more games they began (as Black) than second."""

    key: str
    rank: int
    rating: int
    recent: tuple[str, ...] = ()
    firsts: int = 0


#: how far apart in rank two free arena players may be paired (the matching looks at
#: this many neighbours each way, which keeps it fast with hundreds free at once)
ARENA_WINDOW = 12


def _arena_weight(a: ArenaPlayer, b: ArenaPlayer) -> int:
    weight = 1_000_000 - 300 * abs(a.rank - b.rank) - abs(a.rating - b.rating)
    if a.recent[:1] == (b.key,) or b.recent[:1] == (a.key,):
        weight -= 600_000  # the very last opponent again: only when nobody else is free
    elif b.key in a.recent or a.key in b.recent:
        weight -= 200_000
    return weight


def arena_pairs(free: Sequence[ArenaPlayer], rng: random.Random | None = None) -> list[Pair]:
    """Pair as many of the ``free`` arena players as possible, each with someone near
    in rank and rating, not their last opponents when another is free.  The one who
    began fewer games (as Black) begins; a tie is drawn by lot.  A player left over
    waits for the next pairing.

    >>> pairs = arena_pairs([ArenaPlayer("a", 1, 1500, ("b",)), ArenaPlayer("b", 2, 1500, ("a",)),
    ...                      ArenaPlayer("c", 3, 1500), ArenaPlayer("d", 4, 1500)])
    >>> sorted(sorted(p.players()) for p in pairs)
    [['a', 'c'], ['b', 'd']]
    """
    rng = rng or random.Random()
    ordered = sorted(free, key=lambda p: (p.rank, -p.rating, p.key))
    graph: nx.Graph[str] = nx.Graph()
    for i, a in enumerate(ordered):
        for b in ordered[i + 1 : i + 1 + ARENA_WINDOW]:
            graph.add_edge(a.key, b.key, weight=_arena_weight(a, b))
    matching: set[tuple[str, str]] = nx.max_weight_matching(graph, maxcardinality=True)
    by_key = {p.key: p for p in free}
    pairs: list[Pair] = []
    for x, y in sorted(tuple(sorted(edge)) for edge in matching):
        a, b = by_key[x], by_key[y]
        if a.firsts > b.firsts or (a.firsts == b.firsts and rng.random() < 0.5):
            a, b = b, a
        pairs.append(Pair(a.key, b.key))
    return pairs
