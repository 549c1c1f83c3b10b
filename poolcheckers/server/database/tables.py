"""Every table of the database (SQLAlchemy 2 Core), in one place.

A game is one row of ``games`` plus one row of ``moves`` per ply.  The primary key
``(game_id, ply)`` of ``moves`` and the ``version`` column of ``games`` (updated by
compare-and-set) make sure that two moves racing for the same ply cannot both be
stored, even when they come from different server processes.  The accounts,
ratings and lobby tables carry the guarantees of docs/COMMUNITY.md ("Tables"):
a UNIQUE ``username_key``, a rating update keyed by its game id, a seek taken by
``DELETE ... RETURNING``.  The migrations (``migrations/versions``) create them.
"""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    false,
)

METADATA = MetaData()

#: One game: its set-up, seats, clocks and result (the moves are in ``moves``).  Its
#: in-memory form is :class:`poolcheckers.server.games.model.GameRec`, field for column.
GAMES = Table(
    "games",
    METADATA,
    Column("id", String(32), primary_key=True),
    Column("mode", String(16), nullable=False),
    Column("status", String(16), nullable=False),
    Column("rules", JSON, nullable=False),
    Column("start_fen", Text, nullable=False),
    Column("level", Integer, nullable=True),
    Column("engine_color", String(8), nullable=True),
    Column("black_token_hash", String(64), nullable=True),
    Column("white_token_hash", String(64), nullable=True),
    Column("invite_hash", String(64), nullable=True),
    Column("clock_initial_ms", BigInteger, nullable=True),
    Column("clock_increment_ms", BigInteger, nullable=True),
    Column("black_ms", BigInteger, nullable=True),
    Column("white_ms", BigInteger, nullable=True),
    Column("clock_running", String(8), nullable=True),
    Column("turn_started_ms", BigInteger, nullable=True),
    Column("deadline_ms", BigInteger, nullable=True),
    Column("ply", Integer, nullable=False),
    Column("draw_offer", String(8), nullable=True),
    # the rules library's termination; "aborted" (no result); "no_show" (migration
    # 0015): a tournament game its event's no-show rule ended, scored as a forfeit
    Column("termination", String(16), nullable=True),
    Column("winner", String(8), nullable=True),
    Column("result", String(8), nullable=True),
    Column("reason", Text, nullable=True),
    Column("tags", JSON, nullable=True),
    Column("version", Integer, nullable=False),
    Column("created_ms", BigInteger, nullable=False),
    Column("updated_ms", BigInteger, nullable=False),
    # community (migration 0002): account seats, rated games, ratings at the start
    Column("black_user_id", String(16), nullable=True),
    Column("white_user_id", String(16), nullable=True),
    Column("rated", Boolean, nullable=False, server_default=false()),
    Column("category", String(16), nullable=True),
    Column("days_per_move", Integer, nullable=True),
    Column("black_rating", Integer, nullable=True),
    Column("white_rating", Integer, nullable=True),
    Column("rematch_of", String(32), nullable=True),
    # game flow (migration 0003): a standing rematch offer, the rematch once started
    Column("rematch_offer", String(8), nullable=True),
    Column("rematch_id", String(32), nullable=True),
    # tournaments (migration 0006): the event whose game it is
    Column("tournament_id", String(16), nullable=True),
    # an imported game's comments, NAGs and variations (migration 0010): the PDN tree
    Column("annotations", JSON, nullable=True),
    # the archive's search (migration 0012): names and event of an imported game's
    # tags, the day a game was played
    Column("black_name", String(256), nullable=True),
    Column("white_name", String(256), nullable=True),
    Column("event", String(256), nullable=True),
    Column("played_on", String(10), nullable=True),
    Index("ix_games_status_created", "status", "created_ms"),
    Index("ix_games_played_on", "played_on"),
    Index("ix_games_deadline", "deadline_ms"),
    Index("ix_games_black_user", "black_user_id", "created_ms"),
    Index("ix_games_white_user", "white_user_id", "created_ms"),
)

