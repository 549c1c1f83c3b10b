"""The web app's server side: JSON API, WebSockets and storage (docs/CONTRACTS.md §3).

``create_app(Settings(database_url=...))`` builds the ASGI app
(:mod:`poolcheckers.server.app`); ``poolcheckers serve`` runs it on uvicorn
(:mod:`poolcheckers.server.cli`).  The parts: :mod:`~poolcheckers.server.db` (tables,
URLs, alembic migrations), :mod:`~poolcheckers.server.service` (every change to a
game, validated by :class:`poolcheckers.Board` and stored by compare-and-set),
:mod:`~poolcheckers.server.state` (the ``GameState`` JSON),
:mod:`~poolcheckers.server.notify` (WebSocket fan-out, PostgreSQL LISTEN/NOTIFY),
:mod:`~poolcheckers.server.engine_runner` (engine moves and analysis in threads),
:mod:`~poolcheckers.server.pdnio` (PDN export and import).
"""
