"""Time management under a game clock: the share of the clock one move may take.

:meth:`Limit.budget <poolcheckers.engine.core.Limit.budget>` (the hard stop)
and :meth:`Limit.soft_budget <poolcheckers.engine.core.Limit.soft_budget>`
(no new depth past it) come from :func:`clock_shares`.  The search itself
(``native/search.c``) begins no new depth after the soft share (scaled by the
best move's stability) nor after half the hard stop, and aborts at the hard
stop, keeping the last depth it finished.

The policy is chosen by the environment variable ``POOLCHECKERS_TIME_POLICY``
(read at each move, so that two engines of one build can be measured against
each other in a match, each in its own process):

``default``
    soft = min(clock / 30 + 3/4 increment, clock / 5); hard = min(3 x soft,
    max(5 ms, clock / 3)).
``plain``
    the reference of docs/ENGINE.md's clock test: soft = hard =
    min(clock / 30 + increment, clock / 2).
``reserve``
    ``default`` with a reserve for what the engine's own clock does not see
    (the work before and after the native search, the protocol, the
    machine's load: at 6+0.06 on a loaded machine moves overran a budget of a
    few tens of milliseconds by up to 0.23 s): of ``usable = clock - 0.2 s``,
    soft = min(usable / 30 + increment, usable / 5) (the whole increment,
    which comes back after the move); hard = min(3 x soft, usable / 3), with
    no 5 ms floor.  Below the reserve the engine plays at once and lives on
    its increment until the clock is above the reserve again.

Any other value is refused with a ``ValueError`` naming it.

>>> clock_shares(60.0, 1.0, policy="default")
(2.75, 8.25)
>>> clock_shares(60.0, 1.0, policy="plain")
(3.0, 3.0)
>>> [round(s, 6) for s in clock_shares(0.5, 0.06, policy="reserve")]  # 0.3 s usable
[0.06, 0.1]
>>> clock_shares(0.0, 0.1, policy="default")  # an empty clock still bounds the search
(1e-06, 1e-06)
"""

from __future__ import annotations

import os
from typing import Final

__all__ = ["POLICIES", "POLICY_VARIABLE", "RESERVE", "clock_shares", "time_policy"]

#: The environment variable that chooses the policy.
POLICY_VARIABLE: Final = "POOLCHECKERS_TIME_POLICY"

#: The policies :func:`clock_shares` knows, the first the default.
POLICIES: Final = ("default", "plain", "reserve")

#: Seconds of the clock the ``reserve`` policy never budgets.
RESERVE: Final = 0.2

#: The smallest share returned: a bound of 0 would mean "no time limit".
_MIN_SHARE: Final = 1e-6


def time_policy() -> str:
    """The policy named by ``POOLCHECKERS_TIME_POLICY`` (unset or empty: ``default``).

    >>> import os; os.environ[POLICY_VARIABLE] = "fast"
    >>> time_policy()
    Traceback (most recent call last):
    ...
    ValueError: POOLCHECKERS_TIME_POLICY must be one of default, plain, reserve, not 'fast'
    >>> del os.environ[POLICY_VARIABLE]; time_policy()
    'default'
    """
    name = os.environ.get(POLICY_VARIABLE, "").strip() or POLICIES[0]
    if name not in POLICIES:
        raise ValueError(f"{POLICY_VARIABLE} must be one of {', '.join(POLICIES)}, not {name!r}")
    return name


def clock_shares(
    clock: float, increment: float, *, policy: str | None = None
) -> tuple[float, float]:
    """(soft, hard) seconds of a move with ``clock`` seconds left and
    ``increment`` seconds added after the move, under ``policy`` (default:
    :func:`time_policy`).  Both are at least a microsecond and the soft share
    is never above the hard one."""
    name = time_policy() if policy is None else policy
    clock, increment = float(clock), float(increment)
    if name == "default":
        soft = min(clock / 30 + 0.75 * increment, clock / 5)
        hard = min(3 * soft, max(0.005, clock / 3))
    elif name == "plain":
        soft = hard = min(clock / 30 + increment, clock / 2)
    elif name == "reserve":
        usable = max(0.0, clock - RESERVE)
        soft = min(usable / 30 + increment, usable / 5)
        hard = min(3 * soft, usable / 3)
    else:
        raise ValueError(f"unknown time policy {name!r} (known: {', '.join(POLICIES)})")
    hard = max(hard, _MIN_SHARE)
    return min(max(soft, _MIN_SHARE), hard), hard
