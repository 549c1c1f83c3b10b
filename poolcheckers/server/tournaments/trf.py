"""A Swiss event as FIDE TRF16, both ways: written for pairing programs and
arbiters (caissify-pairings' writer), and read from a director's file to carry on,
or publish, an event begun elsewhere (caissify-pairings' reader, then every round
checked: each meeting reported by both players, colours opposite, results agreeing).

Conventions: TRF's ``w`` is the side that moves first, Black in pool (R3); a
two-game match is one round entry holding the match's result; byes are ``U`` (the
pairing's bye, a win's points), ``F`` (a full point), ``H`` (half) and ``Z`` (zero).
Plain code: no web server, no database.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from caissify_pairings.trf import TRFError, parse_trf, write_trf

from poolcheckers.server.i18n import M_
from poolcheckers.server.tournaments.model import (
    MAX_SWISS_ROUNDS,
    Entrant,
    TourGame,
    Tournament,
    TournamentError,
)
from poolcheckers.server.tournaments.view import table

#: the largest TRF file read (a 1,000-player, 20-round event is about 230 KB)
MAX_TRF_BYTES = 400_000
#: the longest line read: a 001 line is 91 characters and 10 a round (20: 291)
MAX_TRF_LINE = 91 + 10 * MAX_SWISS_ROUNDS + 40
#: a played result and what the opponent's entry must say
_AGREES = {"1": "0", "0": "1", "=": "=", "W": "L", "L": "W", "D": "D", "+": "-", "-": "+"}
#: the first mover's code -> the winner as the event stores it
_WINNER = {"1": "black", "W": "black", "0": "white", "L": "white", "=": "draw", "D": "draw"}
#: byes and absences: points given (None: not paired that round, nothing stored)
_BYES: dict[str, float | None] = {"U": 1.0, "F": 1.0, "H": 0.5, "Z": None, "-": None, "": None}


@dataclass(frozen=True, slots=True)
class TrfPlayer:
    number: int
    name: str


@dataclass(frozen=True, slots=True)
class TrfMeeting:
    """One round entry: ``first`` moved first (TRF's ``w``); ``second`` None is a bye
    worth ``bye_points``; ``outcome`` as the event stores it ("black", "white",
    "draw", or "none" when both lost by forfeit); ``forfeit`` when decided unplayed."""

    round: int
    first: int
    second: int | None
    outcome: str
    forfeit: bool = False
    bye_points: float = 0.0


@dataclass(frozen=True, slots=True)
class TrfEvent:
    name: str
    total_rounds: int
    played_rounds: int
    players: tuple[TrfPlayer, ...]
    meetings: tuple[TrfMeeting, ...]


def check_size(text: str) -> None:
    """Refuse a file too big to read, before it is parsed: over :data:`MAX_TRF_BYTES`,
    or with a line longer than an event of :data:`MAX_SWISS_ROUNDS` rounds has (the
    parser's work grows with every round entry of a line)."""
    if len(text.encode("utf-8", "surrogatepass")) > MAX_TRF_BYTES:
        raise TournamentError(
            M_("a TRF file may be at most {value} KB", value=MAX_TRF_BYTES // 1000)
        )
    lines = text.splitlines()
    longest = max(range(len(lines)), key=lambda i: len(lines[i]), default=None)
    if longest is not None and len(lines[longest]) > MAX_TRF_LINE:
        raise TournamentError(
            M_(
                "line {line} of the TRF file has {length} characters; a line may have at most {limit} (an event has at most {rounds} rounds)",  # noqa: E501
                line=longest + 1,
                length=len(lines[longest]),
                limit=MAX_TRF_LINE,
                rounds=MAX_SWISS_ROUNDS,
            )
        )


def ready() -> bool:
    """Nothing: a worker process that answers has this module loaded."""
    return True


def _where(p: dict[str, Any], rnd: int) -> str:
    return f"TRF player {p['starting_number']} ({p['name'].strip()}), round {rnd}"


def read(text: str) -> TrfEvent:
    """The event of a TRF16 file, checked round by round; the error names the
    player's line, the round and what is wrong.

    >>> read('001    1      ann       1600     1.0    1     2 w 1')
    Traceback (most recent call last):
    ...
    poolcheckers.server.tournaments.model.TournamentError: not a TRF16 file: Line 1: ...
    """
    check_size(text)
    try:
        parsed = parse_trf(text)
    except TRFError as error:
        raise TournamentError(M_("not a TRF16 file: {error}", error=error)) from error
    players: list[dict[str, Any]] = parsed.get("players") or []
    if len(players) < 2:
        raise TournamentError(M_("a TRF file needs at least two 001 player lines"))
    by_number = {p["starting_number"]: p for p in players}
    if len(by_number) != len(players):
        raise TournamentError(M_("two 001 lines of the TRF file have the same starting number"))
    meetings: list[TrfMeeting] = []
    played = 0
    for p in players:
        for rnd, entry in sorted(p["results"].items()):
            code = str(entry.get("result") or "").upper()
            if code not in ("", "-") or entry.get("opponent"):
                played = max(played, rnd)
            meeting = _meeting(p, rnd, entry, by_number)
            if meeting is not None:
                meetings.append(meeting)
    head = parsed.get("tournament") or {}
    total = int(head.get("total_rounds") or played)
    if not played <= total <= MAX_SWISS_ROUNDS or total < 1:
        raise TournamentError(
            M_(
                "the TRF file's rounds (XXR {total}, {played} played) must be 1 to {MAX_SWISS_ROUNDS} and at least those played",  # noqa: E501
                total=total,
                played=played,
                MAX_SWISS_ROUNDS=MAX_SWISS_ROUNDS,
            )
        )
    name = " ".join(str(head.get("name") or "").split())
    return TrfEvent(
        name=name,
        total_rounds=total,
        played_rounds=played,
        players=tuple(
            TrfPlayer(p["starting_number"], str(p["name"]).strip())
            for p in sorted(players, key=lambda p: p["starting_number"])
        ),
        meetings=tuple(sorted(meetings, key=lambda m: (m.round, m.first))),
    )


def _meeting(
    p: dict[str, Any], rnd: int, entry: dict[str, Any], by_number: dict[int, dict[str, Any]]
) -> TrfMeeting | None:
    """Player ``p``'s entry of round ``rnd``, checked against the opponent's; None for
    an absence, and for the second mover's side of a meeting (stored once)."""
    code = str(entry.get("result") or "").upper()
    opponent = entry.get("opponent")
    if opponent is None:
        if code not in _BYES:
            raise TournamentError(
                M_("{value}: {code} is not a bye (U F H Z)", value=_where(p, rnd), code=repr(code))
            )
        points = _BYES[code]
        if points is None:
            return None
        return TrfMeeting(rnd, p["starting_number"], None, "bye", False, points)
    other = by_number.get(opponent)
    if other is None:
        raise TournamentError(
            M_("{value}: no player has number {opponent}", value=_where(p, rnd), opponent=opponent)
        )
    back = other["results"].get(rnd) or {}
    if back.get("opponent") != p["starting_number"]:
        raise TournamentError(
            M_(
                "{value}: player {opponent} does not report meeting them",
                value=_where(p, rnd),
                opponent=opponent,
            )
        )
    if code not in _AGREES:
        raise TournamentError(
            M_("{value}: {code} is not a TRF result", value=_where(p, rnd), code=repr(code))
        )
    theirs = str(back.get("result") or "").upper()
    if theirs != _AGREES[code] and not (code == "-" and theirs == "-"):
        raise TournamentError(
            M_(
                "{value}: {code} against player {opponent}'s {theirs}",
                value=_where(p, rnd),
                code=repr(code),
                opponent=opponent,
                theirs=repr(theirs),
            )
        )
    colour = entry.get("color")
    if colour not in ("w", "b") or back.get("color") != {"w": "b", "b": "w"}[colour]:
        raise TournamentError(
            M_(
                "{value}: the colours must be w and b, one each (w moves first)",
                value=_where(p, rnd),
            )
        )
    if colour == "b":
        return None
    if code in _WINNER:
        return TrfMeeting(rnd, p["starting_number"], opponent, _WINNER[code])
    outcome = "black" if code == "+" else "white" if theirs == "+" else "none"
    return TrfMeeting(rnd, p["starting_number"], opponent, outcome, True)


def write(t: Tournament, players: list[Entrant], games: list[TourGame]) -> str:
    """The event as FIDE TRF16: one 001 line per player with their round results
    (the module's conventions; ``+``/``-`` for a match decided by forfeit)."""
    seeded = sorted(players, key=lambda p: (p.seed is None, p.seed or 0, p.joined_ms))
    number = {p.user_id: i for i, p in enumerate(seeded, start=1)}
    ranks = {s.player: s for s in table(t, players, games)}
    matches: dict[tuple[int, int | None], list[TourGame]] = {}
    for g in games:
        matches.setdefault((g.round, g.board), []).append(g)
    results: dict[str, dict[int, dict[str, Any]]] = {p.user_id: {} for p in players}
    for (rnd, _board), legs in matches.items():
        first = min(legs, key=lambda g: g.leg)
        if first.white is None:
            points = first.bye_points or 0.0
            code = "U" if points >= t.games_per_pairing else "H" if points else "Z"
            results[first.black][rnd] = {"opponent": None, "result": code}
            continue
        if any(g.outcome is None for g in legs):
            continue
        a, b = first.black, first.white
        pa = sum(_points(g, a) for g in legs)
        pb = sum(_points(g, b) for g in legs)
        forfeit = all(g.forfeit for g in legs)
        for p, o, mine, theirs, color in ((a, b, pa, pb, "w"), (b, a, pb, pa, "b")):
            code = "1" if mine > theirs else "0" if mine < theirs else "="
            if forfeit:
                code = "+" if mine > theirs else "-"
            results[p][rnd] = {"opponent": number[o], "color": color, "result": code}
    entries = [
        {
            "starting_number": number[p.user_id],
            "name": p.username,
            "rating": p.rating,
            "score": ranks[p.user_id].score,
            "rank": ranks[p.user_id].rank,
            "results": results[p.user_id],
        }
        for p in seeded
    ]
    total = t.total_rounds(len(seeded)) or t.round
    head = {"name": t.name, "system": {"swiss": "Dutch"}.get(t.system, t.system)}
    text: str = write_trf(head, entries, max(total, t.round))
    return text + "\n"


def _points(g: TourGame, player: str) -> float:
    if g.outcome == "draw":
        return 0.5
    if g.outcome in ("black", "white"):
        return 1.0 if (g.outcome == "black") == (player == g.black) else 0.0
    return 0.0
