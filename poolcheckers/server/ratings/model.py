"""Glicko-2 ratings, one per player and :class:`~poolcheckers.server.games.timecontrol.Category`.

The algorithm is Glickman's, step by step as in "Example of the Glicko-2
system" (:func:`glicko2_period`).  The site uses it the way lichess does
(:class:`RatingSystem`): ratings change after every game rather than at the end
of a rating period, a player's deviation grows over the time since their last
rated game (fractional rating periods, 0.21436 per day, so a typical deviation
goes from 60 to 110 in a year), τ = 0.75, new players start at 1500 ± 500, and
every value is kept within bounds.  A rating is provisional (shown with ``?``)
while its deviation is 110 or more.

The paper's worked example, a 1500 ± 200 (σ 0.06) player beating a 1400 ± 30
and losing to a 1550 ± 100 and a 1700 ± 300 in one rating period (τ = 0.5):

>>> new = glicko2_period(
...     Glicko(1500, 200, 0.06),
...     [(Glicko(1400, 30), 1.0), (Glicko(1550, 100), 0.0), (Glicko(1700, 300), 0.0)],
...     tau=0.5,
... )
>>> round(new.mu, 4), round(new.phi, 4), round(new.volatility, 6)
(-0.2069, 0.8722, 0.059996)
>>> round(new.rating, 2), round(new.deviation, 2)
(1464.05, 151.52)

The paper gives μ′ = −0.2069, φ′ = 0.8722, σ′ = 0.05999 and converts its rounded
μ′ to r′ = 1464.06; unrounded, μ′ is −0.206941 and r′ 1464.0507.

One rated game on the site; :func:`compute_update` is pure, :func:`apply_result`
applies a game's result to a :class:`RatingStore` exactly once:

>>> store = MemoryRatingStore()
>>> game = RatedResult("g1", Category.BLITZ, black="ann", white="bob", black_score=1.0,
...                    finished_at=1_700_000_000.0)
>>> update = apply_result(store, game)
>>> update.black_after.display(), update.white_after.display(), update.black_diff
('1741?', '1258?', 241)
>>> apply_result(store, game) is update  # the same game again: no second change
True
>>> store.perf("ann", Category.BLITZ).games
1
"""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Final, Protocol

from poolcheckers.server.domain_errors import RatingError
from poolcheckers.server.games.timecontrol import Category
from poolcheckers.server.i18n import M_

#: Glicko-2 works on a scale where 173.7178 Glicko points are 1 (Glickman, step 2).
GLICKO2_SCALE: Final = 173.7178
#: The Glicko scale's centre: an unrated player's rating.
BASE_RATING: Final = 1500.0
#: Deviation from which a rating is provisional ("?"), as lichess.
PROVISIONAL_DEVIATION: Final = 110.0
SECONDS_PER_DAY: Final = 86_400.0


