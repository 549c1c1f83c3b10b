"""Time management under a clock (poolcheckers.engine.timeman, docs/ENGINE.md)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from poolcheckers.engine import Limit, make_limit
from poolcheckers.engine.timeman import (
    POLICIES,
    POLICY_VARIABLE,
    RESERVE,
    clock_shares,
    time_policy,
)

seconds = st.floats(min_value=0.0, max_value=1e6, allow_nan=False)


@given(clock=seconds, increment=seconds, policy=st.sampled_from(POLICIES))
def test_shares_are_positive_ordered_and_never_the_whole_clock(
    clock: float, increment: float, policy: str
) -> None:
    soft, hard = clock_shares(clock, increment, policy=policy)
    assert 0 < soft <= hard  # a share of 0 would mean "no time limit" to the search
    # what is left after the move stays positive, whatever the increment
    assert hard <= max(clock / 2, 0.005, 1e-6)


@given(clock=seconds, increment=seconds)
def test_reserve_never_budgets_its_reserve(clock: float, increment: float) -> None:
    _soft, hard = clock_shares(clock, increment, policy="reserve")
    assert hard <= max(clock - RESERVE, 1e-6)


def test_default_policy_is_the_documented_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(POLICY_VARIABLE, raising=False)
    assert time_policy() == "default"
    assert clock_shares(60.0, 1.0) == pytest.approx((2.75, 8.25))
    # plain: a thirtieth of the clock plus the increment, hard stop the same
    assert clock_shares(6.0, 0.06, policy="plain") == pytest.approx((0.26, 0.26))
    assert clock_shares(0.05, 0.06, policy="plain") == pytest.approx((0.025, 0.025))


def test_the_environment_chooses_the_policy_of_every_limit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    limit = make_limit(clock=6.0, increment=0.06)
    monkeypatch.setenv(POLICY_VARIABLE, "plain")
    assert (limit.soft_budget(), limit.budget()) == pytest.approx((0.26, 0.26))
    monkeypatch.setenv(POLICY_VARIABLE, "reserve")
    usable = 6.0 - RESERVE
    assert limit.soft_budget() == pytest.approx(usable / 30 + 0.06, abs=1e-6)
    assert limit.budget() == pytest.approx(3 * (usable / 30 + 0.06), abs=1e-6)
    monkeypatch.setenv(POLICY_VARIABLE, "fast")
    with pytest.raises(ValueError, match=r"POOLCHECKERS_TIME_POLICY must be one of .* 'fast'"):
        limit.budget()


def test_an_empty_clock_still_bounds_the_search() -> None:
    # a budget of 0 means "no limit" to the search: an empty clock gets a microsecond
    assert Limit(clock=0.0).budget() == 1e-06
    assert Limit(clock=0.0, increment=1.0).soft_budget() == 1e-06
    for policy in POLICIES:
        assert clock_shares(0.0, 0.0, policy=policy) == (1e-06, 1e-06)
