"""SPRT statistics over game pairs (pentanomial), checked against closed forms."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from poolcheckers.tooling.sprt import (
    NELO_PER_T,
    EloModel,
    Pentanomial,
    Sprt,
    _mle_t,
    bounds,
    estimate,
    llr,
)
from poolcheckers.tooling.stats import logistic_elo, logistic_score


def test_wald_bounds() -> None:
    lower, upper = bounds(0.05, 0.05)
    assert lower == pytest.approx(math.log(0.05 / 0.95), abs=1e-3)
    assert upper == pytest.approx(math.log(0.95 / 0.05), abs=1e-3)
    assert bounds(0.05, 0.1) == (round(math.log(0.1 / 0.95), 3), round(math.log(0.9 / 0.05), 3))
    with pytest.raises(ValueError, match="alpha and beta"):
        bounds(0.0, 0.05)


def test_pentanomial_counts_pairs_by_points() -> None:
    p = Pentanomial.from_pairs([0, 0.5, 1, 1, 1.5, 2, 2])
    assert p.counts == (1, 1, 2, 1, 2) and p.pairs == 7 and p.games == 14
    assert p.score == pytest.approx((0 + 0.5 + 1 + 1 + 1.5 + 2 + 2) / 14)
    assert str(p) == "[1, 1, 2, 1, 2]"
    with pytest.raises(ValueError, match="a pair scores"):
        Pentanomial.from_pairs([0.7])


def test_logistic_llr_of_wins_and_losses_only_is_the_bernoulli_closed_form() -> None:
    # only LL and WW pairs: the pair score is Bernoulli, the MLE under a mean
    # s is Bernoulli(s) itself, so LLR = N [q ln(s1/s0) + (1-q) ln((1-s1)/(1-s0))]
    p = Pentanomial(ll=400, ww=600)
    s0, s1 = logistic_score(0.0), logistic_score(10.0)
    q = 0.6
    expected = 1000 * (q * math.log(s1 / s0) + (1 - q) * math.log((1 - s1) / (1 - s0)))
    assert llr(p, 0.0, 10.0, "logistic") == pytest.approx(expected, rel=1e-4)


def test_normalized_llr_of_wins_and_losses_only_is_the_bernoulli_closed_form() -> None:
    # Bernoulli(p): t = (p - 1/2) / sqrt(p (1 - p))  <=>  p = 1/2 + t / (2 sqrt(1 + t^2));
    # a pair's t is sqrt(2) times one game's normalised t
    p = Pentanomial(ll=450, ww=550)

    def bern(nelo: float) -> float:
        t = math.sqrt(2) * nelo / NELO_PER_T
        return 0.5 + t / (2 * math.sqrt(1 + t * t))

    b0, b1 = bern(0.0), bern(20.0)
    expected = 1000 * (0.55 * math.log(b1 / b0) + 0.45 * math.log((1 - b1) / (1 - b0)))
    assert llr(p, 0.0, 20.0, "normalized") == pytest.approx(expected, rel=1e-4)


def test_logistic_llr_matches_the_quadratic_approximation_for_small_elo() -> None:
    # for hypotheses close together, LLR ~ N (s1 - s0)(2 mu - s0 - s1) / (2 var)
    p = Pentanomial(ll=300, ld=1500, dd=4000, wd=1700, ww=500)
    s0, s1 = logistic_score(0.0), logistic_score(5.0)
    approx = p.pairs * (s1 - s0) * (2 * p.score - s0 - s1) / (2 * p.pair_variance)
    assert llr(p, 0.0, 5.0) == pytest.approx(approx, rel=0.02)


def test_normalized_llr_matches_the_t_value_approximation() -> None:
    # LLR ~ N/2 [(t - t0)^2 ... ] = N (t1 - t0)(2 t - t0 - t1) / 2 for pairs
    p = Pentanomial(ll=300, ld=1500, dd=4000, wd=1700, ww=500)
    t = (p.score - 0.5) / math.sqrt(p.pair_variance)
    t0, t1 = 0.0, math.sqrt(2) * 5.0 / NELO_PER_T
    approx = p.pairs * (t1 - t0) * (2 * t - t0 - t1) / 2
    assert llr(p, 0.0, 5.0, "normalized") == pytest.approx(approx, rel=0.03)


def test_the_normalized_mle_meets_its_constraint() -> None:
    q = [0.05, 0.2, 0.5, 0.2, 0.05]
    for t in (-0.3, 0.0, 0.1, 0.4):
        p = _mle_t(q, t)
        mu = sum(pi * a for pi, a in zip(p, (0, 0.25, 0.5, 0.75, 1), strict=True))
        var = sum(pi * (a - mu) ** 2 for pi, a in zip(p, (0, 0.25, 0.5, 0.75, 1), strict=True))
        assert sum(p) == pytest.approx(1.0)
        assert (mu - 0.5) / math.sqrt(var) == pytest.approx(t, abs=1e-9)


@pytest.mark.parametrize("model", ["logistic", "normalized"])
def test_symmetric_results_favour_neither_symmetric_hypothesis(model: EloModel) -> None:
    p = Pentanomial(ll=20, ld=50, dd=100, wd=50, ww=20)
    assert llr(p, -5.0, 5.0, model) == pytest.approx(0.0, abs=1e-9)


@pytest.mark.parametrize("model", ["logistic", "normalized"])
@settings(deadline=None, max_examples=60)
@given(counts=st.lists(st.integers(0, 60), min_size=5, max_size=5))
def test_llr_is_antisymmetric_and_grows_with_wins(model: EloModel, counts: list[int]) -> None:
    p = Pentanomial(*counts)
    mirror = Pentanomial(*reversed(counts))
    value = llr(p, 0.0, 10.0, model)
    assert llr(mirror, -10.0, 0.0, model) == pytest.approx(-value, abs=1e-6)
    more = Pentanomial(p.ll, p.ld, p.dd, p.wd, p.ww + 1)
    assert llr(more, 0.0, 10.0, model) >= value - 1e-9


def test_sprt_decides_when_the_llr_leaves_the_bounds() -> None:
    test = Sprt(0.0, 10.0)
    assert test.state(Pentanomial(ll=1, dd=2, ww=1)).decision is None
    assert test.state(Pentanomial(ll=100, ld=300, dd=800, wd=500, ww=200)).decision == "H1"
    assert test.state(Pentanomial(ll=200, ld=500, dd=800, wd=500, ww=200)).decision == "H0"
    with pytest.raises(ValueError, match="elo1 must be above elo0"):
        Sprt(5.0, 0.0)
    with pytest.raises(ValueError, match="Elo model"):
        Sprt(0.0, 5.0, model="bayes")  # type: ignore[arg-type]  # deliberately no model


def test_estimate_by_hand() -> None:
    # 40 pairs: 10 at 0.25, 20 at 0.5, 10 at 0.75 -> pair variance 0.03125
    e = estimate(Pentanomial(ld=10, dd=20, wd=10))
    se = math.sqrt(0.03125 / 40)
    assert e.score == 0.5 and e.elo == 0.0 and e.nelo == 0.0
    assert e.elo_high == pytest.approx(logistic_elo(0.5 + 1.959963984540054 * se))
    assert e.nelo_high == pytest.approx(1.959963984540054 * NELO_PER_T / math.sqrt(80))
    # an even score with a spread gives a symmetric interval
    assert e.elo_low == pytest.approx(-e.elo_high)
    better = estimate(Pentanomial(ld=5, dd=20, wd=15))
    assert better.score == pytest.approx(0.5625) and better.elo > 0 and better.nelo > 0
    assert better.elo == pytest.approx(400 * math.log10(0.5625 / 0.4375))