@dataclass(frozen=True, slots=True)
class Glicko:
    """A Glicko-2 rating on the Glicko scale: ``rating`` ± ``deviation`` and ``volatility``.

    >>> Glicko(1500, 350).provisional, Glicko(1812.7, 62.1).display()
    (True, '1812')
    """

    rating: float
    deviation: float
    volatility: float = 0.06

    def __post_init__(self) -> None:
        for name in ("rating", "deviation", "volatility"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise RatingError(
                    M_("{name} must be a number, not {value}", name=name, value=repr(value))
                )
            if not math.isfinite(value):
                raise RatingError(
                    M_("{name} must be finite, not {value}", name=name, value=repr(value))
                )
        if self.deviation <= 0 or self.volatility <= 0:
            raise RatingError(
                M_(
                    "deviation and volatility must be positive, not {deviation} and {volatility}",
                    deviation=repr(self.deviation),
                    volatility=repr(self.volatility),
                )
            )

    @property
    def provisional(self) -> bool:
        """True while the deviation is :data:`PROVISIONAL_DEVIATION` (110) or more."""
        return self.deviation >= PROVISIONAL_DEVIATION

    def display(self) -> str:
        """The rating as shown: whole points, ``?`` when provisional (``'1500?'``)."""
        return f"{int(self.rating)}{'?' if self.provisional else ''}"

    @property
    def mu(self) -> float:
        """The rating on the Glicko-2 scale (μ)."""
        return (self.rating - BASE_RATING) / GLICKO2_SCALE

    @property
    def phi(self) -> float:
        """The deviation on the Glicko-2 scale (φ)."""
        return self.deviation / GLICKO2_SCALE


def _g(phi: float) -> float:
    """Glickman step 3: how much an opponent's uncertainty discounts a result."""
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _expected(mu: float, mu_j: float, phi_j: float) -> float:
    """Glickman step 3: the expected score against opponent ``j``."""
    return 1.0 / (1.0 + math.exp(-_g(phi_j) * (mu - mu_j)))


def expected_score(player: Glicko, opponent: Glicko) -> float:
    """The score ``player`` is expected to make against ``opponent`` (0..1).

    >>> round(expected_score(Glicko(1500, 200), Glicko(1400, 30)), 3)
    0.639
    """
    return _expected(player.mu, opponent.mu, opponent.phi)


def _new_volatility(
    phi: float, sigma: float, delta: float, v: float, tau: float, tolerance: float
) -> float:
    """Glickman step 5: the new volatility σ′, by the Illinois variant of regula falsi."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta * delta - phi * phi - v - ex) / (2.0 * (phi * phi + v + ex) ** 2) - (
            x - a
        ) / (tau * tau)

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    for _ in range(1000):
        if abs(big_b - big_a) <= tolerance:
            break
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    else:  # pragma: no cover - the iteration converges for every finite input
        raise RatingError(M_("Glicko-2 volatility iteration did not converge (step 5)"))
    return math.exp(big_a / 2.0)


def glicko2_period(
    player: Glicko,
    results: Sequence[tuple[Glicko, float]],
    *,
    tau: float = 0.5,
    elapsed_periods: float = 1.0,
    tolerance: float = 1e-6,
) -> Glicko:
    """The player's rating after one rating period, exactly as in Glickman's paper.

    ``results`` are ``(opponent's pre-period rating, score)`` pairs with scores
    1 (win), 0.5 (draw) and 0 (loss).  With no results only step 6 applies: the
    deviation grows, rating and volatility stay.  ``elapsed_periods`` generalises
    step 6 to fractional periods (φ* = √(φ² + t·σ′²)); the paper's case is 1.

    >>> glicko2_period(Glicko(1500, 200, 0.06), []).deviation > 200
    True
    """
    if tau <= 0:
        raise RatingError(M_("tau must be positive, not {tau}", tau=repr(tau)))
    if elapsed_periods < 0:
        raise RatingError(
            M_(
                "elapsed rating periods cannot be negative, not {elapsed_periods}",
                elapsed_periods=repr(elapsed_periods),
            )
        )
    phi, sigma = player.phi, player.volatility
    if not results:
        phi_star = math.sqrt(phi * phi + elapsed_periods * sigma * sigma)
        return replace(player, deviation=phi_star * GLICKO2_SCALE)
    mu = player.mu
    inverse_v = 0.0
    weighted = 0.0
    for opponent, score in results:
        if not 0.0 <= score <= 1.0:
            raise RatingError(
                M_("a score is 0, 0.5 or 1 (loss, draw, win), not {score}", score=repr(score))
            )
        g = _g(opponent.phi)
        e = _expected(mu, opponent.mu, opponent.phi)
        inverse_v += g * g * e * (1.0 - e)
        weighted += g * (score - e)
    v = 1.0 / inverse_v  # step 3
    delta = v * weighted  # step 4
    new_sigma = _new_volatility(phi, sigma, delta, v, tau, tolerance)  # step 5
    phi_star = math.sqrt(phi * phi + elapsed_periods * new_sigma * new_sigma)  # step 6
    new_phi = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)  # step 7
    new_mu = mu + new_phi * new_phi * weighted
    return Glicko(  # step 8
        rating=new_mu * GLICKO2_SCALE + BASE_RATING,
        deviation=new_phi * GLICKO2_SCALE,
        volatility=new_sigma,
    )


@dataclass(frozen=True, slots=True)
class Perf:
    """A player's standing in one category: the rating, rated games played, last rated game.

    ``games`` doubles as the row's version: each rated game adds one, so a store
    can update a rating with compare-and-set on it.  ``last_played`` is epoch seconds.
    """

    glicko: Glicko
    games: int = 0
    last_played: float | None = None

    @property
    def provisional(self) -> bool:
        return self.glicko.provisional

    def display(self) -> str:
        return self.glicko.display()

    def to_dict(self) -> dict[str, object]:
        """As in ``GET /api/users/{username}``: ``{"rating", "rd", "games", "provisional"}``."""
        return {
            "rating": int(self.glicko.rating),
            "rd": int(self.glicko.deviation),
            "games": self.games,
            "provisional": self.provisional,
        }


@dataclass(frozen=True, slots=True)
class RatingSystem:
    """Glicko-2 as the site runs it: parameters and bounds of lichess.

    >>> system = RatingSystem()
    >>> system.new_perf().display()
    '1500?'
    >>> year_idle = Perf(Glicko(1700, 60, 0.06), games=200, last_played=0.0)
    >>> round(system.live_deviation(year_idle, at=365 * 86_400.0))
    110
    """

    tau: float = 0.75
    periods_per_day: float = 0.21436
    default: Glicko = field(default_factory=lambda: Glicko(BASE_RATING, 500.0, 0.09))
    min_rating: float = 400.0
    min_deviation: float = 45.0
    max_deviation: float = 500.0
    max_volatility: float = 0.1
    #: The most a rating can move in one game.
    max_rating_delta: float = 700.0

    def new_perf(self) -> Perf:
        """The standing of a player with no rated game in a category."""
        return Perf(self.default)

    def elapsed_periods(self, perf: Perf, at: float) -> float:
        """Rating periods since ``perf``'s last rated game (0 for a new player)."""
        if perf.last_played is None:
            return 0.0
        return max(0.0, at - perf.last_played) / SECONDS_PER_DAY * self.periods_per_day

    def live_deviation(self, perf: Perf, at: float) -> float:
        """The deviation at time ``at``: grown over the idle time since the last game."""
        phi = perf.glicko.phi
        grown = math.sqrt(phi * phi + self.elapsed_periods(perf, at) * perf.glicko.volatility**2)
        return min(max(grown * GLICKO2_SCALE, self.min_deviation), self.max_deviation)

    def live(self, perf: Perf, at: float) -> Perf:
        """``perf`` with its deviation grown to time ``at`` (for display and pairing)."""
        glicko = replace(perf.glicko, deviation=self.live_deviation(perf, at))
        return replace(perf, glicko=glicko)

    def _bounded(self, before: Glicko, after: Glicko) -> Glicko:
        change = after.rating - before.rating
        change = min(max(change, -self.max_rating_delta), self.max_rating_delta)
        return Glicko(
            rating=max(before.rating + change, self.min_rating),
            deviation=min(max(after.deviation, self.min_deviation), self.max_deviation),
            volatility=min(after.volatility, self.max_volatility),
        )

    def rate_one(self, perf: Perf, opponent: Glicko, score: float, at: float) -> Perf:
        """``perf`` after one game scoring ``score`` against ``opponent`` (pre-game) at ``at``."""
        after = glicko2_period(
            perf.glicko,
            [(opponent, score)],
            tau=self.tau,
            elapsed_periods=self.elapsed_periods(perf, at),
        )
        return Perf(self._bounded(perf.glicko, after), perf.games + 1, at)

    def rate_game(
        self, black: Perf, white: Perf, black_score: float, at: float
    ) -> tuple[Perf, Perf]:
        """Both players' standing after one game, each rated against the other's pre-game rating.

        >>> b, w = RatingSystem().rate_game(Perf(Glicko(1500, 80)), Perf(Glicko(1500, 80)), 0.5, 0)
        >>> round(b.glicko.rating, 6) == round(w.glicko.rating, 6) == 1500
        True
        """
        return (
            self.rate_one(black, white.glicko, black_score, at),
            self.rate_one(white, black.glicko, 1.0 - black_score, at),
        )


#: The parameters the site uses.
LICHESS: Final = RatingSystem()


@dataclass(frozen=True, slots=True)
class RatedResult:
    """The finished rated game a rating update is made from (player ids, Black's score)."""

    game_id: str
    category: Category
    black: str
    white: str
    black_score: float
    finished_at: float

    def __post_init__(self) -> None:
        if not self.game_id:
            raise RatingError(M_("a rated result needs its game id"))
        if self.black == self.white:
            raise RatingError(
                M_("a player cannot be rated against themselves ({black})", black=repr(self.black))
            )
        if self.black_score not in (0.0, 0.5, 1.0):
            raise RatingError(
                M_(
                    "Black's score is 0, 0.5 or 1 (loss, draw, win), not {black_score}",
                    black_score=repr(self.black_score),
                )
            )
        if not isinstance(self.category, Category):
            raise RatingError(M_("unknown category {category}", category=repr(self.category)))


@dataclass(frozen=True, slots=True)
class RatingUpdate:
    """What one rated game did to both ratings: the row a store keeps, unique per game."""

    game_id: str
    category: Category
    black: str
    white: str
    black_before: Perf
    black_after: Perf
    white_before: Perf
    white_after: Perf

    @property
    def black_diff(self) -> int:
        """Black's change in whole points, as shown (``+12``) and in PDN ``BlackRatingDiff``."""
        return int(self.black_after.glicko.rating) - int(self.black_before.glicko.rating)

    @property
    def white_diff(self) -> int:
        return int(self.white_after.glicko.rating) - int(self.white_before.glicko.rating)


def compute_update(
    result: RatedResult, black: Perf, white: Perf, system: RatingSystem = LICHESS
) -> RatingUpdate:
    """The update a rated result makes to the players' current standings (pure)."""
    black_after, white_after = system.rate_game(
        black, white, result.black_score, result.finished_at
    )
    return RatingUpdate(
        result.game_id,
        result.category,
        result.black,
        result.white,
        black,
        black_after,
        white,
        white_after,
    )


class RatingStore(Protocol):
    """Where ratings live.  The database implements it with a table of rating updates
    whose primary key is the game id and compare-and-set on each rating's ``games``.
    """

    def perf(self, player: str, category: Category) -> Perf:
        """The player's current standing (the system's new-player standing if none)."""
        ...

    def applied(self, game_id: str) -> RatingUpdate | None:
        """The update already made for this game, if any."""
        ...

    def commit(self, update: RatingUpdate) -> bool:
        """Store ``update`` atomically: record it under its game id and set both ratings,
        but only if no update for that game exists and both ratings are still the
        ``*_before`` ones (same ``games``).  False, changing nothing, otherwise."""
        ...


def apply_result(
    store: RatingStore, result: RatedResult, system: RatingSystem = LICHESS
) -> RatingUpdate:
    """Apply a rated game's result once: the first call changes both ratings, every
    later call (a retry, a racing finish, another server process) returns the
    update that was made.  A commit lost to another game of the same player is
    recomputed from the new ratings.
    """
    while True:
        done = store.applied(result.game_id)
        if done is not None:
            return done
        update = compute_update(
            result,
            store.perf(result.black, result.category),
            store.perf(result.white, result.category),
            system,
        )
        if store.commit(update):
            return update


class MemoryRatingStore:
    """A :class:`RatingStore` in memory (tests, benchmarks), safe across threads."""

    def __init__(self, system: RatingSystem = LICHESS) -> None:
        self._system = system
        self._lock = threading.Lock()
        self._perfs: dict[tuple[str, Category], Perf] = {}
        self._updates: dict[str, RatingUpdate] = {}
        self.history: list[RatingUpdate] = []

    def perf(self, player: str, category: Category) -> Perf:
        with self._lock:
            return self._perfs.get((player, category)) or self._system.new_perf()

    def applied(self, game_id: str) -> RatingUpdate | None:
        with self._lock:
            return self._updates.get(game_id)

    def commit(self, update: RatingUpdate) -> bool:
        new = self._system.new_perf()
        with self._lock:
            if update.game_id in self._updates:
                return False
            black_now = self._perfs.get((update.black, update.category), new)
            white_now = self._perfs.get((update.white, update.category), new)
            if (black_now.games, white_now.games) != (
                update.black_before.games,
                update.white_before.games,
            ):
                return False
            self._perfs[(update.black, update.category)] = update.black_after
            self._perfs[(update.white, update.category)] = update.white_after
            self._updates[update.game_id] = update
            self.history.append(update)
            return True
