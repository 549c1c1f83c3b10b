"""The web app's server side: JSON API, WebSockets and storage (docs/CONTRACTS.md §3).

``create_app(Settings(database_url=...))`` builds the ASGI app
(:mod:`poolcheckers.server.app`); ``poolcheckers serve`` runs it on uvicorn
(:mod:`poolcheckers.server.cli`).  One package per domain (``games``, ``accounts``,
``lobby``, ``ratings``, ``realtime``, ``analysis``), each with its model, repository
and service; ``database`` holds every table and the one database executor, ``api``
the routers and schemas; :mod:`poolcheckers.server.wiring` builds them all
(docs/ARCHITECTURE.md).
"""
