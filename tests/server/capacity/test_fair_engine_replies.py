"""Engine replies are shared between clients in turn: one client's queue of
searches does not delay another client's reply behind all of them."""

from __future__ import annotations

import threading
from typing import Any

from poolcheckers.server.analysis.runner import EngineRunner


def test_one_clients_many_pending_replies_do_not_hold_up_anothers_reply() -> None:
    runner = EngineRunner(service=Any, threads=1)  # type: ignore[arg-type]
    started = threading.Event()
    release = threading.Event()
    order: list[str] = []

    def blocker() -> None:
        started.set()
        release.wait(10)

    def job(name: str) -> Any:
        return lambda: order.append(name)

    try:
        runner.game_pool.submit("flooder", blocker)
        assert started.wait(10)
        futures = [runner.game_pool.submit("flooder", job(f"flood{i}")) for i in range(20)]
        futures.append(runner.game_pool.submit("visitor", job("visitor")))
        release.set()
        for f in futures:
            f.result(10)
    finally:
        release.set()
        runner.close()
    # the visitor waits behind at most one of the flooder's pending replies
    assert order.index("visitor") <= 1, order
