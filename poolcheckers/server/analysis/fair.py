"""FairPool: worker threads that serve clients in turn, not in arrival order.

A plain ``ThreadPoolExecutor`` is one FIFO queue: sixty searches queued by one
client run before the one search another client queued after them.  Here each
client has its own queue and a worker takes the next *client* in turn (round
robin), so a client waits behind at most one pending job of each other client.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

T = TypeVar("T")

_Job = tuple[Callable[[], Any], "Future[Any]"]


class FairPool:
    """``threads`` workers over one queue per client, served round robin."""

    def __init__(
        self,
        threads: int,
        *,
        name: str = "fair",
        initializer: Callable[[], None] | None = None,
    ) -> None:
        self._queues: dict[str, deque[_Job]] = {}
        self._turns: deque[str] = deque()  # clients with pending jobs, next first
        self._cond = threading.Condition()
        self._closed = False
        self._initializer = initializer
        self._threads = [
            threading.Thread(target=self._work, name=f"{name}_{i}", daemon=True)
            for i in range(max(1, threads))
        ]
        for t in self._threads:
            t.start()

    def submit(self, client: str, fn: Callable[[], T]) -> Future[T]:
        """Queue ``fn`` as ``client``'s job; its result (or error) in the future."""
        fut: Future[T] = Future()
        with self._cond:
            if self._closed:
                raise RuntimeError("the pool is shut down")
            queue = self._queues.get(client)
            if queue is None:
                queue = self._queues[client] = deque()
                self._turns.append(client)
            queue.append((fn, fut))
            self._cond.notify()
        return fut

    def pending(self, client: str | None = None) -> int:
        """Jobs waiting (not running): of ``client``, or of everyone."""
        with self._cond:
            if client is not None:
                return len(self._queues.get(client, ()))
            return sum(len(q) for q in self._queues.values())

    def _next(self) -> _Job | None:
        with self._cond:
            while not self._turns and not self._closed:
                self._cond.wait()
            if not self._turns:
                return None
            client = self._turns.popleft()
            queue = self._queues[client]
            job = queue.popleft()
            if queue:
                self._turns.append(client)  # its next job waits for everyone else's turn
            else:
                del self._queues[client]
            return job

    def _work(self) -> None:
        if self._initializer is not None:
            self._initializer()
        while (job := self._next()) is not None:
            fn, fut = job
            if not fut.set_running_or_notify_cancel():
                continue
            try:
                result = fn()
            except BaseException as exc:  # handed to the awaiting side
                fut.set_exception(exc)
            else:
                fut.set_result(result)

    def shutdown(self, *, wait: bool = True, cancel_futures: bool = False) -> None:
        with self._cond:
            self._closed = True
            if cancel_futures:
                for queue in self._queues.values():
                    for _, fut in queue:
                        fut.cancel()
                self._queues.clear()
                self._turns.clear()
            self._cond.notify_all()
        if wait:
            for t in self._threads:
                if t is not threading.current_thread():
                    t.join()
