"""Rates and holdings shared by every server process of a site: the counts live in
the database, so two processes enforce one limit, not one each."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Iterator

import pytest
from sqlalchemy import Engine

from poolcheckers.server.database.engine import make_engine, run_migrations
from poolcheckers.server.quotas import Quotas, Rate

START = 1_800_000_000.0


class Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def engine(db_url: str) -> Iterator[Engine]:
    engine = make_engine(db_url)
    run_migrations(engine)
    yield engine
    engine.dispose()


@pytest.fixture
def now() -> Clock:
    return Clock()


def test_a_rate_allows_its_limit_per_key_and_refuses_with_a_wait(
    engine: Engine, now: Clock
) -> None:
    quotas = Quotas(engine, clock=now)
    rate = Rate("signin", 3, 600)
    assert [quotas.hit(rate, "203.0.113.7").allowed for _ in range(4)] == [True] * 3 + [False]
    refused = quotas.hit(rate, "203.0.113.7")
    assert not refused.allowed and 1 <= refused.retry_after <= 600
    assert quotas.hit(rate, "198.51.100.9").allowed  # another key has its own count
    assert quotas.hit(Rate("signup", 3, 600), "203.0.113.7").allowed  # another rate too


def test_a_rate_frees_up_as_its_window_slides_by(engine: Engine, now: Clock) -> None:
    quotas = Quotas(engine, clock=now)
    rate = Rate("games", 2, 60)
    assert quotas.hit(rate, "a").allowed and quotas.hit(rate, "a").allowed
    assert not quotas.hit(rate, "a").allowed
    now.now += 120  # two windows later nothing of the old events is left
    assert quotas.hit(rate, "a").allowed


def test_test_counts_nothing_and_clear_forgets(engine: Engine, now: Clock) -> None:
    quotas = Quotas(engine, clock=now)
    rate = Rate("failures", 2, 900)
    assert quotas.test(rate, "ann").allowed
    quotas.hit(rate, "ann")
    quotas.hit(rate, "ann")
    assert not quotas.test(rate, "ann").allowed
    quotas.clear(rate, "ann")
    assert quotas.test(rate, "ann").allowed


def test_two_quotas_over_one_database_share_the_count(engine: Engine, now: Clock) -> None:
    first, second = Quotas(engine, clock=now), Quotas(engine, clock=now)
    rate = Rate("signup", 4, 3600)
    allowed = [q.hit(rate, "203.0.113.7").allowed for q in (first, second) * 4]
    assert allowed.count(True) == 4


def test_a_key_of_any_length_is_counted(engine: Engine, now: Clock) -> None:
    quotas = Quotas(engine, clock=now)
    rate = Rate("signin-user", 1, 60)
    long_name = "ü" * 5000
    assert quotas.hit(rate, long_name).allowed
    assert not quotas.hit(rate, long_name).allowed
    assert quotas.hit(rate, long_name[:-1]).allowed


def test_a_rate_needs_a_limit_and_a_window() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        Rate("x", 0, 60)


def test_slots_are_held_until_given_back(engine: Engine, now: Clock) -> None:
    slots = Quotas(engine, clock=now).slots
    first, second = slots.take("analysis/a", 2, 30), slots.take("analysis/a", 2, 30)
    assert first and second
    assert slots.take("analysis/a", 2, 30) is None
    assert slots.take("analysis/b", 2, 30) is not None
    assert slots.held("analysis/a") == 2
    slots.give_back(first)
    assert slots.take("analysis/a", 2, 30) is not None


def test_a_lease_lapses_by_itself_unless_extended(engine: Engine, now: Clock) -> None:
    slots = Quotas(engine, clock=now).slots
    kept, lost = slots.take("k", 2, 30), slots.take("k", 2, 30)
    assert kept and lost
    now.now += 20
    assert slots.extend(kept, 30)
    now.now += 20  # ``lost`` lapsed at 30 s, ``kept`` lives until 50 s
    assert slots.held("k") == 1
    assert not slots.extend(lost, 30)
    assert slots.take("k", 2, 30) is not None


WORKER = textwrap.dedent(
    """
    import sys
    from poolcheckers.server.database.engine import make_engine
    from poolcheckers.server.quotas import Quotas, Rate
    url, what = sys.argv[1], sys.argv[2]
    quotas = Quotas(make_engine(url), clock=lambda: 1_800_000_000.0)
    if what == "rate":
        rate = Rate("signin", 10, 600)
        print(sum(quotas.hit(rate, "203.0.113.7").allowed for _ in range(25)))
    else:
        print(sum(quotas.slots.take("analysis/203.0.113.7", 3, 60) is not None
                  for _ in range(5)))
    """
)


def _in_processes(url: str, what: str, processes: int = 3) -> int:
    """Run the worker in ``processes`` processes at once; the sum of what they got."""
    running = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, url, what], stdout=subprocess.PIPE, text=True
        )
        for _ in range(processes)
    ]
    outputs = [p.communicate(timeout=120)[0] for p in running]
    assert all(p.returncode == 0 for p in running), outputs
    return sum(int(out) for out in outputs)


@pytest.mark.parametrize("what, limit", [("rate", 10), ("slots", 3)])
def test_processes_over_one_sqlite_file_enforce_one_limit(
    engine: Engine, db_url: str, what: str, limit: int
) -> None:
    assert _in_processes(db_url, what) == limit


@pytest.mark.postgres
@pytest.mark.parametrize("what, limit", [("rate", 10), ("slots", 3)])
def test_processes_over_one_postgresql_database_enforce_one_limit(
    pg_url: str, what: str, limit: int
) -> None:
    engine = make_engine(pg_url)
    run_migrations(engine)
    engine.dispose()
    assert _in_processes(pg_url, what) == limit
