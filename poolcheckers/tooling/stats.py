"""Elo statistics of game results: the one Elo scale every tool reports on.

The score of player A over its games is ``p = (W + D/2) / N``; the Elo
difference a logistic model gives for it is ``-400·log10(1/p - 1)``
(:func:`logistic_elo`, the inverse of :func:`logistic_score`).  The standard
error of ``p`` is ``sqrt(v / N)``, where ``v`` is the variance of the per-game
scores (1, ½, 0) about ``p`` (draws lower it); the 95 % interval of the Elo
difference is the same formula applied to ``p ± 1.96·SE`` (infinite when a
bound reaches 0 % or 100 %).  Pair statistics, which SPRT tests use, are in
:mod:`poolcheckers.tooling.sprt`.

>>> e = elo_estimate(6, 8, 2)
>>> e.score, round(e.elo), round(e.low), round(e.high)
(0.625, 89, -26, 227)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Final

#: Normal quantile of a two-sided 95 % interval.
Z_95: Final = 1.959963984540054


def logistic_score(elo: float) -> float:
    """Expected score of an Elo difference: ``1 / (1 + 10^(-elo/400))``.

    >>> logistic_score(0.0), round(logistic_score(400.0), 4)
    (0.5, 0.9091)
    """
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


def logistic_elo(score: float) -> float:
    """The logistic Elo difference of a score fraction: ``-400·log10(1/p - 1)``
    (±inf at 1 and 0).

    >>> logistic_elo(0.5), round(logistic_elo(0.75), 1), logistic_elo(1.0), logistic_elo(0.0)
    (0.0, 190.8, inf, -inf)
    """
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return 400.0 * math.log10(score / (1.0 - score))


def format_elo(value: float) -> str:
    """An Elo difference with its sign, whole: ``+35``, ``-4``, ``+inf``.

    >>> format_elo(35.4), format_elo(-math.inf)
    ('+35', '-inf')
    """
    if math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    return f"{value:+.0f}"


@dataclass(frozen=True)
class EloEstimate:
    """Player A's score over ``games`` games and the Elo difference it implies."""

    games: int
    score: float  # fraction of the points, 0..1
    stderr: float  # standard error of ``score``
    elo: float  # A minus B; ±inf at 100 % / 0 %
    low: float  # 95 % interval of ``elo``
    high: float

    def describe(self) -> str:
        """``Elo +35 (95% interval -10 .. +81)``."""
        return (
            f"Elo {format_elo(self.elo)} "
            f"(95% interval {format_elo(self.low)} .. {format_elo(self.high)})"
        )


def elo_estimate(wins: int, draws: int, losses: int) -> EloEstimate:
    """Score, its standard error and the Elo difference with a 95 % interval."""
    games = wins + draws + losses
    if games == 0:
        raise ValueError("no games: the Elo difference is undefined")
    score = (wins + 0.5 * draws) / games
    variance = (
        wins * (1.0 - score) ** 2 + draws * (0.5 - score) ** 2 + losses * (0.0 - score) ** 2
    ) / games
    stderr = math.sqrt(variance / games)
    return EloEstimate(
        games=games,
        score=score,
        stderr=stderr,
        elo=logistic_elo(score),
        low=logistic_elo(score - Z_95 * stderr),
        high=logistic_elo(score + Z_95 * stderr),
    )


def wilson_bound(games: int) -> float:
    """Wilson's 95 % lower bound on the score after winning all ``games`` games.

    The normal interval of :func:`elo_estimate` collapses to a point at a
    perfect score; Wilson's score interval does not: its lower end for a
    score of 100 % is ``n / (n + z²)``.

    >>> round(wilson_bound(100), 4), round(logistic_elo(wilson_bound(100)))
    (0.963, 566)
    """
    return games / (games + Z_95 * Z_95)


__all__ = [
    "Z_95",
    "EloEstimate",
    "elo_estimate",
    "format_elo",
    "logistic_elo",
    "logistic_score",
    "wilson_bound",
]
