"""Sequential probability ratio test over game pairs, as fishtest runs it.

A test plays each opening twice, once with each colour, and counts the
*pairs* by the points the tested player (A) took from them: 0, ½, 1, 1½ or 2
(the pentanomial counts ``LL``, ``LD``, ``LW+DD``, ``WD``, ``WW``).  Pairs are
what is independent; the two games of a pair share their opening and are
not, so the variance of the score is measured over pairs (lower than over
games when openings favour one colour).

Hypotheses on the Elo difference of A over B: H0 ``elo = elo0`` against H1
``elo = elo1``.  The log-likelihood ratio is the generalised one (GSPRT) of
the five-outcome distribution: under each hypothesis the distribution of
pair scores nearest the observed one (maximum likelihood) subject to the
hypothesis, and ``LLR = N · Σ q_i log(p1_i / p0_i)``.  The test stops when
the LLR leaves ``[log(β/(1-α)), log((1-β)/α)]`` (Wald's bounds): above,
H1 is accepted (the change gains at least ``elo1``-ish), below, H0.

Two Elo models, as fishtest has:

- ``logistic``: the expected score is ``1 / (1 + 10^(-elo/400))``; the
  hypothesis fixes the mean pair score.
- ``normalized``: ``nelo = (μ - ½) / σ · 800 / ln 10``, where ``σ`` is the
  standard deviation of one game's score (for pairs ``√2`` times that of the
  pair average); the hypothesis fixes the t-value ``(μ - ½) / σ``.  It does
  not depend on the draw rate, which is high in checkers.

>>> bounds(0.05, 0.05)
(-2.944, 2.944)
>>> p = Pentanomial(ll=10, ld=20, dd=40, wd=30, ww=20)
>>> p.pairs, p.games, round(p.score, 4)
(120, 240, 0.5625)
>>> round(llr(p, 0.0, 10.0, "logistic"), 3) > 0
True
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

from poolcheckers.tooling.stats import Z_95, logistic_elo, logistic_score

#: Scores of the five pair outcomes, as a fraction of the two games' points.
PAIR_SCORES: Final = (0.0, 0.25, 0.5, 0.75, 1.0)

#: ``800 / ln 10``: normalised Elo per unit of t-value (fishtest's constant).
NELO_PER_T: Final = 800.0 / math.log(10.0)

EloModel = Literal["logistic", "normalized"]
ELO_MODELS: Final = ("logistic", "normalized")


def bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's LLR bounds (rounded to 3 decimals): reject H1 below, accept it above."""
    if not (0.0 < alpha < 0.5 and 0.0 < beta < 0.5):
        raise ValueError(f"alpha and beta must be in (0, 0.5), not {alpha}, {beta}")
    return round(math.log(beta / (1.0 - alpha)), 3), round(math.log((1.0 - beta) / alpha), 3)


@dataclass(frozen=True)
class Pentanomial:
    """Counts of game pairs by A's points in the pair: 0, ½, 1, 1½, 2.

    ``dd`` counts both two draws and a win with a loss (1 point each).
    """

    ll: int = 0
    ld: int = 0
    dd: int = 0
    wd: int = 0
    ww: int = 0

    @classmethod
    def from_pairs(cls, points: Sequence[float]) -> Pentanomial:
        """Count pairs from A's points in each pair (0, 0.5, 1, 1.5 or 2).

        >>> Pentanomial.from_pairs([2, 1, 1, 0.5])
        Pentanomial(ll=0, ld=1, dd=2, wd=0, ww=1)
        """
        counts = [0] * 5
        for p in points:
            index = round(2 * p)
            if not 0 <= index <= 4 or abs(2 * p - index) > 1e-9:
                raise ValueError(f"a pair scores 0, 0.5, 1, 1.5 or 2 points, not {p}")
            counts[index] += 1
        return cls(*counts)

    @property
    def counts(self) -> tuple[int, int, int, int, int]:
        return (self.ll, self.ld, self.dd, self.wd, self.ww)

    @property
    def pairs(self) -> int:
        return sum(self.counts)

    @property
    def games(self) -> int:
        return 2 * self.pairs

    def frequencies(self) -> list[float]:
        n = self.pairs
        if n == 0:
            raise ValueError("no game pair: the statistics are undefined")
        return [c / n for c in self.counts]

    @property
    def score(self) -> float:
        """A's mean score per game (0..1)."""
        return sum(q * a for q, a in zip(self.frequencies(), PAIR_SCORES, strict=True))

    @property
    def pair_variance(self) -> float:
        """Variance of the pair score (each pair's points / 2)."""
        mu = self.score
        return sum(q * (a - mu) ** 2 for q, a in zip(self.frequencies(), PAIR_SCORES, strict=True))

    def __str__(self) -> str:
        """``[LL, LD, DD+WL, WD, WW]`` as fishtest prints it."""
        return "[" + ", ".join(str(c) for c in self.counts) + "]"


