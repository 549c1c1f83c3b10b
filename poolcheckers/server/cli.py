"""``poolcheckers serve``: start the web app on uvicorn (called by ``poolcheckers.cli``).

The default database is an SQLite file under the user's data directory; its path is
printed at start-up.  ``--database-url`` takes any SQLAlchemy URL (``sqlite:///…``,
``postgresql://…`` for psycopg 3).  The schema is migrated before serving.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from .db import default_database_path, make_url_safe


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="poolcheckers serve", description="Start the poolcheckers web app."
    )
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="TCP port (8000)")
    p.add_argument(
        "--database-url",
        default=None,
        help="SQLAlchemy URL, e.g. postgresql://user@host/db "
        f"(default: sqlite:///{default_database_path()})",
    )
    p.add_argument(
        "--engine-move-time",
        type=float,
        default=None,
        help="seconds per engine move (default: by level, 0.1 s per level)",
    )
    p.add_argument(
        "--db-threads",
        type=int,
        default=None,
        help="threads for database work; 0 runs it on the event loop "
        "(default: 0 with SQLite, 8 with PostgreSQL)",
    )
    p.add_argument(
        "--ws-deflate",
        action="store_true",
        help="compress WebSocket messages (permessage-deflate); off by default: "
        "game states are small and compressing them costs CPU",
    )
    p.add_argument(
        "--access-log",
        action="store_true",
        help="log every request (off by default: URLs carry seat tokens)",
    )
    p.add_argument("--log-level", default="info", help="uvicorn log level (info)")
    return p


def serve_main(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv``, migrate the database and serve until interrupted."""
    args = build_parser().parse_args(list(argv) if argv is not None else None)
    if not 0 < args.port < 65536:
        print(
            f"poolcheckers serve: error: --port must be 1..65535, not {args.port}", file=sys.stderr
        )
        return 2
    import uvicorn

    from .app import Settings, create_app

    url = args.database_url or f"sqlite:///{default_database_path()}"
    print(f"poolcheckers: database {make_url_safe(url)}", flush=True)
    try:
        settings = Settings(database_url=url, engine_move_time=args.engine_move_time)
        if args.db_threads is not None:
            settings.inline_db = args.db_threads == 0
            settings.db_threads = max(1, args.db_threads)
        app = create_app(settings)
    except Exception as exc:
        print(f"poolcheckers serve: error: cannot open the database: {exc}", file=sys.stderr)
        return 2
    print(f"poolcheckers: serving on http://{args.host}:{args.port}/", flush=True)
    uvicorn.run(
        app,
        host=args.host,
        port=args.port,
        log_level=args.log_level,
        access_log=args.access_log,
        ws_max_size=1 << 20,
        ws_per_message_deflate=args.ws_deflate,
    )
    return 0
