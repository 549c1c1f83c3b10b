"""The engine's sub-commands of ``poolcheckers``: ``play``, ``analyse``, ``bench``,
``match``, ``ballots``, ``hub``, ``egdb``, ``tune``, ``book`` and ``puzzles``.

Each module has ``register(subparsers)``, which adds its sub-command and sets
``func`` (taking the parsed :class:`argparse.Namespace`, returning the exit
status).  They use the engine through its facade, :mod:`poolcheckers.engine`
(levels, limits, opening an engine, score formatting, the draw policy);
:mod:`poolcheckers.commands.common` adds what only the command line needs: the
facade's ``ValueError`` as a :class:`~poolcheckers.cli.UsageError` naming the
option, ``--hash``, Ctrl-C during a search, broken pipes.  ``match``,
``tune``, ``ballots`` and ``book`` parse their options over the engine's
testing tools, :mod:`poolcheckers.tooling`, and print what they return.  Only
:mod:`poolcheckers.cli` imports this package.
"""
