"""``poolcheckers hub``: the engine behind the Hub protocol on stdin/stdout.

See :mod:`poolcheckers.hub` for the protocol.  Every output line is flushed
as it is written, so a GUI (or a pipe) sees it at once.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from poolcheckers.commands.common import EngineLike, open_engine, tolerate_bad_bytes
from poolcheckers.hub import HubSession
from poolcheckers.rules import RuleSet


def _engine_factory(hash_mb: int, rules: RuleSet) -> EngineLike:
    return open_engine(hash_mb, rules)


def run(args: argparse.Namespace) -> int:
    """Serve the Hub protocol until ``quit`` or the end of input."""
    tolerate_bad_bytes()
    session = HubSession(_engine_factory, sys.stdin, sys.stdout)
    status = session.run()
    if session.output_closed:  # no "Exception ignored … BrokenPipeError" at exit
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return status


def register(subparsers: Any) -> None:
    """Add the ``hub`` sub-command."""
    parser = subparsers.add_parser(
        "hub",
        help="speak the Hub protocol (version 2, as Scan defines it) on stdin/stdout",
        description=(
            "Hub protocol for GUIs: hub, set-param, init, new-game, pos pos=<side><32 squares> "
            "moves=..., level, go think|ponder|analyze, stop, ponder-hit, ping, quit. "
            "Engine parameters (level, hash, rule options) are set with set-param."
        ),
    )
    parser.set_defaults(func=run)
