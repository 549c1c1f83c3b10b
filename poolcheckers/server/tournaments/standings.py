"""Scores, tie-breaks, ranks and the crosstable of a tournament, computed each time
from its stored game results: nothing here is a running total that could drift.

Scoring (docs/TOURNAMENTS.md):

- Round robin and Swiss: a game won scores 1, drawn ½, lost 0 (a game lost on a
  forfeit too); a bye scores the points of a match won (every game of the
  pairing), or what it is stored with (nothing for a withdrawn player's); a game
  that ended with no result scores nothing and is not counted.  Match points (2 a
  match won, 1 a match drawn) are shown beside.
- Arena (lichess's rules): a win 2, a draw 1, a loss 0; after two wins in a row a
  player is *on fire* and scores double until a game is not won; a berserk win
  of at least :data:`BERSERK_MIN_PLIES` plies adds 1; a draw before
  :data:`ARENA_QUICK_DRAW_PLIES` plies scores nothing (no farming by agreed draws).

Tie-breaks, in the order each system uses them (:data:`TIEBREAKS`):
Sonneborn–Berger (points against each opponent × that opponent's score), Buchholz
cut-1 (the opponents' scores but the lowest), head-to-head (points against the
players tied on score), number of wins.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

Outcome = Literal["black", "white", "draw"]
System = Literal["round_robin", "swiss", "arena"]

#: a berserk win counts its extra point from this many plies on
BERSERK_MIN_PLIES = 14
#: an arena draw shorter than this scores nothing
ARENA_QUICK_DRAW_PLIES = 20

TIEBREAKS: dict[System, tuple[str, ...]] = {
    "round_robin": ("head_to_head", "sonneborn_berger", "wins", "buchholz_cut1"),
    "swiss": ("buchholz_cut1", "sonneborn_berger", "wins", "head_to_head"),
    "arena": ("wins", "sonneborn_berger"),
}


@dataclass(frozen=True, slots=True)
class GameResult:
    """One game of a tournament: ``round`` (0 in an arena), its two players,
    ``outcome`` (None while it is played), ``forfeit`` (decided without play),
    ``ended_ms`` (the order of an arena's streaks), ``plies`` played, and the
    players who went ``berserk``."""

    round: int
    black: str
    white: str
    outcome: Outcome | None
    forfeit: bool = False
    ended_ms: int = 0
    plies: int = 0
    berserk: frozenset[str] = frozenset()

    def points(self, player: str) -> float | None:
        """What ``player`` scored in it (1, ½, 0), None while it is played."""
        if self.outcome is None:
            return None
        if self.outcome == "draw":
            return 0.5
        return 1.0 if (self.outcome == "black") == (player == self.black) else 0.0

    def opponent(self, player: str) -> str:
        return self.white if player == self.black else self.black


@dataclass(frozen=True, slots=True)
class Bye:
    """A round in which ``player`` had no opponent and scored ``points``."""

    round: int
    player: str
    points: float


@dataclass(slots=True)
class Standing:
    """One line of the standings."""

    player: str
    rank: int = 0
    score: float = 0.0
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    match_points: int = 0
    #: an arena player on fire (two wins in a row): the next win scores double
    fire: bool = False
    #: an arena player's points game by game (the sheet lichess shows), oldest first
    sheet: list[int] = field(default_factory=list)
    tiebreaks: dict[str, float] = field(default_factory=dict)


def _arena_points(player: str, games: Sequence[GameResult], row: Standing) -> float:
    streak = 0
    total = 0
    for g in sorted(games, key=lambda g: (g.ended_ms, g.round)):
        p = g.points(player)
        if p is None:
            continue
        fire = streak >= 2
        if p == 1.0:
            got = 2 * (2 if fire else 1)
            if player in g.berserk and g.plies >= BERSERK_MIN_PLIES:
                got += 1
            streak += 1
        elif p == 0.5:
            got = 0 if g.plies < ARENA_QUICK_DRAW_PLIES else (2 if fire else 1)
            streak = 0
        else:
            got = 0
            streak = 0
        row.sheet.append(got)
        total += got
    row.fire = streak >= 2
    return float(total)


def _matches(games: Iterable[GameResult]) -> dict[tuple[int, str, str], list[GameResult]]:
    """The games grouped by pairing: (round, one player, the other) in sorted order."""
    out: dict[tuple[int, str, str], list[GameResult]] = {}
    for g in games:
        a, b = sorted((g.black, g.white))
        out.setdefault((g.round, a, b), []).append(g)
    return out


def standings(
    system: System,
    players: Sequence[str],
    games: Sequence[GameResult],
    byes: Sequence[Bye] = (),
) -> list[Standing]:
    """The standings of ``players`` from the tournament's ``games`` and ``byes``:
    ranked by score then the system's tie-breaks (:data:`TIEBREAKS`); players equal
    on all share a rank (listed by name).

    >>> games = [GameResult(1, "ann", "bob", "black"), GameResult(1, "bob", "ann", "draw")]
    >>> [(s.rank, s.player, s.score, s.match_points) for s in standings("round_robin",
    ...     ["ann", "bob"], games)]
    [(1, 'ann', 1.5, 2), (2, 'bob', 0.5, 0)]
    """
    rows = {p: Standing(p) for p in players}
    mine: dict[str, list[GameResult]] = {p: [] for p in players}
    for g in games:
        for p in (g.black, g.white):
            if p in mine:
                mine[p].append(g)
    for p, row in rows.items():
        for g in mine[p]:
            pts = g.points(p)
            if pts is None:
                continue
            row.games += 1
            row.wins += pts == 1.0
            row.draws += pts == 0.5
            row.losses += pts == 0.0
        if system == "arena":
            row.score = _arena_points(p, mine[p], row)
        else:
            row.score = sum(g.points(p) or 0.0 for g in mine[p])
    for bye in byes:
        if bye.player in rows and system != "arena":
            rows[bye.player].score += bye.points
            # a bye worth nothing (a withdrawn player's, a TRF "Z") is no match won
            rows[bye.player].match_points += 2 if bye.points > 0 else 0
    finished = {
        key: match
        for key, match in _matches(games).items()
        if all(g.outcome is not None for g in match)
    }
    for (_round, a, b), match in finished.items():
        pa = sum(g.points(a) or 0.0 for g in match)
        pb = sum(g.points(b) or 0.0 for g in match)
        for p, mine_pts, theirs in ((a, pa, pb), (b, pb, pa)):
            if p in rows:
                rows[p].match_points += 2 if mine_pts > theirs else 1 if mine_pts == theirs else 0
    _tiebreaks(rows, games)
    order = TIEBREAKS[system]

    def key(s: Standing) -> tuple[float, ...]:
        return (s.score, *(s.tiebreaks[t] for t in order))

    ranked = sorted(rows.values(), key=lambda s: (tuple(-x for x in key(s)), s.player.lower()))
    for i, s in enumerate(ranked):
        s.rank = ranked[i - 1].rank if i and key(ranked[i - 1]) == key(s) else i + 1
    return ranked


def _tiebreaks(rows: dict[str, Standing], games: Sequence[GameResult]) -> None:
    score = {p: r.score for p, r in rows.items()}
    against: dict[str, dict[str, float]] = {p: {} for p in rows}
    for g in games:
        for p in (g.black, g.white):
            pts = g.points(p)
            if pts is None or p not in against:
                continue
            o = g.opponent(p)
            against[p][o] = against[p].get(o, 0.0) + pts
    for p, row in rows.items():
        opponents = [o for o in against[p] if o in score]
        sb = sum(pts * score.get(o, 0.0) for o, pts in against[p].items())
        buchholz = sorted(score[o] for o in opponents)
        tied = {o for o in opponents if score[o] == score[p]}
        row.tiebreaks = {
            "sonneborn_berger": sb,
            "buchholz_cut1": sum(buchholz[1:]),
            "head_to_head": sum(pts for o, pts in against[p].items() if o in tied),
            "wins": float(row.wins),
        }


def crosstable(players: Sequence[str], games: Sequence[GameResult]) -> list[list[str]]:
    """A round robin's grid: row ``i``, column ``j`` is what ``players[i]`` scored
    against ``players[j]`` in their games so far, as pool players write it ("1½"
    for a match won 1½–½, "–" on the diagonal, "" before they have played;
    a double round robin's two matches are separated by a space).

    >>> crosstable(["ann", "bob"], [GameResult(1, "ann", "bob", "black"),
    ...                             GameResult(1, "bob", "ann", "draw")])
    [['–', '1½'], ['½', '–']]
    """
    index = {p: i for i, p in enumerate(players)}
    cells: list[list[list[str]]] = [[[] for _ in players] for _ in players]
    for (_round, a, b), match in sorted(_matches(games).items()):
        if a not in index or b not in index or any(g.outcome is None for g in match):
            continue
        for p, o in ((a, b), (b, a)):
            cells[index[p]][index[o]].append(points_text(sum(g.points(p) or 0.0 for g in match)))
    return [
        ["–" if i == j else " ".join(cell) for j, cell in enumerate(row)]
        for i, row in enumerate(cells)
    ]


def points_text(points: float) -> str:
    """Points as pool players write them.

    >>> [points_text(x) for x in (0, 0.5, 1, 1.5, 12.5)]
    ['0', '½', '1', '1½', '12½']
    """
    whole = int(points)
    half = points - whole >= 0.5
    if half:
        return f"{whole}½" if whole else "½"
    return str(whole)
