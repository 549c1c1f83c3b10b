"""A tournament as the site runs it (plain code: no web server, no database): the
settings a director chooses (:class:`TournamentSpec`, checked when it is made), the
stored event (:class:`Tournament`), its entrants and its games.

Settings (docs/TOURNAMENTS.md): a name; the system (``round_robin``, ``swiss``,
``arena``); a clock or correspondence days; rated or casual (rated events play the
APCA rules, casual ones may choose the §9 options); rounds (Swiss), a double round
robin, one or two games per pairing (two: colours swapped, the APCA way); the
duration of an arena; a start time; the most players; a rating range; a password
for a club event; the minutes after which a game nobody started may be forfeited.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from poolcheckers import RuleSet
from poolcheckers.errors import PoolCheckersError
from poolcheckers.server.domain_errors import CommunityError
from poolcheckers.server.games.timecontrol import (
    Category,
    TimeControl,
    category_of,
    parse_time_control,
    time_control_to_dict,
)
from poolcheckers.server.i18n import M_
from poolcheckers.server.lobby.model import rating_range_of
from poolcheckers.server.tournaments.standings import Bye, GameResult
from poolcheckers.server.tournaments.systems import MAX_ROUND_ROBIN, round_robin_rounds

System = Literal["round_robin", "swiss", "arena"]
Status = Literal["created", "running", "finished"]

MAX_NAME = 60
MAX_SWISS_ROUNDS = 20
MAX_PLAYERS = 1000
MAX_ARENA_MINUTES = 24 * 60
#: a start time may be set up to this far ahead
MAX_START_AHEAD_S = 90 * 24 * 3600
_NAME = re.compile(r"^[\w][\w .,'&()#:-]*$")


class TournamentError(CommunityError):
    """A tournament request that cannot be done as asked; the state is unchanged."""

    field = "tournament"


class TournamentForbidden(TournamentError):
    code = "forbidden"


class TournamentGone(TournamentError):
    code = "not_found"


class TournamentConflict(TournamentError):
    code = "conflict"


def _whole(data: Mapping[str, Any], key: str, low: int, high: int) -> int | None:
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise TournamentError(
            M_(
                "{key} must be a whole number from {low} to {high}, not {value}",
                key=key,
                low=low,
                high=high,
                value=repr(value),
            )
        )
    return value


@dataclass(frozen=True, slots=True)
class TournamentSpec:
    """What a director asks for; every bad combination is refused when it is made."""

    name: str
    system: System
    time_control: TimeControl
    rated: bool = True
    rules: RuleSet = field(default_factory=RuleSet.apca)
    rounds: int | None = None
    games_per_pairing: int = 1
    double: bool = False
    duration_minutes: int | None = None
    starts_at: int | None = None
    max_players: int | None = None
    rating_range: tuple[int, int] | None = None
    password: str | None = None
    forfeit_minutes: int | None = None
    #: Swiss: pairs of usernames who must not meet (FIDE's forbidden pairings: a family,
    #: club mates travelling together)
    forbidden: tuple[tuple[str, str], ...] = ()
    #: round robin and Swiss: round n starts no sooner than n - 1 times this after the
    #: start (a club's weekly evening, a day per round); None: as soon as the last ends
    round_minutes: int | None = None

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], now_s: float) -> TournamentSpec:
        """From the body of ``POST /api/tournaments``.

        >>> s = TournamentSpec.from_dict({"name": "Division 1", "system": "round_robin",
        ...     "clock": {"initial": 600, "increment": 5}, "games_per_pairing": 2}, 0)
        >>> s.system, s.games_per_pairing, s.category.value
        ('round_robin', 2, 'rapid')
        >>> TournamentSpec.from_dict({"name": "Open", "system": "swiss", "clock": None}, 0)
        Traceback (most recent call last):
        ...
        poolcheckers.server.tournaments.model.TournamentError: a tournament needs a clock ...
        """
        if not isinstance(data, Mapping):
            raise TournamentError(M_("a tournament must be an object, not {data}", data=repr(data)))
        known = {
            "name", "system", "clock", "rated", "rules", "rounds", "games_per_pairing",
            "double", "duration_minutes", "starts_at", "max_players", "rating_range",
            "password", "forfeit_minutes", "forbidden", "round_minutes",
        }  # fmt: skip
        unknown = sorted(set(data) - known)
        if unknown:
            raise TournamentError(M_("unknown tournament fields {unknown}", unknown=unknown))
        name, system, tc, rated, rules = _basics(data)
        gpp, double, rounds, duration = _shape(data, system, tc)
        starts_at = data.get("starts_at")
        if starts_at is not None and (
            not isinstance(starts_at, int)
            or isinstance(starts_at, bool)
            or not now_s - 60 <= starts_at <= now_s + MAX_START_AHEAD_S
        ):
            raise TournamentError(
                M_(
                    "starts_at must be epoch seconds from now to 90 days ahead, not {starts_at}",
                    starts_at=repr(starts_at),
                )
            )
        largest = MAX_ROUND_ROBIN if system == "round_robin" else MAX_PLAYERS
        max_players = _whole(data, "max_players", 2, largest)
        rating_range = rating_range_of(data.get("rating_range"), TournamentError)
        password = data.get("password")
        if password is not None and (not isinstance(password, str) or not 4 <= len(password) <= 64):
            raise TournamentError(M_("password must be 4 to 64 characters or null"))
        forfeit = _whole(data, "forfeit_minutes", 1, 7 * 24 * 60)
        forbidden = _forbidden(data.get("forbidden"), system)
        round_minutes = _whole(data, "round_minutes", 1, 14 * 24 * 60)
        if round_minutes is not None and system == "arena":
            raise TournamentError(M_("round_minutes is for round robins and Swiss events"))
        return cls(
            name=name,
            system=system,
            time_control=tc,
            rated=rated,
            rules=rules,
            rounds=rounds,
            games_per_pairing=gpp,
            double=double,
            duration_minutes=duration,
            starts_at=starts_at,
            max_players=max_players,
            rating_range=rating_range,
            password=password or None,
            forfeit_minutes=forfeit,
            forbidden=forbidden,
            round_minutes=round_minutes,
        )

    @property
    def category(self) -> Category:
        category = category_of(self.time_control)
        assert category is not None  # a tournament always has a clock or days
        return category

    def settings(self) -> dict[str, Any]:
        """The stored settings (no password: its hash is stored apart)."""
        return {
            "clock": time_control_to_dict(self.time_control),
            "rules": self.rules.to_dict(),
            "rating_range": None if self.rating_range is None else list(self.rating_range),
            "forfeit_minutes": self.forfeit_minutes,
            "forbidden": [list(p) for p in self.forbidden],
            "round_minutes": self.round_minutes,
        }


def _forbidden(value: object, system: System) -> tuple[tuple[str, str], ...]:
    if value is None or value == []:
        return ()
    if system != "swiss":
        raise TournamentError(M_("forbidden pairings are for Swiss events"))
    if (
        not isinstance(value, list)
        or len(value) > 200
        or not all(
            isinstance(p, list) and len(p) == 2 and all(isinstance(n, str) and n for n in p)
            for p in value
        )
    ):
        raise TournamentError(
            M_(
                "forbidden must be a list of [username, username] pairs, not {value}",
                value=repr(value),
            )
        )
    return tuple((str(a).lower(), str(b).lower()) for a, b in value)


@dataclass(slots=True)
class Tournament:
    """A stored event (a row of ``tournaments``)."""

    id: str
    name: str
    system: System
    status: Status
    creator_id: str
    creator_name: str
    time_control: TimeControl
    rated: bool
    rules: RuleSet
    rounds: int | None
    games_per_pairing: int
    double: bool
    duration_minutes: int | None
    starts_at_ms: int | None
    max_players: int | None
    rating_range: tuple[int, int] | None
    has_password: bool
    forfeit_minutes: int | None
    forbidden: tuple[tuple[str, str], ...] = ()
    round_minutes: int | None = None
    round: int = 0
    paused: bool = False
    started_ms: int | None = None
    finished_ms: int | None = None
    created_ms: int = 0

    @property
    def category(self) -> Category:
        category = category_of(self.time_control)
        assert category is not None
        return category

    def total_rounds(self, players: int) -> int | None:
        """How many rounds the event has with ``players`` (None: an arena, by time)."""
        if self.system == "round_robin":
            return round_robin_rounds(players, double=self.double)
        return self.rounds

    def round_starts_ms(self, number: int) -> int | None:
        """When round ``number`` may start at the soonest (None: as soon as the last ends)."""
        if self.round_minutes is None or self.started_ms is None:
            return None
        return self.started_ms + (number - 1) * self.round_minutes * 60_000

    @property
    def ends_ms(self) -> int | None:
        """When an arena ends (it pairs nobody after that; games in play finish)."""
        if self.system != "arena" or self.started_ms is None or self.duration_minutes is None:
            return None
        return self.started_ms + self.duration_minutes * 60_000


#: an entrant's invitation: named by an imported file, not answered yet / said no
Invitation = Literal["invited", "declined"]


@dataclass(frozen=True, slots=True)
class Entrant:
    """A player of an event: ``seed`` (1 = first in the seeding, set at the start),
    ``rating`` when they joined, ``withdrawn`` once they left (or an arena paused
    them: :attr:`paused_no_show`); ``invitation`` set
    for an account an imported file named that has not accepted (listed as invited,
    never paired: :attr:`playing` is False)."""

    user_id: str
    username: str
    rating: int
    joined_ms: int
    seed: int | None = None
    withdrawn: bool = False
    busy_game: str | None = None
    seen_ms: int = 0
    invitation: Invitation | None = None
    #: withdrawn by the arena's no-show rule (they did not make a first move in time),
    #: not by their own choice; a join clears it
    paused_no_show: bool = False

    @property
    def playing(self) -> bool:
        """In the event, to be paired: joined or accepted, and not withdrawn."""
        return not self.withdrawn and self.invitation is None


@dataclass(frozen=True, slots=True)
class TourGame:
    """A game (or a bye, or a leg not started yet) of an event: round (0 in an arena),
    board, leg (1 or 2 of a two-game match), the players (``white`` None: a bye),
    the site game once started, and its result as the tournament counts it."""

    id: int
    round: int
    board: int | None
    leg: int
    black: str
    white: str | None
    game_id: str | None
    #: "black", "white", "draw", "none" (a double forfeit), "bye", or None while in
    #: play or not started
    outcome: str | None = None
    #: decided without play: a forfeit (no-show, withdrawal, director's decision)
    forfeit: bool = False
    plies: int = 0
    ended_ms: int = 0
    berserk: frozenset[str] = frozenset()
    bye_points: float | None = None
    status: str | None = None
    #: the player who did not make their first move, when the event's no-show rule
    #: ended the game
    absent: str | None = None


def _basics(data: Mapping[str, Any]) -> tuple[str, System, TimeControl, bool, RuleSet]:
    name = data.get("name")
    if not isinstance(name, str) or not 2 <= len(name.strip()) <= MAX_NAME:
        raise TournamentError(
            M_(
                "name must be 2 to {MAX_NAME} characters, not {name}",
                MAX_NAME=MAX_NAME,
                name=repr(name),
            )
        )
    name = " ".join(name.split())
    if not _NAME.match(name):
        raise TournamentError(
            M_(
                "name {name} may hold letters, digits, spaces and . , ' & ( ) # : - only",
                name=repr(name),
            )
        )
    system: System = data.get("system")  # type: ignore[assignment]
    if system not in get_args(System):
        raise TournamentError(
            M_(
                "system must be 'round_robin', 'swiss' or 'arena', not {system}",
                system=repr(system),
            )
        )
    tc = parse_time_control(data.get("clock"))
    if tc is None:
        raise TournamentError(M_("a tournament needs a clock or correspondence days"))
    rated = data.get("rated", True)
    if not isinstance(rated, bool):
        raise TournamentError(M_("rated must be true or false, not {rated}", rated=repr(rated)))
    rules_data = data.get("rules") or {}
    if not isinstance(rules_data, Mapping):
        raise TournamentError(
            M_(
                "rules must be an object of §9 options, not {rules_data}",
                rules_data=repr(rules_data),
            )
        )
    try:
        rules = RuleSet.from_dict(rules_data)
    except PoolCheckersError as error:
        raise TournamentError(str(error)) from error
    if rated and rules != RuleSet.apca():
        raise TournamentError(
            M_(
                "rated events play the APCA rules (docs/RULES.md §9); {name} is for casual events",
                name=rules.name,
            )
        )
    return name, system, tc, rated, rules


def _shape(
    data: Mapping[str, Any], system: System, tc: TimeControl
) -> tuple[int, bool, int | None, int | None]:
    gpp = _whole(data, "games_per_pairing", 1, 2) or 1
    double = data.get("double", False)
    if not isinstance(double, bool):
        raise TournamentError(M_("double must be true or false, not {double}", double=repr(double)))
    rounds = _whole(data, "rounds", 1, MAX_SWISS_ROUNDS)
    duration = _whole(data, "duration_minutes", 10, MAX_ARENA_MINUTES)
    if system == "swiss" and rounds is None:
        raise TournamentError(
            M_(
                "a Swiss event needs rounds (1 to {MAX_SWISS_ROUNDS})",
                MAX_SWISS_ROUNDS=MAX_SWISS_ROUNDS,
            )
        )
    if system != "swiss" and rounds is not None:
        raise TournamentError(M_("rounds are set for Swiss events only"))
    if system == "arena":
        if duration is None:
            raise TournamentError(M_("an arena needs duration_minutes (10 to 1440)"))
        if category_of(tc) is Category.CORRESPONDENCE:
            raise TournamentError(M_("an arena is played on the clock, not by correspondence"))
        if gpp != 1:
            raise TournamentError(M_("arena games are single games (games_per_pairing 1)"))
    elif duration is not None:
        raise TournamentError(M_("duration_minutes is for arenas only"))
    if double and system != "round_robin":
        raise TournamentError(M_("double is for round robins only"))
    return gpp, double, rounds, duration


def _results(rows: list[TourGame]) -> list[GameResult]:
    out: list[GameResult] = []
    for r in rows:
        if r.white is None or r.outcome == "none":
            continue
        outcome = r.outcome if r.outcome in ("black", "white", "draw") else None
        out.append(
            GameResult(
                r.round,
                r.black,
                r.white,
                outcome,  # type: ignore[arg-type]
                forfeit=r.forfeit,
                ended_ms=r.ended_ms,
                plies=r.plies,
                berserk=r.berserk,
            )
        )
    return out


def results_of(rows: list[TourGame]) -> tuple[list[GameResult], list[Bye]]:
    """The games and byes of an event as the standings count them."""
    byes = [Bye(r.round, r.black, r.bye_points or 0.0) for r in rows if r.white is None]
    return _results(rows), byes
