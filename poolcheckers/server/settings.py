"""What a server runs on and the limits it enforces (``poolcheckers serve`` options)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from argon2 import Parameters

from poolcheckers.server.games.admission import (
    ENGINE_GAMES_AT_ONCE,
    ENGINE_GAMES_PER_MINUTE,
    GAMES_PER_MINUTE,
    IMPORTED_GAMES_PER_HOUR,
)
from poolcheckers.server.net.limits import DEFAULT_ALLOWED_HOSTS, ConnectionLimits
from poolcheckers.server.timesource import SystemTime, TimeSource

STATIC_DIR = Path(__file__).resolve().parent / "static"


@dataclass
class Settings:
    """Database, engine and limits; tests inject a manual clock and short engine times."""

    database_url: str
    clock: TimeSource = field(default_factory=SystemTime)
    #: seconds per engine move (None: by level, ``poolcheckers.engine.level_limit``)
    engine_move_time: float | None = None
    #: threads for engine games' replies and draw decisions (never used by analyses)
    engine_threads: int = 2
    engine_hash_mb: int = 32
    #: threads for the analysis board's searches (run at a lower OS priority)
    analysis_threads: int = 2
    #: longest search one analysis request gets (seconds)
    analysis_max_time: float = 30.0
    #: analyses running or waiting at once from one client address (across processes)
    analyses_per_address: int = 2
    #: analyses running or waiting in one process at most (None: 4 per analysis
    #: thread); beyond it a request is answered busy at once
    analysis_queue: int | None = None
    #: seconds an analysis runs while others wait for a thread (it then ends with its
    #: best line so far)
    analysis_turn: float = 5.0
    #: analysis sockets open at once from one client address (across processes)
    analysis_sockets_per_address: int = 4
    #: games stored by PDN imports per client address per hour (an import counts its
    #: games, not one request), and games in one import
    imported_games_per_hour: int = IMPORTED_GAMES_PER_HOUR
    import_max_games: int = 500
    #: games created per minute from one client address (any mode)
    games_per_minute: int = GAMES_PER_MINUTE
    #: engine games one client (account, or address signed out) creates per minute,
    #: and has in play at once (a game untouched for ten minutes stops counting)
    engine_games_per_minute: int = ENGINE_GAMES_PER_MINUTE
    engine_games_at_once: int = ENGINE_GAMES_AT_ONCE
    #: database threads for a remote PostgreSQL (SQLite uses one)
    db_threads: int = 8
    #: run the (short) database work on the event loop itself; None: when the
    #: database is on this machine (SQLite, PostgreSQL on the loopback or a socket)
    inline_db: bool | None = None
    #: how often the timer looks for fallen flags (seconds)
    sweep_interval: float = 0.25
    #: an online game with a clock whose first move never comes is aborted after this
    #: many seconds (a correspondence game after its days per move)
    first_move_timeout: float = 60.0
    #: a game without a running clock is closed after this many days without a move
    abandon_after_days: float = 30.0
    #: seconds between the sweeps that close games waiting too long for a move
    idle_sweep_interval: float = 5.0
    #: seconds between the sweeps that move tournaments on (arena pairings, rounds)
    tournament_sweep_interval: float = 2.0
    #: seconds a read of an event serves the pages asking again (0: none; two apps over
    #: one SQLite file, as tests run them, hear nothing of each other's changes)
    tournament_read_cache: float = 1.0
    #: how often the SQLite WAL is checkpointed in the background (seconds)
    checkpoint_interval: float = 1.0
    #: the endgame tables of endgame practice (None: $POOLCHECKERS_EGDB_DIR or the
    #: default folder, docs/EGDB.md), built there up to ``practice_build_pieces``
    #: pieces on first use when missing (0: never built by the server)
    tables_dir: Path | None = None
    practice_build_pieces: int = 4
    static_dir: Path = STATIC_DIR
    migrate: bool = True
    #: sign-in attempts per client address per window (count, seconds), failed
    #: sign-ins per username, and sign-ups per address (a benchmark raises them)
    signin_limit: tuple[int, float] = (20, 600.0)
    #: sign-in attempts per client address per minute: fifty addresses signing in at
    #: once cannot fill the hashing queue for long
    signin_burst_limit: tuple[int, float] = (5, 60.0)
    signin_failure_limit: tuple[int, float] = (10, 900.0)
    signup_limit: tuple[int, float] = (5, 3600.0)
    #: Argon2id password hashes computed at once (64 MiB and ~80 ms each)
    hash_concurrency: int = 2
    #: Argon2id parameters; None: the site's (RFC 9106 low memory); tests: argon2's CHEAPEST
    password_parameters: Parameters | None = None
    #: origins, besides the request's own, whose cookie-authenticated changes are accepted
    site_origins: tuple[str, ...] = ()
    #: override engine availability (tests); None asks ``poolcheckers.engine``
    engine_enabled: bool | None = None
    #: deadlines and limits of connections (``poolcheckers.server.net``)
    connections: ConnectionLimits = field(default_factory=ConnectionLimits)
    #: reverse proxies (addresses or networks) whose X-Forwarded-For and
    #: X-Forwarded-Proto are believed; none: the client is the TCP peer
    forwarded_allow_ips: tuple[str, ...] = ()
    #: host names (``Host``) the site answers to, besides IP addresses
    allowed_hosts: tuple[str, ...] = DEFAULT_ALLOWED_HOSTS
    #: plies a rated game must last for its result to change ratings
    min_rated_plies: int = 10
    #: rated games two accounts may start against each other in 24 hours (more: casual)
    rated_games_per_pair_per_day: int = 10
    #: failed sign-ins per username from anywhere (count, seconds): far above
    #: ``signin_failure_limit``, which counts per (username, address), so that only a
    #: guesser spread over many addresses meets it
    signin_user_failure_limit: tuple[int, float] = (100, 3600.0)
    #: sign-ins waiting for a password-hash thread at most (per process); past it 503
    hash_queue: int = 8
    #: PDN readings for the analysis board running at once in one process (503 beyond),
    #: and per client address per minute (across processes; 429 beyond)
    pdn_analyses_at_once: int = 2
    pdn_analyses_per_minute: int = 30
    #: sockets on one game (players and spectators) from one client address, counted
    #: across server processes; the extra ones are closed with 1008
    spectators_per_game_per_address: int = 4
    #: lobby sockets of one account (or, signed out, one client address), across processes
    lobby_sockets_per_client: int = 8
