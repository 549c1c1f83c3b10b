"""The engine's sub-commands of ``poolcheckers``: ``play``, ``analyse``, ``bench``,
``match``, ``ballots`` and ``hub``.

Each module has ``register(subparsers)``, which adds its sub-command and sets
``func`` (taking the parsed :class:`argparse.Namespace`, returning the exit
status).  :mod:`poolcheckers.commands.common` holds what they share: the
engine as a structural type (so tests can drive a command with a fake engine),
limits, score and principal-variation formatting.
"""
