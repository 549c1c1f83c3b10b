"""A tournament as the API answers it (``GET /api/tournaments/{id}``) and its
standings as CSV (a Swiss event's TRF is ``trf.py``).  Players are named by their
usernames, never by account ids."""

from __future__ import annotations

import csv
import io
from typing import Any

from poolcheckers.server.games.timecontrol import time_control_to_dict
from poolcheckers.server.tournaments import standings as st
from poolcheckers.server.tournaments.model import Entrant, TourGame, Tournament, results_of

#: the most arena games listed on the event's page
ARENA_GAMES_SHOWN = 200
RESULT_TEXT = {"black": "2-0", "white": "0-2", "draw": "1-1", "none": "0-0", "bye": "bye"}


def summary(t: Tournament, players: int) -> dict[str, Any]:
    """An event as the list shows it."""
    return {
        "id": t.id,
        "name": t.name,
        "system": t.system,
        "status": t.status,
        "round": t.round,
        "rounds": t.rounds,
        "clock": time_control_to_dict(t.time_control),
        "category": t.category.value,
        "rated": t.rated,
        "rules": t.rules.to_dict(),
        "games_per_pairing": t.games_per_pairing,
        "double": t.double,
        "duration_minutes": t.duration_minutes,
        "starts_at": None if t.starts_at_ms is None else t.starts_at_ms // 1000,
        "started_at": None if t.started_ms is None else t.started_ms // 1000,
        "ends_at": None if t.ends_ms is None else t.ends_ms // 1000,
        "round_minutes": t.round_minutes,
        "next_round_at": _next_round_at(t),
        "max_players": t.max_players,
        "rating_range": None if t.rating_range is None else list(t.rating_range),
        "private": t.has_password,
        "paused": t.paused,
        "creator": t.creator_name,
        "players": players,
    }


def _next_round_at(t: Tournament) -> int | None:
    if t.status != "running" or t.system == "arena":
        return None
    at = t.round_starts_ms(t.round + 1)
    return None if at is None else at // 1000


def table(t: Tournament, players: list[Entrant], games: list[TourGame]) -> list[st.Standing]:
    """The standings; players sharing a rank are listed by name."""
    results, byes = results_of(games)
    name = {p.user_id: p.username.lower() for p in players}
    rows = st.standings(t.system, [p.user_id for p in players], results, byes)
    return sorted(rows, key=lambda s: (s.rank, name[s.player]))


def event_json(
    t: Tournament, players: list[Entrant], games: list[TourGame], viewer: str | None
) -> dict[str, Any]:
    """The whole event: :func:`shared_json` and the viewer's :func:`your_part`."""
    out = shared_json(t, players, games)
    if viewer is not None:
        out["you"] = your_part(t, players, games, viewer)
    return out


def your_part(
    t: Tournament, players: list[Entrant], games: list[TourGame], viewer: str
) -> dict[str, Any]:
    """The viewer's own part of an event: joined, its creator, their game in play,
    their invitation ("invited", "declined", or None), and ``paused``: "no_show" when
    an arena withdrew them for not making a first move in time (they join again to be
    paired), else None."""
    me = next((p for p in players if p.user_id == viewer), None)
    mine = [
        g.game_id
        for g in games
        if g.game_id is not None and g.outcome is None and viewer in (g.black, g.white)
    ]
    return {
        "joined": me is not None and me.playing,
        "invitation": None if me is None else me.invitation,
        "creator": viewer == t.creator_id,
        "game": mine[-1] if mine else None,
        "paused": "no_show" if me is not None and me.withdrawn and me.paused_no_show else None,
    }


def shared_json(t: Tournament, players: list[Entrant], games: list[TourGame]) -> dict[str, Any]:
    """What every reader of an event sees: settings, standings, pairings (with their
    games), the crosstable of a round robin, the podium once it is over."""
    name = {p.user_id: p.username for p in players}
    rows = table(t, players, games)
    entrant = {p.user_id: p for p in players}
    standings = [
        {
            "rank": s.rank,
            "username": name[s.player],
            "score": s.score,
            "games": s.games,
            "wins": s.wins,
            "draws": s.draws,
            "losses": s.losses,
            "match_points": s.match_points,
            "tiebreaks": {k: s.tiebreaks[k] for k in st.TIEBREAKS[t.system]},
            "rating": entrant[s.player].rating,
            "withdrawn": entrant[s.player].withdrawn,
            # withdrawn by an arena for not making a first move in time (joins again)
            "paused": entrant[s.player].withdrawn and entrant[s.player].paused_no_show,
            # named by an imported file: "invited" until they accept, or "declined"
            "invitation": entrant[s.player].invitation,
            **({"fire": s.fire, "sheet": s.sheet} if t.system == "arena" else {}),
        }
        for s in rows
    ]
    shown = games
    if t.system == "arena" and len(games) > ARENA_GAMES_SHOWN:
        # a long arena has thousands of games: the page shows those in play and the
        # latest ones (every game stays in the event's PDN)
        playing = [g for g in games if g.outcome is None]
        latest = sorted((g for g in games if g.outcome is not None), key=lambda g: -g.id)
        shown = playing + latest[: max(0, ARENA_GAMES_SHOWN - len(playing))]
    pairings = [
        {
            "round": g.round,
            "board": g.board,
            "leg": g.leg,
            "black": name.get(g.black, "?"),
            "white": None if g.white is None else name.get(g.white, "?"),
            "game": g.game_id,
            "result": None if g.outcome is None else RESULT_TEXT[g.outcome],
            # a game that ended before both sides moved, not by the no-show rule:
            # no result, not a forfeit (a double forfeit has no game)
            "forfeit": g.forfeit and not _void(g),
            "aborted": _void(g),
            "bye": g.white is None,
            "bye_points": g.bye_points,
            "berserk": sorted(name.get(p, "?") for p in g.berserk),
        }
        for g in shown
    ]
    out = summary(t, sum(p.playing for p in players))
    out["games_total"] = sum(g.white is not None for g in games)
    out["total_rounds"] = t.total_rounds(sum(p.seed is not None for p in players) or len(players))
    out["standings"] = standings
    out["pairings"] = pairings
    out["tiebreak_order"] = list(st.TIEBREAKS[t.system])
    if t.system == "round_robin":
        order = (
            sorted((p for p in players if p.seed is not None), key=lambda p: p.seed or 0) or players
        )
        results, _byes = results_of(games)
        out["crosstable"] = {
            "players": [p.username for p in order],
            "rows": st.crosstable([p.user_id for p in order], results),
        }
    if t.status == "finished" and rows:
        out["podium"] = [name[s.player] for s in rows[:3] if s.games or s.score]
        out["winner"] = out["podium"][0] if out["podium"] else None
    return out


def _void(g: TourGame) -> bool:
    """A game of the event that ended with no result: nobody scores it."""
    return g.outcome == "none" and g.game_id is not None


def standings_csv(t: Tournament, players: list[Entrant], games: list[TourGame]) -> str:
    """The standings as CSV: rank, player, rating, score, games, wins, draws, losses,
    match points and the tie-breaks in the system's order."""
    name = {p.user_id: p.username for p in players}
    order = st.TIEBREAKS[t.system]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    head = ["rank", "player", "rating", "score", "games", "wins", "draws", "losses"]
    writer.writerow([*head, "match_points", *order])
    rating = {p.user_id: p.rating for p in players}
    for s in table(t, players, games):
        writer.writerow(
            [s.rank, name[s.player], rating[s.player], s.score, s.games, s.wins, s.draws]
            + [s.losses, s.match_points]
            + [s.tiebreaks[k] for k in order]
        )
    return out.getvalue()
