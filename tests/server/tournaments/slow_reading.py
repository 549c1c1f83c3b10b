"""Readers of TRF files that take their time, for the import's tests: the import's
worker process imports this small module by name (not the test module, whose imports
would take seconds of the reading's budget)."""

from __future__ import annotations

import time

from poolcheckers.server.tournaments import trf


def slow_read(text: str) -> trf.TrfEvent:
    """:func:`trf.read` after 2 seconds of work (a file that is slow to read)."""
    time.sleep(2.0)
    return trf.read(text)


def endless_read(text: str) -> trf.TrfEvent:
    """A reading that never ends by itself."""
    while True:
        time.sleep(0.1)
