"""Sliding-window limits and the sign-in limiter, on a hand-moved clock."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from poolcheckers.server.throttle import (
    ADDRESS_LIMIT,
    USERNAME_FAILURE_LIMIT,
    SignInLimiter,
    SlidingWindow,
    address_key,
)


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_window_slides() -> None:
    clock = FakeClock()
    w = SlidingWindow(3, 10.0, clock=clock)
    for _ in range(3):
        assert w.hit("a").allowed
        clock.now += 1
    refused = w.hit("a")
    assert not refused.allowed
    assert refused.retry_after == pytest.approx(7.0)  # the first hit leaves at 1010
    assert w.hit("b").allowed  # keys are independent
    clock.now = 1010.0
    assert w.hit("a").allowed
    assert not w.hit("a").allowed


def test_check_records_nothing_and_reset_forgets() -> None:
    clock = FakeClock()
    w = SlidingWindow(1, 10.0, clock=clock)
    assert w.check("a").allowed and w.check("a").allowed
    w.record("a")
    assert not w.check("a").allowed
    w.reset("a")
    assert w.check("a").allowed


def test_memory_is_bounded() -> None:
    w = SlidingWindow(1, 10.0, clock=FakeClock(), max_keys=50)
    for i in range(500):
        w.hit(f"k{i}")
    assert len(w) == 50
    assert not w.check("k499").allowed  # the newest keys are kept


def test_bad_parameters() -> None:
    with pytest.raises(ValueError, match="limit and max_keys"):
        SlidingWindow(0, 10.0)


@given(st.lists(st.floats(0, 100), max_size=60), st.integers(1, 5), st.floats(1, 30))
def test_never_more_than_limit_in_any_window(steps: list[float], limit: int, window: float) -> None:
    clock = FakeClock()
    w = SlidingWindow(limit, window, clock=clock)
    allowed: list[float] = []
    for step in steps:
        clock.now += step
        if w.hit("k").allowed:
            allowed.append(clock.now)
    for i, t in enumerate(allowed):
        assert sum(1 for u in allowed[i:] if u < t + window) <= limit


def test_guessing_from_one_address_is_stopped() -> None:
    clock = FakeClock()
    limiter = SignInLimiter(clock=clock)
    limit, window = ADDRESS_LIMIT
    for i in range(limit):
        assert limiter.attempt(f"user{i}", "198.51.100.9").allowed
    refused = limiter.attempt("someone", "198.51.100.9")
    assert not refused.allowed and 0 < refused.retry_after <= window
    assert limiter.attempt("someone", "198.51.100.10").allowed
    clock.now += window
    assert limiter.attempt("someone", "198.51.100.9").allowed


def test_ipv6_neighbours_share_a_limit() -> None:
    limiter = SignInLimiter(clock=FakeClock(), address_limit=(2, 60.0))
    assert limiter.attempt("a", "2001:db8::1").allowed
    assert limiter.attempt("a", "2001:db8::ffff:2").allowed
    assert not limiter.attempt("a", "2001:db8::3").allowed
    assert limiter.attempt("a", "2001:db8:0:1::1").allowed  # another /64


def test_spraying_one_account_from_many_addresses_is_stopped() -> None:
    clock = FakeClock()
    limiter = SignInLimiter(clock=clock)
    limit, window = USERNAME_FAILURE_LIMIT
    for i in range(limit):
        assert limiter.attempt("ann", f"203.0.113.{i}").allowed
        limiter.failed("ann")
    assert not limiter.attempt("ann", "192.0.2.200").allowed
    assert limiter.attempt("bob", "192.0.2.200").allowed
    clock.now += window
    assert limiter.attempt("ann", "192.0.2.200").allowed


def test_success_clears_the_failures() -> None:
    limiter = SignInLimiter(clock=FakeClock(), username_failure_limit=(2, 60.0))
    limiter.failed("ann")
    limiter.succeeded("ann")
    limiter.failed("ann")
    assert limiter.attempt("ann", "192.0.2.1").allowed


@pytest.mark.parametrize(
    ("address", "key"),
    [
        ("192.0.2.1", "192.0.2.1"),
        (" 192.0.2.1 ", "192.0.2.1"),
        ("2001:DB8::1", "2001:db8::/64"),
        ("::ffff:192.0.2.1", "192.0.2.1"),
        ("testclient", "testclient"),  # Starlette's test client has no real address
    ],
)
def test_address_keys(address: str, key: str) -> None:
    assert address_key(address) == key
