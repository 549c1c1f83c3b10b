"""The sign-in limits (over the shared quotas), on a hand-moved clock, and the keys
addresses are limited by."""

from __future__ import annotations

import pytest

from poolcheckers.server.database.engine import make_engine, run_migrations
from poolcheckers.server.quotas import Quotas, Rate
from poolcheckers.server.throttle import (
    ADDRESS_BURST_LIMIT,
    ADDRESS_LIMIT,
    USERNAME_ADDRESS_FAILURE_LIMIT,
    SignInLimits,
    address_key,
)


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def quotas() -> tuple[Quotas, FakeClock]:
    engine = make_engine("sqlite://")
    run_migrations(engine)
    clock = FakeClock()
    return Quotas(engine, clock=clock), clock


#: no per-minute limit, for the tests of the others
NO_BURST = Rate("no-burst", 999, 60)


def test_guessing_from_one_address_is_stopped(quotas: tuple[Quotas, FakeClock]) -> None:
    q, clock = quotas
    limiter = SignInLimits(q, per_address_burst=NO_BURST)
    for i in range(ADDRESS_LIMIT.limit):
        assert limiter.attempt(f"user{i}", "198.51.100.9").allowed
    refused = limiter.attempt("someone", "198.51.100.9")
    assert not refused.allowed and 0 < refused.retry_after <= ADDRESS_LIMIT.seconds
    assert limiter.attempt("someone", "198.51.100.10").allowed
    clock.now += 2 * ADDRESS_LIMIT.seconds
    assert limiter.attempt("someone", "198.51.100.9").allowed


def test_a_burst_from_one_address_waits_a_minute(quotas: tuple[Quotas, FakeClock]) -> None:
    """Fifty addresses signing in at once each get a few attempts a minute, so that
    their hashes cannot fill the queue everyone's sign-in waits in for long."""
    q, clock = quotas
    limiter = SignInLimits(q)
    for _ in range(ADDRESS_BURST_LIMIT.limit):
        assert limiter.burst("198.51.100.9").allowed
    refused = limiter.burst("198.51.100.9")
    assert not refused.allowed and 0 < refused.retry_after <= 60
    assert limiter.burst("198.51.100.10").allowed
    clock.now += 120
    assert limiter.burst("198.51.100.9").allowed


def test_ipv6_neighbours_share_a_limit(quotas: tuple[Quotas, FakeClock]) -> None:
    limiter = SignInLimits(quotas[0], per_address=Rate("a", 2, 60))
    assert limiter.attempt("a", "2001:db8::1").allowed
    assert limiter.attempt("a", "2001:db8::ffff:2").allowed
    assert not limiter.attempt("a", "2001:db8::3").allowed
    assert limiter.attempt("a", "2001:db8:0:1::1").allowed  # another /64


def test_failures_from_one_address_stop_only_that_address(
    quotas: tuple[Quotas, FakeClock],
) -> None:
    limiter = SignInLimits(quotas[0], per_address_burst=NO_BURST)
    for _ in range(USERNAME_ADDRESS_FAILURE_LIMIT.limit):
        assert limiter.attempt("ann", "203.0.113.7").allowed
        limiter.failed("ann", "203.0.113.7")
    assert not limiter.attempt("ann", "203.0.113.7").allowed
    assert limiter.attempt("ann", "198.51.100.2").allowed
    assert limiter.attempt("bob", "203.0.113.7").allowed


def test_spraying_one_account_from_many_addresses_is_stopped(
    quotas: tuple[Quotas, FakeClock],
) -> None:
    q, clock = quotas
    limiter = SignInLimits(q, per_username=Rate("u", 12, 3600))
    for i in range(12):
        assert limiter.attempt("ann", f"203.0.113.{i}").allowed
        limiter.failed("ann", f"203.0.113.{i}")
    assert not limiter.attempt("ann", "192.0.2.200").allowed
    assert limiter.attempt("bob", "192.0.2.200").allowed
    clock.now += 2 * 3600
    assert limiter.attempt("ann", "192.0.2.200").allowed


def test_success_clears_the_failures_of_its_address(quotas: tuple[Quotas, FakeClock]) -> None:
    limiter = SignInLimits(quotas[0], per_username_address=Rate("f", 2, 60))
    limiter.failed("ann", "192.0.2.1")
    limiter.failed("ann", "192.0.2.1")
    assert not limiter.attempt("ann", "192.0.2.1").allowed
    limiter.succeeded("ann", "192.0.2.1")
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
