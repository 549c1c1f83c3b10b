"""The web app's server side: JSON API, WebSockets and storage (docs/CONTRACTS.md §3).

``create_app(Settings(database_url=...))`` builds the ASGI app
(:mod:`poolcheckers.server.app`); ``poolcheckers serve`` runs it on uvicorn
(:mod:`poolcheckers.server.cli`).  The parts: :mod:`~poolcheckers.server.database.engine` (tables,
URLs, alembic migrations), :mod:`~poolcheckers.server.games.service` (every change to a
game, validated by :class:`poolcheckers.Board` and stored by compare-and-set),
:mod:`~poolcheckers.server.games.view` (the ``GameState`` JSON),
:mod:`~poolcheckers.server.realtime.fanout` (WebSocket fan-out, PostgreSQL LISTEN/NOTIFY),
:mod:`~poolcheckers.server.analysis.runner` (engine moves and analysis in threads),
:mod:`~poolcheckers.server.games.pdn` (PDN export and import).
"""
