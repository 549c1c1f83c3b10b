"""``poolcheckers serve``: start the web app on uvicorn (called by ``poolcheckers.cli``).

The default database is an SQLite file under the user's data directory; its path is
printed at start-up.  ``--database-url`` takes any SQLAlchemy URL (``sqlite:///…``,
``postgresql://…`` for psycopg 3).  The schema is migrated before serving.
"""

from __future__ import annotations

import argparse
import copy
import logging
import re
import sys
from collections.abc import Sequence
from typing import Any

import uvicorn

from poolcheckers.server.database.engine import default_database_path, make_url_safe
from poolcheckers.server.httpguard import DEFAULT_HEADER_TIMEOUT, guarded_protocol
from poolcheckers.server.settings import Settings

SECRET_IN_URL = re.compile(r"((?:token|invite)=)[^&\s\"']+")


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
        help="log every request (off by default; seat tokens never travel in URLs, and "
        "token=/invite= values are hidden in log lines)",
    )
    p.add_argument("--log-level", default="info", help="uvicorn log level (info)")
    add_limit_options(p)
    return p


def add_limit_options(p: argparse.ArgumentParser) -> None:
    """The options of :class:`Settings`' capacity and abuse limits."""
    limits = p.add_argument_group("capacity and abuse limits")
    d = Settings(database_url="")
    limits.add_argument(
        "--engine-threads",
        type=int,
        default=d.engine_threads,
        help=f"threads for engine games' replies ({d.engine_threads})",
    )
    limits.add_argument(
        "--analysis-threads",
        type=int,
        default=d.analysis_threads,
        help=f"threads for analyses, never used by engine games ({d.analysis_threads})",
    )
    limits.add_argument(
        "--analysis-max-time",
        type=float,
        default=d.analysis_max_time,
        help=f"longest search of one analysis request in seconds ({d.analysis_max_time:g})",
    )
    limits.add_argument(
        "--analyses-per-address",
        type=int,
        default=d.analyses_per_address,
        help=f"analyses at once from one client address ({d.analyses_per_address})",
    )
    limits.add_argument(
        "--imports-per-minute",
        type=int,
        default=d.imports_per_minute,
        help=f"PDN imports per client address per minute ({d.imports_per_minute})",
    )
    limits.add_argument(
        "--import-max-games",
        type=int,
        default=d.import_max_games,
        help=f"games in one PDN import ({d.import_max_games})",
    )
    limits.add_argument(
        "--signin-limit",
        type=int,
        default=d.signin_limit[0],
        help=f"sign-in attempts per client address per {d.signin_limit[1] / 60:g} min "
        f"({d.signin_limit[0]})",
    )
    limits.add_argument(
        "--signup-limit",
        type=int,
        default=d.signup_limit[0],
        help=f"sign-ups per client address per {d.signup_limit[1] / 3600:g} h "
        f"({d.signup_limit[0]})",
    )
    limits.add_argument(
        "--hash-concurrency",
        type=int,
        default=d.hash_concurrency,
        help=f"Argon2id password hashes computed at once ({d.hash_concurrency})",
    )
    limits.add_argument(
        "--site-origin",
        action="append",
        default=[],
        help="an origin (https://host) besides the request's own from which signed-in "
        "players' changes are accepted (repeatable)",
    )
    limits.add_argument(
        "--header-timeout",
        type=float,
        default=DEFAULT_HEADER_TIMEOUT,
        help="seconds a client has to send a request's headers "
        f"({DEFAULT_HEADER_TIMEOUT:g}); slower connections are closed",
    )


class RedactTokens(logging.Filter):
    """Hide ``token=`` and ``invite=`` values in log lines (a client may still put a
    token in a URL; the server never asks it to).

    >>> r = logging.LogRecord("x", 20, "", 0, '%s "%s"', ("ip", "/play/g?invite=abc&x=1"), None)
    >>> RedactTokens().filter(r), r.getMessage()
    (True, 'ip "/play/g?invite=***&x=1"')
    """

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if "token" in message or "invite" in message:
            record.msg = SECRET_IN_URL.sub(r"\1***", message)
            record.args = None
        return True


def log_config() -> dict[str, Any]:
    """uvicorn's logging configuration with :class:`RedactTokens` on every handler."""
    config = copy.deepcopy(uvicorn.config.LOGGING_CONFIG)
    config.setdefault("filters", {})["redact"] = {"()": RedactTokens}
    for handler in config["handlers"].values():
        handler.setdefault("filters", []).append("redact")
    return config


def settings_from(args: argparse.Namespace, url: str) -> Settings:
    settings = Settings(
        database_url=url,
        engine_move_time=args.engine_move_time,
        engine_threads=max(1, args.engine_threads),
        analysis_threads=max(1, args.analysis_threads),
        analysis_max_time=args.analysis_max_time,
        analyses_per_address=max(1, args.analyses_per_address),
        imports_per_minute=max(1, args.imports_per_minute),
        import_max_games=max(1, args.import_max_games),
        hash_concurrency=max(1, args.hash_concurrency),
        site_origins=tuple(args.site_origin),
    )
    settings.signin_limit = (max(1, args.signin_limit), settings.signin_limit[1])
    settings.signup_limit = (max(1, args.signup_limit), settings.signup_limit[1])
    if args.db_threads is not None:
        settings.inline_db = args.db_threads == 0
        settings.db_threads = max(1, args.db_threads)
    return settings


def serve_main(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv``, migrate the database and serve until interrupted."""
    args = build_parser().parse_args(list(argv) if argv is not None else None)
    if not 0 < args.port < 65536:
        print(
            f"poolcheckers serve: error: --port must be 1..65535, not {args.port}", file=sys.stderr
        )
        return 2
    from poolcheckers.server.app import create_app

    url = args.database_url or f"sqlite:///{default_database_path()}"
    print(f"poolcheckers: database {make_url_safe(url)}", flush=True)
    try:
        app = create_app(settings_from(args, url))
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
        http=guarded_protocol(args.header_timeout),
        log_config=log_config(),
    )
    return 0