def _regularised(p: Pentanomial) -> list[float]:
    """Frequencies with every empty cell given a tiny weight, as fishtest does
    (1e-3 of a pair), so that a model may put mass where nothing was seen yet."""
    eps = 1e-3
    counts = [c if c > 0 else eps for c in p.counts]
    total = sum(counts)
    return [c / total for c in counts]


def _mle_mean(q: Sequence[float], s: float) -> list[float]:
    """The distribution on :data:`PAIR_SCORES` nearest ``q`` (maximum likelihood)
    with mean ``s``: ``p_i = q_i / (1 + λ (a_i - s))`` with λ found by bisection."""
    a = PAIR_SCORES
    if not 0.0 < s < 1.0:
        raise ValueError(f"a mean score must be in (0, 1), not {s}")
    # 1 + λ (a_i - s) > 0 for all i: λ in (-1/(1 - s), 1/s)
    lo, hi = -1.0 / (1.0 - s), 1.0 / s
    lo, hi = lo + 1e-12 * (hi - lo), hi - 1e-12 * (hi - lo)

    def f(lam: float) -> float:  # decreasing in λ; zero at the constrained optimum
        return sum(qi * (ai - s) / (1.0 + lam * (ai - s)) for qi, ai in zip(q, a, strict=True))

    for _ in range(80):
        mid = 0.5 * (lo + hi)
        if f(mid) > 0.0:
            lo = mid
        else:
            hi = mid
    lam = 0.5 * (lo + hi)
    p = [qi / (1.0 + lam * (ai - s)) for qi, ai in zip(q, a, strict=True)]
    total = sum(p)
    return [pi / total for pi in p]


def _mle_t(q: Sequence[float], t: float, ref: float = 0.5) -> list[float]:
    """The distribution nearest ``q`` with ``(μ - ref) / σ = t`` (fixed point of
    the Lagrange condition: ``p_i = q_i / (1 + λ φ_i)`` with
    ``φ_i = a_i - ref - t ((a_i - μ)² - σ²) / (2σ) - t σ``, recomputing μ, σ).

    The iteration starts from ``q``; when ``q`` is nearly degenerate (a few
    pairs, all alike) it starts again from ``q`` mixed with the uniform law."""
    for weight in (0.0, 0.1, 0.3, 0.6, 0.9):
        start = [(1.0 - weight) * qi + weight / len(q) for qi in q]
        p = _mle_t_from(q, start, t, ref)
        if p is not None:
            return p
    raise ValueError(f"no distribution near the observed one has t-value {t}")


def _mle_t_from(
    q: Sequence[float], start: Sequence[float], t: float, ref: float
) -> list[float] | None:
    a = PAIR_SCORES
    p = list(start)
    for _ in range(200):
        mu = sum(pi * ai for pi, ai in zip(p, a, strict=True))
        var = sum(pi * (ai - mu) ** 2 for pi, ai in zip(p, a, strict=True))
        sigma = math.sqrt(max(var, 1e-18))
        phi = [ai - ref - t * sigma - t * ((ai - mu) ** 2 - var) / (2.0 * sigma) for ai in a]
        pos = [x for x, qi in zip(phi, q, strict=True) if qi > 0 and x > 0]
        neg = [x for x, qi in zip(phi, q, strict=True) if qi > 0 and x < 0]
        if not pos or not neg:  # no λ from this point
            return None
        lo, hi = -1.0 / max(pos), -1.0 / min(neg)
        lo, hi = lo + 1e-12 * (hi - lo), hi - 1e-12 * (hi - lo)

        def f(lam: float, phi: list[float] = phi) -> float:
            return sum(qi * x / (1.0 + lam * x) for qi, x in zip(q, phi, strict=True))

        for _ in range(80):
            mid = 0.5 * (lo + hi)
            if f(mid) > 0.0:
                lo = mid
            else:
                hi = mid
        lam = 0.5 * (lo + hi)
        new = [qi / (1.0 + lam * x) for qi, x in zip(q, phi, strict=True)]
        total = sum(new)
        new = [x / total for x in new]
        change = max(abs(x - y) for x, y in zip(new, p, strict=True))
        p = new
        if change < 1e-13:
            break
    mu = sum(pi * ai for pi, ai in zip(p, a, strict=True))
    sigma = math.sqrt(sum(pi * (ai - mu) ** 2 for pi, ai in zip(p, a, strict=True)))
    if abs((mu - ref) - t * sigma) > 1e-9:  # did not converge to the constraint
        return None
    return p


def _loglik_ratio(q: Sequence[float], p1: Sequence[float], p0: Sequence[float]) -> float:
    return sum(qi * math.log(x / y) for qi, x, y in zip(q, p1, p0, strict=True) if qi > 0 and x > 0)