#: One ply of a game; ``(game_id, ply)`` is unique: one move per ply, ever.
#: In memory: :class:`poolcheckers.server.games.model.MoveRec`.
MOVES = Table(
    "moves",
    METADATA,
    Column("game_id", String(32), ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    Column("ply", Integer, primary_key=True),
    Column("notation", String(128), nullable=False),
    Column("path", String(128), nullable=False),
    Column("color", String(8), nullable=False),
    Column("created_ms", BigInteger, nullable=False),
    Column("black_ms", BigInteger, nullable=True),
    Column("white_ms", BigInteger, nullable=True),
    Column("draw_offer", String(8), nullable=True),
    Column("version", Integer, nullable=False),
)


#: One SHA-256 per imported game (:func:`poolcheckers.server.games.pdn.game_digest`): the
#: same PDN game is imported once (migration 0003).
GAME_DIGESTS = Table(
    "game_digests",
    METADATA,
    Column("digest", String(64), primary_key=True),
    Column(
        "game_id",
        String(32),
        ForeignKey("games.id", ondelete="CASCADE"),
        nullable=False,
        index=True,
    ),
)

USERS = Table(
    "users",
    METADATA,
    Column("id", String(16), primary_key=True),
    Column("username", String(20), nullable=False),
    Column("username_key", String(20), nullable=False, unique=True),
    Column("password_hash", Text, nullable=False),
    Column("created_ms", BigInteger, nullable=False),
    # the name's look-alike form (accounts.model.fold), unique; NULL for an account
    # made before it existed whose form another older account had already
    Column("username_fold", String(20), nullable=True),
    # a bot account (migration 0013): plays through the bot API, never in the
    # leaderboards nor the lobby's quick pairing; once a bot, always a bot
    Column("bot", Boolean, nullable=False, server_default=false()),
    # the language the account chose on the site (migration 0014; a gettext name of
    # server/i18n, None: the browser's)
    Column("locale", String(8), nullable=True),
    Index("ux_users_username_fold", "username_fold", unique=True),
)

#: Personal API tokens (migration 0013): the SHA-256 of the token (shown once, never
#: stored), its owner, label and space-separated scopes
API_TOKENS = Table(
    "api_tokens",
    METADATA,
    Column("digest", String(64), primary_key=True),
    Column("user_id", String(16), ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
    Column("label", String(60), nullable=False),
    Column("scopes", String(200), nullable=False),
    Column("created_ms", BigInteger, nullable=False),
    Column("last_used_ms", BigInteger, nullable=True),
    Index("ix_api_tokens_user", "user_id"),
)

#: One password-reset code per account (migration 0011): its SHA-256 and expiry; an
#: administrator's command issues it, the account page takes it once.
PASSWORD_RESETS = Table(
    "password_resets",
    METADATA,
    Column("user_id", String(16), ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
    Column("code_hash", String(64), nullable=False),
    Column("expires_ms", BigInteger, nullable=False),
)

SESSIONS = Table(
    "sessions",
    METADATA,
    Column("digest", String(64), primary_key=True),
    Column(
        "user_id",
        String(16),
        ForeignKey("users.id", ondelete="CASCADE"),
        nullable=False,
        index=True,
    ),
    Column("created_ms", BigInteger, nullable=False),
    Column("last_seen_ms", BigInteger, nullable=False),
)

RATINGS = Table(
    "ratings",
    METADATA,
    Column("user_id", String(16), ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
    Column("category", String(16), primary_key=True),
    Column("rating", Float, nullable=False),
    Column("deviation", Float, nullable=False),
    Column("volatility", Float, nullable=False),
    Column("games", Integer, nullable=False),
    Column("last_played_ms", BigInteger, nullable=True),
    Index("ix_ratings_category_rating", "category", "rating"),
)

PERF_FIELDS = ("rating", "deviation", "volatility", "games", "last_played_ms")
RATING_UPDATES = Table(
    "rating_updates",
    METADATA,
    Column("game_id", String(32), ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    Column("category", String(16), nullable=False),
    Column("black_user_id", String(16), nullable=False, index=True),
    Column("white_user_id", String(16), nullable=False, index=True),
    *[
        Column(
            f"{side}_{when}_{name}",
            {"games": Integer, "last_played_ms": BigInteger}.get(name, Float),
            nullable=name == "last_played_ms",
        )
        for side in ("black", "white")
        for when in ("before", "after")
        for name in PERF_FIELDS
    ],
    Column("created_ms", BigInteger, nullable=False),
)

SEEKS = Table(
    "seeks",
    METADATA,
    Column("id", String(16), primary_key=True),
    Column("author_id", String(64), nullable=False, index=True),
    Column("author_user_id", String(16), ForeignKey("users.id", ondelete="CASCADE")),
    Column("author_name", String(20), nullable=True),
    Column("spec", JSON, nullable=False),
    Column("author_perf", JSON, nullable=True),
    Column("created_ms", BigInteger, nullable=False),
    Column("seen_ms", BigInteger, nullable=False),
    Index("ix_seeks_created", "created_ms"),
)


#: One tournament (docs/TOURNAMENTS.md): its settings, its state (``round`` moves on
#: by compare-and-set: one process starts each round), who made it.
TOURNAMENTS = Table(
    "tournaments",
    METADATA,
    Column("id", String(16), primary_key=True),
    Column("name", String(60), nullable=False),
    Column("system", String(16), nullable=False),
    Column("status", String(16), nullable=False),
    Column("creator_id", String(16), ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
    Column("creator_name", String(20), nullable=False),
    Column("settings", JSON, nullable=False),
    Column("rated", Boolean, nullable=False),
    Column("rounds", Integer, nullable=True),
    Column("games_per_pairing", Integer, nullable=False),
    Column("double", Boolean, nullable=False),
    Column("duration_minutes", Integer, nullable=True),
    Column("starts_at_ms", BigInteger, nullable=True),
    Column("max_players", Integer, nullable=True),
    # the unsalted SHA-256 (hex) of the password of an event made before migration
    # 0015, replaced by ``password_argon2`` at its first right use
    Column("password_hash", String(64), nullable=True),
    # a club event's password: an Argon2id PHC string (salted), as accounts' (0015)
    Column("password_argon2", String(128), nullable=True),
    Column("round", Integer, nullable=False),
    Column("paused", Boolean, nullable=False),
    Column("started_ms", BigInteger, nullable=True),
    Column("finished_ms", BigInteger, nullable=True),
    Column("created_ms", BigInteger, nullable=False),
    Index("ix_tournaments_status", "status", "created_ms"),
)

#: The players of a tournament; ``busy_game`` is an arena player's game in play (set
#: by compare-and-set from NULL: no player is paired twice at once).
TOURNAMENT_PLAYERS = Table(
    "tournament_players",
    METADATA,
    Column(
        "tournament_id",
        String(16),
        ForeignKey("tournaments.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    Column("user_id", String(16), ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
    Column("username", String(20), nullable=False),
    Column("rating", Integer, nullable=False),
    Column("seed", Integer, nullable=True),
    Column("joined_ms", BigInteger, nullable=False),
    Column("withdrawn_ms", BigInteger, nullable=True),
    Column("busy_game", String(32), nullable=True),
    Column("seen_ms", BigInteger, nullable=False),
    # NULL: a player (joined, or accepted); "invited" (named by an imported file, not
    # answered: never paired, the event not on their page) or "declined" (0015)
    Column("invitation", String(8), nullable=True),
    # why an arena withdrew the player: "no_show" (they did not make a first move in
    # time; a join clears it), NULL for a withdrawal of their own (0019)
    Column("withdrawn_why", String(8), nullable=True),
    Index("ix_tournament_players_user", "user_id", "joined_ms"),
)

#: The games of a tournament, one row per game (a leg of a match, a bye, a forfeit);
#: ``(tournament_id, round, board, leg)`` is unique, so no pairing is stored twice
#: (an arena's rows have no board: round 0, numbered by ``id``).
TOURNAMENT_GAMES = Table(
    "tournament_games",
    METADATA,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column(
        "tournament_id",
        String(16),
        ForeignKey("tournaments.id", ondelete="CASCADE"),
        nullable=False,
    ),
    Column("round", Integer, nullable=False),
    Column("board", Integer, nullable=True),
    Column("leg", Integer, nullable=False),
    Column("black_id", String(16), nullable=False),
    Column("white_id", String(16), nullable=True),
    Column("game_id", String(32), ForeignKey("games.id", ondelete="SET NULL"), nullable=True),
    Column("bye_points", Float, nullable=True),
    # a result given without play: "black", "white" (the winner) or "none" (both lose)
    Column("forfeit", String(8), nullable=True),
    # a game played elsewhere, read from a TRF file (migration 0007): "black", "white"
    # or "draw"; counted as played, with no game of the site
    Column("played", String(8), nullable=True),
    Column("berserk", String(16), nullable=True),
    Column("created_ms", BigInteger, nullable=False),
    Index("ux_tournament_games_board", "tournament_id", "round", "board", "leg", unique=True),
    Index("ix_tournament_games_game", "game_id"),
)

#: Direct challenges (migration 0006): one player asks a named other; the status moves
#: from ``open`` by compare-and-set (accepted once: its game is stored in that commit).
CHALLENGES = Table(
    "challenges",
    METADATA,
    Column("id", String(16), primary_key=True),
    Column("challenger_id", String(16), ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
    Column("challenger", String(20), nullable=False),
    Column("challenged_id", String(16), ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
    Column("challenged", String(20), nullable=False),
    Column("spec", JSON, nullable=False),
    Column("status", String(16), nullable=False),
    Column("reason", String(16), nullable=True),
    Column("game_id", String(32), nullable=True),
    Column("created_ms", BigInteger, nullable=False),
    Column("expires_ms", BigInteger, nullable=False),
    Index("ix_challenges_challenged", "challenged_id", "status"),
    Index("ix_challenges_challenger", "challenger_id", "status"),
)

#: Who blocks whom: a blocked player cannot challenge the one who blocked them.
BLOCKS = Table(
    "blocks",
    METADATA,
    Column("user_id", String(16), ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
    Column("blocked_id", String(16), ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
    Column("created_ms", BigInteger, nullable=False),
)

#: Whom a player takes challenges from (migration 0015): ``everyone``, ``played`` (the
#: players they have played a game with) or ``nobody``; without a row, everyone.
CHALLENGE_POLICIES = Table(
    "challenge_policies",
    METADATA,
    Column("user_id", String(16), ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
    Column("accept", String(16), nullable=False),
    Column("updated_ms", BigInteger, nullable=False),
)

#: The counters of the site's rates (:mod:`poolcheckers.server.quotas`): a count per
#: name until it expires, shared by every server process.
RATE_COUNTERS = Table(
    "rate_counters",
    METADATA,
    Column("name", String(255), primary_key=True),
    Column("count", BigInteger, nullable=False),
    Column("expires_ms", BigInteger, nullable=False),
    Index("ix_rate_counters_expires", "expires_ms"),
)

#: Slots held at once (an analysis running, say): one lease per slot, lapsing by itself
#: when its process never gives it back.
SLOT_LEASES = Table(
    "slot_leases",
    METADATA,
    Column("lease", String(32), primary_key=True),
    Column("name", String(255), nullable=False),
    Column("expires_ms", BigInteger, nullable=False),
    Index("ix_slot_leases_name", "name", "expires_ms"),
)


def to_ms(seconds: float) -> int:
    """Seconds (the models' unit) as the tables' milliseconds."""
    return round(seconds * 1000)


def to_s(ms: int) -> float:
    """The tables' milliseconds as seconds."""
    return ms / 1000


#: Puzzles (migration 0008): the shipped set and imported ones; ``rating``,
#: ``deviation`` and ``volatility`` are the puzzle's Glicko-2 standing, changed by the
#: first attempt of each signed-in player (compare-and-set on ``plays``).
PUZZLES = Table(
    "puzzles",
    METADATA,
    Column("id", String(16), primary_key=True),
    Column("fen", String(120), nullable=False),
    Column("solution", JSON, nullable=False),
    Column("goal", String(8), nullable=False),
    Column("themes", JSON, nullable=False),
    Column("source", JSON, nullable=True),
    Column("rating", Float, nullable=False),
    Column("deviation", Float, nullable=False),
    Column("volatility", Float, nullable=False),
    Column("plays", Integer, nullable=False),
    Column("solved", Integer, nullable=False),
    Column("votes_up", Integer, nullable=False),
    Column("votes_down", Integer, nullable=False),
    Column("origin", String(16), nullable=False),
    Column("created_ms", BigInteger, nullable=False),
    Index("ix_puzzles_rating", "rating"),
    Index("ux_puzzles_fen", "fen", unique=True),
)

#: A puzzle's themes, one row each (choosing puzzles by theme is an index lookup).
PUZZLE_THEMES = Table(
    "puzzle_themes",
    METADATA,
    Column("puzzle_id", String(16), ForeignKey("puzzles.id", ondelete="CASCADE"), primary_key=True),
    Column("theme", String(24), primary_key=True),
    Index("ix_puzzle_themes_theme", "theme", "puzzle_id"),
)

#: A player's puzzle rating, kept apart from game ratings; ``attempts`` is the row's
#: version for compare-and-set.
PUZZLE_PLAYERS = Table(
    "puzzle_players",
    METADATA,
    Column("user_id", String(16), ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
    Column("rating", Float, nullable=False),
    Column("deviation", Float, nullable=False),
    Column("volatility", Float, nullable=False),
    Column("attempts", Integer, nullable=False),
    Column("solved", Integer, nullable=False),
    Column("last_ms", BigInteger, nullable=True),
)

#: Every attempt of a signed-in player; only the first at a puzzle is rated (it is
#: stored in the transaction that moves the player's ``puzzle_players.attempts`` by
#: compare-and-set, so two first attempts from two tabs cannot both be rated).
PUZZLE_ATTEMPTS = Table(
    "puzzle_attempts",
    METADATA,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("user_id", String(16), ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
    Column("puzzle_id", String(16), ForeignKey("puzzles.id", ondelete="CASCADE"), nullable=False),
    Column("solved", Boolean, nullable=False),
    Column("rated", Boolean, nullable=False),
    Column("rating_before", Float, nullable=True),
    Column("rating_after", Float, nullable=True),
    Column("puzzle_rating", Float, nullable=False),
    Column("created_ms", BigInteger, nullable=False),
    Index("ix_puzzle_attempts_user", "user_id", "created_ms"),
    Index("ix_puzzle_attempts_seen", "user_id", "puzzle_id"),
)

#: One vote per player and puzzle (+1 or -1).
PUZZLE_VOTES = Table(
    "puzzle_votes",
    METADATA,
    Column("user_id", String(16), ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
    Column("puzzle_id", String(16), ForeignKey("puzzles.id", ondelete="CASCADE"), primary_key=True),
    Column("vote", Integer, nullable=False),
)

#: The puzzle of each day, chosen once (the first process to choose it inserts the row).
PUZZLE_DAILY = Table(
    "puzzle_daily",
    METADATA,
    Column("day", String(10), primary_key=True),
    Column("puzzle_id", String(16), ForeignKey("puzzles.id", ondelete="CASCADE"), nullable=False),
)

#: Puzzle attempts as they are played (migration 0015): the solution stays on the
#: server, each solver move is posted with its ``ply`` and judged here.  ``id`` is a
#: random key (the only key of a signed-out player's attempt); ``ply`` counts the
#: plies of the line played so far and is the row's version: a move is stored by
#: compare-and-set on ``(id, ply, state 'open')``, so a move posted twice, racing or
#: replayed, counts once, and an ended attempt (``state`` 'solved' or 'failed')
#: takes no more moves.  A signed-in player's attempt ends in the transaction that
#: rates it (``puzzle_attempts``), so it is rated exactly once.
PUZZLE_RUNS = Table(
    "puzzle_runs",
    METADATA,
    Column("id", String(24), primary_key=True),
    Column("user_id", String(16), ForeignKey("users.id", ondelete="CASCADE"), nullable=True),
    Column("puzzle_id", String(16), ForeignKey("puzzles.id", ondelete="CASCADE"), nullable=False),
    Column("ply", Integer, nullable=False),
    Column("state", String(8), nullable=False),
    Column("hinted", Boolean, nullable=False),
    Column("created_ms", BigInteger, nullable=False),
    Column("ended_ms", BigInteger, nullable=True),
    Index("ix_puzzle_runs_user", "user_id", "state"),
    Index("ix_puzzle_runs_created", "created_ms"),
)

#: A learner's progress in each lesson (migration 0009): the steps done, and when the
#: lesson was completed.
LESSON_PROGRESS = Table(
    "lesson_progress",
    METADATA,
    Column("user_id", String(16), ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
    Column("lesson_id", String(24), primary_key=True),
    Column("steps_done", Integer, nullable=False),
    Column("completed_ms", BigInteger, nullable=True),
    Column("updated_ms", BigInteger, nullable=False),
)
