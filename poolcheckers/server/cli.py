"""``poolcheckers serve``: start the web app on uvicorn (called by ``poolcheckers.cli``);
``poolcheckers reset-password NAME``: an administrator's one-time code for a player who
forgot the password (the site sends no mail).

The default database is an SQLite file under the user's data directory; its path is
printed at start-up.  ``--database-url`` takes any SQLAlchemy URL (``sqlite:///…``,
``postgresql://…`` for psycopg 3).  The schema is migrated before serving.
"""

from __future__ import annotations

import argparse
import copy
import logging
import re
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import FrameType
from typing import Any

import uvicorn

from poolcheckers.errors import PoolCheckersError
from poolcheckers.server.database.engine import default_database_path, make_url_safe
from poolcheckers.server.net.connections import guarded_protocols, proxy_matcher
from poolcheckers.server.net.limits import DEFAULT_ALLOWED_HOSTS, ConnectionLimits
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
        "(default: 0 when the database is on this machine, SQLite or PostgreSQL on "
        "the loopback or a Unix socket; 8 for a remote PostgreSQL)",
    )
    p.add_argument(
        "--import-puzzles",
        default=None,
        metavar="FILE",
        help="store the puzzles of this JSON-lines file (checked by the rules) before serving",
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
    p.add_argument(
        "--log-format",
        choices=("text", "json"),
        default="text",
        help="text: uvicorn's lines (the default); json: one JSON object per line "
        "(time, level, logger, process, message) for a log shipper",
    )
    p.add_argument(
        "--shutdown-timeout",
        type=float,
        default=10.0,
        metavar="SECONDS",
        help="on SIGTERM, how long requests in progress may take to finish before the "
        "connections still open (a bot's streams, which never end) are closed (10)",
    )
    p.add_argument(
        "--drain",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="on SIGTERM, answer /api/health with 503 and go on serving this long before "
        "closing the port, so a proxy checking the health sends new requests to another "
        "process first (0: close at once; behind Caddy, longer than its health_interval)",
    )
    add_limit_options(p)
    add_rating_options(p)
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
        "--signin-burst-limit",
        type=int,
        default=d.signin_burst_limit[0],
        help=f"sign-in attempts per client address per minute ({d.signin_burst_limit[0]})",
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
    add_client_caps(limits, d)
    add_creation_limits(limits, d)
    limits.add_argument(
        "--site-origin",
        action="append",
        default=[],
        help="an origin (https://host) besides the request's own from which signed-in "
        "players' changes are accepted (repeatable)",
    )
    add_account_options(limits)
    add_connection_options(p)


def add_account_options(limits: argparse._ArgumentGroup) -> None:
    """The options of the sign-in limits and the password-hash queue."""
    d = Settings(database_url="")
    limits.add_argument(
        "--signin-user-limit",
        type=int,
        default=d.signin_user_failure_limit[0],
        help=f"failed sign-ins per username from all addresses together per "
        f"{d.signin_user_failure_limit[1] / 3600:g} h ({d.signin_user_failure_limit[0]}); "
        f"from one address {d.signin_failure_limit[0]} per {d.signin_failure_limit[1] / 60:g} min",
    )
    limits.add_argument(
        "--hash-queue",
        type=int,
        default=d.hash_queue,
        help=f"sign-ins waiting for a password hash at most; more are answered 503 "
        f"({d.hash_queue})",
    )


def add_creation_limits(limits: argparse._ArgumentGroup, d: Settings) -> None:
    """The options of how many games one client may start and import."""
    limits.add_argument(
        "--games-per-minute",
        type=int,
        default=d.games_per_minute,
        help=f"new games per client address per minute, every kind ({d.games_per_minute})",
    )
    limits.add_argument(
        "--engine-games-per-minute",
        type=int,
        default=d.engine_games_per_minute,
        help="engine games one player (signed out: one address) may start per minute "
        f"({d.engine_games_per_minute})",
    )
    limits.add_argument(
        "--engine-games-at-once",
        type=int,
        default=d.engine_games_at_once,
        help="engine games one player (signed out: one address) may have in play; one "
        f"untouched for 10 minutes stops counting ({d.engine_games_at_once})",
    )
    limits.add_argument(
        "--imported-games-per-hour",
        type=int,
        default=d.imported_games_per_hour,
        help="games PDN imports may store per client address per hour "
        f"({d.imported_games_per_hour})",
    )


def add_client_caps(limits: argparse._ArgumentGroup, d: Settings) -> None:
    """The options of one client's share: PDN readings, sockets per game and lobby."""
    limits.add_argument(
        "--pdn-analyses-at-once",
        type=int,
        default=d.pdn_analyses_at_once,
        help="PDN readings for the analysis board at once per process, 503 beyond "
        f"({d.pdn_analyses_at_once})",
    )
    limits.add_argument(
        "--pdn-analyses-per-minute",
        type=int,
        default=d.pdn_analyses_per_minute,
        help="PDN readings for the analysis board per client address per minute, across "
        f"processes ({d.pdn_analyses_per_minute})",
    )
    limits.add_argument(
        "--analysis-queue",
        type=int,
        default=d.analysis_queue,
        help="analyses running or waiting in one process, busy beyond (4 per analysis thread)",
    )
    limits.add_argument(
        "--analysis-turn",
        type=float,
        default=d.analysis_turn,
        help="seconds an analysis runs while others wait for a thread; it then ends "
        f"with its best line so far ({d.analysis_turn:g})",
    )
    limits.add_argument(
        "--analysis-sockets-per-address",
        type=int,
        default=d.analysis_sockets_per_address,
        help="analysis sockets from one client address, across processes "
        f"({d.analysis_sockets_per_address})",
    )
    limits.add_argument(
        "--spectators-per-game-per-address",
        type=int,
        default=d.spectators_per_game_per_address,
        help="sockets on one game from one client address, across processes "
        f"({d.spectators_per_game_per_address})",
    )
    limits.add_argument(
        "--lobby-sockets-per-client",
        type=int,
        default=d.lobby_sockets_per_client,
        help="lobby sockets of one account (signed out: one address), across processes "
        f"({d.lobby_sockets_per_client})",
    )


def add_connection_options(p: argparse.ArgumentParser) -> None:
    """The options of connections, proxies and host names (``Settings.connections``,
    ``forwarded_allow_ips``, ``allowed_hosts``); 0 switches a limit off."""
    net = p.add_argument_group("connections, proxies and host names (0 switches a limit off)")
    d = ConnectionLimits()
    net.add_argument(
        "--header-timeout",
        type=float,
        default=d.header_timeout,
        help="seconds a client has to send a request's headers "
        f"({d.header_timeout:g}); slower connections are closed",
    )
    net.add_argument(
        "--body-timeout",
        type=float,
        default=d.body_timeout,
        help="seconds a client has to send a request's body after its headers "
        f"({d.body_timeout:g}); then 408 and the connection is closed",
    )
    net.add_argument(
        "--max-header-bytes",
        type=int,
        default=d.max_header_bytes,
        help=f"bytes of a request's headers ({d.max_header_bytes}); larger ones get 431",
    )
    net.add_argument(
        "--connections-per-address",
        type=int,
        default=d.per_address,
        help="connections open at once from one client address, HTTP and WebSocket "
        f"together ({d.per_address}); more get 429",
    )
    net.add_argument(
        "--descriptor-reserve",
        type=int,
        default=d.descriptor_reserve,
        help="file descriptors kept free below the process's limit (ulimit -n) "
        f"({d.descriptor_reserve}); new connections beyond get 503",
    )
    net.add_argument(
        "--forwarded-allow-ips",
        action="append",
        default=[],
        metavar="ADDRESS",
        help="a reverse proxy (address, network, or *) whose X-Forwarded-For and "
        "X-Forwarded-Proto are believed (repeatable; none by default: the client "
        "is the TCP peer)",
    )
    net.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a host name the site answers to (repeatable; besides the --host address, "
        f"{', '.join(DEFAULT_ALLOWED_HOSTS)} and IP addresses); other Host headers get 400",
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
        if "token" not in message and "invite" not in message:
            return True
        # the values are hidden in the arguments, which stay as they were otherwise:
        # formatters read them (uvicorn's access lines unpack address, method, path,
        # version and status from them), and a colour format string is filled from them
        if isinstance(record.args, Mapping):
            record.args = {k: _redacted(v) for k, v in record.args.items()}
        elif isinstance(record.args, tuple):
            record.args = tuple(_redacted(v) for v in record.args)
        message = record.getMessage()
        hidden = SECRET_IN_URL.sub(r"\1***", message)
        if hidden != message:
            # the value is in the format string itself: the line is kept as formatted
            record.msg = hidden
            record.args = ()
            record.__dict__.pop("color_message", None)
        return True


def _redacted(value: object) -> object:
    return SECRET_IN_URL.sub(r"\1***", value) if isinstance(value, str) else value


#: the fields of a JSON log line (python-json-logger: one JSON object per line, as
#: journald, Loki or any log shipper reads them)
JSON_FIELDS = "%(asctime)s %(levelname)s %(name)s %(process)d %(message)s"


def log_config(form: str = "text") -> dict[str, Any]:
    """uvicorn's logging configuration with :class:`RedactTokens` on every handler;
    ``form`` ``json``: each line one JSON object (time, level, logger, process,
    message; the token redaction applies before the line is written)."""
    config = copy.deepcopy(uvicorn.config.LOGGING_CONFIG)
    config.setdefault("filters", {})["redact"] = {"()": RedactTokens}
    for handler in config["handlers"].values():
        handler.setdefault("filters", []).append("redact")
    if form == "json":
        from pythonjsonlogger.core import RESERVED_ATTRS

        for formatter in config["formatters"].values():
            formatter.clear()
            formatter.update(
                {
                    "()": "pythonjsonlogger.json.JsonFormatter",
                    "fmt": JSON_FIELDS,
                    "rename_fields": {"asctime": "time", "levelname": "level", "name": "logger"},
                    # uvicorn's extra copy of a message with terminal colour codes
                    "reserved_attrs": [*RESERVED_ATTRS, "color_message", "taskName"],
                }
            )
    return config


def add_rating_options(p: argparse.ArgumentParser) -> None:
    """The options that keep ratings honest (a pair of accounts cannot farm one)."""
    rated = p.add_argument_group("rated games")
    d = Settings(database_url="")
    rated.add_argument(
        "--min-rated-plies",
        type=int,
        default=d.min_rated_plies,
        help="plies a rated game must last for its result to change ratings "
        f"({d.min_rated_plies}); a game ended before both sides moved is always aborted",
    )
    rated.add_argument(
        "--rated-games-per-pair-per-day",
        type=int,
        default=d.rated_games_per_pair_per_day,
        help="rated games two players may start against each other in 24 hours; "
        f"more are played casual ({d.rated_games_per_pair_per_day})",
    )
    idle = p.add_argument_group("games waiting for a move")
    idle.add_argument(
        "--first-move-timeout",
        type=float,
        default=d.first_move_timeout,
        metavar="SECONDS",
        help="abort an online game with a clock whose first move (of either side) has "
        f"not come after this long ({d.first_move_timeout:g}); a correspondence game "
        "waits its days per move",
    )
    idle.add_argument(
        "--abandon-after",
        type=float,
        default=d.abandon_after_days,
        metavar="DAYS",
        help="close a game without a running clock (engine, one screen, unlimited, an "
        f"invitation nobody took) after this long without a move ({d.abandon_after_days:g})",
    )


def settings_from(args: argparse.Namespace, url: str) -> Settings:
    settings = Settings(
        database_url=url,
        engine_move_time=args.engine_move_time,
        engine_threads=max(1, args.engine_threads),
        analysis_threads=max(1, args.analysis_threads),
        analysis_max_time=args.analysis_max_time,
        analyses_per_address=max(1, args.analyses_per_address),
        games_per_minute=max(1, args.games_per_minute),
        engine_games_per_minute=max(1, args.engine_games_per_minute),
        engine_games_at_once=max(1, args.engine_games_at_once),
        imported_games_per_hour=max(1, args.imported_games_per_hour),
        import_max_games=max(1, args.import_max_games),
        hash_concurrency=max(1, args.hash_concurrency),
        pdn_analyses_at_once=max(1, args.pdn_analyses_at_once),
        pdn_analyses_per_minute=max(1, args.pdn_analyses_per_minute),
        analysis_queue=None if args.analysis_queue is None else max(1, args.analysis_queue),
        analysis_sockets_per_address=max(1, args.analysis_sockets_per_address),
        analysis_turn=max(0.1, args.analysis_turn),
        spectators_per_game_per_address=max(1, args.spectators_per_game_per_address),
        lobby_sockets_per_client=max(1, args.lobby_sockets_per_client),
        site_origins=tuple(args.site_origin),
        min_rated_plies=max(0, args.min_rated_plies),
        rated_games_per_pair_per_day=max(0, args.rated_games_per_pair_per_day),
        first_move_timeout=max(5.0, args.first_move_timeout),
        abandon_after_days=max(1 / 24, args.abandon_after),
        connections=ConnectionLimits(
            header_timeout=max(0.0, args.header_timeout),
            body_timeout=max(0.0, args.body_timeout),
            max_header_bytes=max(0, args.max_header_bytes),
            per_address=max(0, args.connections_per_address),
            descriptor_reserve=max(0, args.descriptor_reserve),
        ),
        forwarded_allow_ips=tuple(ip for arg in args.forwarded_allow_ips for ip in arg.split(",")),
        allowed_hosts=(*DEFAULT_ALLOWED_HOSTS, args.host, *args.allowed_host),
    )
    settings.signin_limit = (max(1, args.signin_limit), settings.signin_limit[1])
    settings.signin_burst_limit = (
        max(1, args.signin_burst_limit),
        settings.signin_burst_limit[1],
    )
    settings.signup_limit = (max(1, args.signup_limit), settings.signup_limit[1])
    settings.signin_user_failure_limit = (
        max(1, args.signin_user_limit),
        settings.signin_user_failure_limit[1],
    )
    settings.hash_queue = max(0, args.hash_queue)
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
    settings = settings_from(args, url)
    try:
        proxy_matcher(settings.forwarded_allow_ips)
    except ValueError as exc:
        print(f"poolcheckers serve: error: --forwarded-allow-ips: {exc}", file=sys.stderr)
        return 2
    try:  # before the app starts: a port in use is the first thing said
        listening = listen(args.host, args.port)
    except OSError as exc:
        print(
            f"poolcheckers serve: error: cannot listen on {args.host}:{args.port}: "
            f"{exc.strerror or exc}",
            file=sys.stderr,
        )
        return 2
    print(f"poolcheckers: database {make_url_safe(url)}", flush=True)
    try:
        app = create_app(settings)
    except Exception as exc:
        listening.close()
        print(f"poolcheckers serve: error: cannot open the database: {exc}", file=sys.stderr)
        return 2
    if args.import_puzzles:
        from poolcheckers.puzzles import PuzzleError

        try:
            added, known = app.state.ctx.puzzles.import_file(args.import_puzzles)
        except (PuzzleError, PoolCheckersError) as exc:
            listening.close()
            print(f"poolcheckers serve: error: --import-puzzles: {exc}", file=sys.stderr)
            return 2
        print(f"poolcheckers: {added} puzzles imported ({known} already stored)", flush=True)
    print(f"poolcheckers: serving on http://{args.host}:{args.port}/", flush=True)
    config = uvicorn.Config(
        app,
        host=args.host,
        port=args.port,
        log_level=args.log_level,
        access_log=args.access_log,
        ws_max_size=1 << 20,
        ws_per_message_deflate=args.ws_deflate,
        log_config=log_config(args.log_format),
        timeout_graceful_shutdown=args.shutdown_timeout,
        **connection_options(settings),
    )
    server = DrainingServer(config, args.drain, app.state.ctx.stop_soon)
    server.run(sockets=[listening])
    return 0 if server.started else 3


def listen(host: str, port: int) -> socket.socket:
    """The server's listening socket, bound as uvicorn binds it (``OSError`` if the
    address is in use): bound before the app starts, so a port in use is said first."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


class DrainingServer(uvicorn.Server):
    """uvicorn's server that, told to stop by SIGTERM, first keeps serving for
    ``drain`` seconds after ``on_drain`` (which makes /api/health answer 503).

    A proxy that checks the health stops sending requests here before the port
    closes: closing it at once would reset the connections the proxy has just
    opened or reuses, and a move sent on one of those fails (the proxy can retry
    a refused connection, not a request already sent).  A second signal, or
    SIGINT (Ctrl-C), stops at once as uvicorn does.
    """

    def __init__(self, config: uvicorn.Config, drain: float, on_drain: Callable[[], None]):
        super().__init__(config)
        self.drain, self.on_drain = drain, on_drain
        self.timer: threading.Timer | None = None

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        if sig != signal.SIGTERM or self.drain <= 0 or self.timer is not None:
            super().handle_exit(sig, frame)
            return
        self.on_drain()
        logging.getLogger("uvicorn.error").info(
            "Stopping in %g s: /api/health answers 503 meanwhile", self.drain
        )
        self.timer = threading.Timer(self.drain, super().handle_exit, (sig, frame))
        self.timer.daemon = True
        self.timer.start()


def connection_options(settings: Settings) -> dict[str, Any]:
    """uvicorn's options for the guarded protocols and the trusted proxies."""
    limits, proxies = settings.connections, settings.forwarded_allow_ips
    http, ws = guarded_protocols(limits, proxies)
    return {
        "http": http,
        "ws": ws or "none",
        "h11_max_incomplete_event_size": limits.max_header_bytes or None,
        "proxy_headers": bool(proxies),
        "forwarded_allow_ips": list(proxies) or None,
    }


def add_site_database(p: argparse.ArgumentParser) -> None:
    """An administrator's command's ``--database-url`` (the site's default database
    when omitted)."""
    default = f"sqlite:///{default_database_path()}"
    p.add_argument(
        "--database-url", default=default, help=f"the site's database (default: {default})"
    )


def reset_main(argv: Sequence[str] | None = None) -> int:
    """Print a one-time code with which ``NAME`` sets a new password on the account
    page (valid one hour; a new code replaces the last)."""
    p = argparse.ArgumentParser(
        prog="poolcheckers reset-password",
        description="Print a one-time code with which a player sets a new password "
        "(account page, 'Forgot your password?'). Give it to the player in person or by "
        "phone: the site sends no mail.",
    )
    p.add_argument("username", help="the account's username (any case)")
    add_site_database(p)
    args = p.parse_args(list(argv) if argv is not None else None)
    from poolcheckers.server.accounts.model import Accounts
    from poolcheckers.server.accounts.repository import DbSessionStore, DbUserStore
    from poolcheckers.server.accounts.sessions import Sessions
    from poolcheckers.server.database.engine import make_engine, run_migrations
    from poolcheckers.server.domain_errors import UsernameError

    url = str(args.database_url)
    try:
        engine = make_engine(url)
        run_migrations(engine)
    except Exception as exc:
        print(
            f"poolcheckers reset-password: error: cannot open the database: {exc}", file=sys.stderr
        )
        return 2
    accounts = Accounts(DbUserStore(engine), sessions=Sessions(DbSessionStore(engine)))
    try:
        code, expires = accounts.issue_reset_code(args.username)
    except UsernameError as exc:
        print(f"poolcheckers reset-password: error: {exc}", file=sys.stderr)
        return 1
    finally:
        engine.dispose()
    until = time.strftime("%Y-%m-%d %H:%M %Z", time.localtime(expires))
    print(f"Reset code for {args.username}: {code}")
    print(f"Valid until {until}, once: on the account page, 'Forgot your password?'.")
    return 0


def db_main(argv: Sequence[str] | None = None) -> int:
    """``poolcheckers db backup FILE`` / ``poolcheckers db restore FILE``: the site's
    database with its own tools (pg_dump/pg_restore, SQLite's backup API)."""
    p = argparse.ArgumentParser(
        prog="poolcheckers db",
        description="Back up or restore the site's database (PostgreSQL: pg_dump and "
        "pg_restore in their custom format; SQLite: its online backup). A backup can "
        "be taken while the site runs; restore into an empty database or a stopped site.",
    )
    sub = p.add_subparsers(dest="action", required=True)
    for action, helptext in (
        ("backup", "write a backup of the database to FILE"),
        ("restore", "replace the database's contents with the backup FILE"),
    ):
        a = sub.add_parser(action, help=helptext)
        a.add_argument("file", type=Path, help="the backup file")
        add_site_database(a)
    args = p.parse_args(list(argv) if argv is not None else None)
    from poolcheckers.server.database.backup import BackupError, backup, restore
    from poolcheckers.server.database.engine import make_engine, make_url_safe, run_migrations

    url = str(args.database_url)
    try:
        if args.action == "backup":
            size = backup(url, args.file)
            print(f"{make_url_safe(url)} -> {args.file} ({size:,} bytes)")
        else:
            restore(url, args.file)
            engine = make_engine(url)
            try:  # a backup of an older version is brought to this one's schema
                run_migrations(engine)
            finally:
                engine.dispose()
            print(f"{args.file} -> {make_url_safe(url)}")
    except (BackupError, OSError) as exc:
        print(f"poolcheckers db {args.action}: error: {exc}", file=sys.stderr)
        return 1
    return 0