def llr(p: Pentanomial, elo0: float, elo1: float, model: EloModel = "logistic") -> float:
    """The generalised log-likelihood ratio of H1 (``elo1``) over H0 (``elo0``).

    >>> llr(Pentanomial(), 0, 5)
    0.0
    """
    if model not in ELO_MODELS:
        raise ValueError(f"Elo model must be one of {', '.join(ELO_MODELS)}, not {model!r}")
    if p.pairs == 0:
        return 0.0
    q = _regularised(p)
    if model == "logistic":
        p0 = _mle_mean(q, logistic_score(elo0))
        p1 = _mle_mean(q, logistic_score(elo1))
    else:
        # one game's σ is √2 times the pair average's: t per pair = √2 · t per game
        t0, t1 = (math.sqrt(2.0) * e / NELO_PER_T for e in (elo0, elo1))
        p0, p1 = _mle_t(q, t0), _mle_t(q, t1)
    return p.pairs * _loglik_ratio(q, p1, p0)


@dataclass(frozen=True)
class Estimate:
    """Elo (logistic) and normalised Elo of A with their 95 % intervals, from pairs."""

    score: float
    elo: float
    elo_low: float
    elo_high: float
    nelo: float
    nelo_low: float
    nelo_high: float

    def describe(self) -> str:
        return (
            f"Elo {self.elo:+.1f} [{self.elo_low:+.1f}, {self.elo_high:+.1f}], "
            f"nElo {self.nelo:+.1f} [{self.nelo_low:+.1f}, {self.nelo_high:+.1f}] (95%)"
        )


def estimate(p: Pentanomial) -> Estimate:
    """Score and Elo with 95 % intervals from the pair variance.

    Logistic Elo: the score ``μ`` and ``μ ± 1.96·σ_pair/√N`` through
    :func:`logistic_elo`.  Normalised Elo: ``(μ - ½)/(√2·σ_pair) · 800/ln 10``
    and ``± 1.96 · 800/ln 10 / √(2N)`` (N pairs).

    >>> e = estimate(Pentanomial(ll=0, ld=10, dd=20, wd=10, ww=0))
    >>> e.score, e.elo, round(e.elo_high, 1), e.nelo
    (0.5, 0.0, 38.2, 0.0)
    """
    n = p.pairs
    mu = p.score
    sd = math.sqrt(p.pair_variance)
    se = sd / math.sqrt(n)
    elo = logistic_elo(mu)
    low, high = logistic_elo(mu - Z_95 * se), logistic_elo(mu + Z_95 * se)
    if sd > 0:
        nelo = (mu - 0.5) / (math.sqrt(2.0) * sd) * NELO_PER_T
        half = Z_95 * NELO_PER_T / math.sqrt(2.0 * n)
    else:
        nelo = 0.0 if mu == 0.5 else math.copysign(math.inf, mu - 0.5)
        half = 0.0
    return Estimate(mu, elo, low, high, nelo, nelo - half, nelo + half)


@dataclass(frozen=True)
class SprtState:
    """Where a test stands: its LLR, bounds and decision (``None`` while running)."""

    llr: float
    lower: float
    upper: float
    decision: Literal["H0", "H1"] | None

    def describe(self) -> str:
        verdict = {
            None: "running",
            "H1": "H1 accepted (passed)",
            "H0": "H0 accepted (failed)",
        }[self.decision]
        return f"LLR {self.llr:+.2f} ({self.lower:+.2f}, {self.upper:+.2f}): {verdict}"


@dataclass(frozen=True)
class Sprt:
    """A test of H0 ``elo0`` against H1 ``elo1`` with error rates α and β."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05
    model: EloModel = "logistic"

    def __post_init__(self) -> None:
        if not self.elo1 > self.elo0:
            raise ValueError(f"elo1 must be above elo0, not [{self.elo0}, {self.elo1}]")
        if self.model not in ELO_MODELS:
            raise ValueError(
                f"Elo model must be one of {', '.join(ELO_MODELS)}, not {self.model!r}"
            )
        bounds(self.alpha, self.beta)

    def state(self, p: Pentanomial) -> SprtState:
        """The LLR of ``p`` and the decision it gives."""
        lower, upper = bounds(self.alpha, self.beta)
        value = llr(p, self.elo0, self.elo1, self.model)
        decision: Literal["H0", "H1"] | None = None
        if value >= upper:
            decision = "H1"
        elif value <= lower:
            decision = "H0"
        return SprtState(value, lower, upper, decision)

    def describe(self) -> str:
        return (
            f"SPRT {self.model} Elo [{self.elo0:g}, {self.elo1:g}], "
            f"alpha {self.alpha:g}, beta {self.beta:g}"
        )


__all__ = [
    "ELO_MODELS",
    "NELO_PER_T",
    "PAIR_SCORES",
    "EloModel",
    "Estimate",
    "Pentanomial",
    "Sprt",
    "SprtState",
    "bounds",
    "estimate",
    "llr",
]
