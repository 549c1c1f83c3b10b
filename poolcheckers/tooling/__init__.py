"""The engine's testing tools: matches, their statistics, tuning and ladders.

What measures the engine rather than plays it for a user lives here, apart
from the web app and the engine facade: the app never imports this package,
and the facade (:mod:`poolcheckers.engine`) does not either; the tools drive
the engine through the facade.  The ``match`` (with its SPRT mode),
``tune``, ``ballots`` and ``book`` commands are thin argument parsers over
it, and the scripts of ``benchmarks/`` import it, never a command module.

- :mod:`~poolcheckers.tooling.stats`: the Elo of a score, its 95 % interval
  from game results, Wilson's bound for a perfect score;
- :mod:`~poolcheckers.tooling.sprt`: pentanomial pair statistics and the
  sequential probability ratio test;
- :mod:`~poolcheckers.tooling.openings`: the balloted openings;
- :mod:`~poolcheckers.tooling.games`: players, game clocks, one game;
- :mod:`~poolcheckers.tooling.hubclient`: an engine in another process,
  driven over the Hub protocol, as a player;
- :mod:`~poolcheckers.tooling.pool`: game pairs played in worker processes;
- :mod:`~poolcheckers.tooling.match`: a match played in this process, its
  result, an SPRT run's pairs, the PDN of a match;
- :mod:`~poolcheckers.tooling.plots`: PNG plots of matches and ladders;
- :mod:`~poolcheckers.tooling.tune`: Texel tuning of the evaluation weights,
  step by step; :mod:`~poolcheckers.tooling.tune_pipeline`: the steps strung
  together as ``poolcheckers tune`` runs them;
- :mod:`~poolcheckers.tooling.ladder`: the ladder of levels, each against the
  one below it.

The third-party libraries the tools need (matplotlib for the plots, numpy for
tuning, tqdm for progress bars) form the ``tooling`` extra; a tool that finds
one missing says so in one line (:func:`require_extra`).

>>> require_extra("math", purpose="a test")
>>> str(MissingExtraError("numpy", "tuning"))
"tuning needs numpy, of the tooling extra: pip install 'poolcheckers[tooling]'"
"""

from __future__ import annotations

import importlib
from typing import Final

from poolcheckers.errors import PoolCheckersError

#: How to install what the tools need beyond the core.
INSTALL_EXTRA: Final = "pip install 'poolcheckers[tooling]'"


class ToolingError(PoolCheckersError):
    """Bad input to a tool (a ballot file, a Hub engine's command line): one
    line for the user, as the command line reports every bad input."""


class MissingExtraError(ImportError):
    """A library of the ``tooling`` extra is not installed."""

    def __init__(self, module: str, purpose: str) -> None:
        super().__init__(f"{purpose} needs {module}, of the tooling extra: {INSTALL_EXTRA}")
        self.module = module


def require_extra(*modules: str, purpose: str) -> None:
    """Raise :class:`MissingExtraError` for the first of ``modules`` that cannot be
    imported; ``purpose`` (what needs it) starts the message.

    Called before the work starts, so that an hour of games is not lost to a
    plot that cannot be drawn at its end.
    """
    for module in modules:
        try:
            importlib.import_module(module)
        except ImportError:
            raise MissingExtraError(module, purpose) from None


__all__ = ["INSTALL_EXTRA", "MissingExtraError", "ToolingError", "require_extra"]
