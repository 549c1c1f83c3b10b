"""Every request and response of the web API as a Pydantic model (docs/CONTRACTS.md §3).

Requests are validated here, once, when FastAPI (HTTP) or :func:`parse_ws` (WebSocket)
reads them: field types are strict (``"0"`` is not a ply, ``true`` is not a level) and
every text must be storable as UTF-8 (a lone surrogate such as ``"\\ud800"`` is
refused).  What the fields *mean* (a FEN, a move, a rule set) is checked by the rules
library afterwards.  Responses are built from these models, so ``/openapi.json``
describes the whole HTTP API.

>>> MoveRequest.model_validate({"move": "11-15", "ply": 0, "token": "t"}).ply
0
>>> parse_ws('{"type": "ping"}', CLIENT_GAME_MESSAGE).type
'ping'
"""

from __future__ import annotations

import json
import math
from typing import Annotated, Any, Literal, TypeVar, get_args

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
)
from pydantic_core import PydanticCustomError

from poolcheckers.engine import MAX_LEVEL, MIN_LEVEL
from poolcheckers.server import errors
from poolcheckers.server.i18n import M_
from poolcheckers.server.text import SURROGATE, clean_text

#: Longest game replayed for the analysis board (plies).
MAX_ANALYSIS_MOVES = 2000
#: Most engine lines (multi-PV) one analysis request may ask for.
MAX_ANALYSIS_LINES = 5
#: Longest clock (seconds) and increment a game may have.
MAX_CLOCK_S = 24 * 3600
MAX_INCREMENT_S = 3600
#: the shortest time per side of a clock (seconds): less is no game of checkers
MIN_CLOCK_S = 1.0


def check_utf8(text: str) -> str:
    """``text`` if it can be stored as UTF-8, else a ``ValueError``.

    >>> check_utf8("11-15")
    '11-15'
    >>> check_utf8("\\ud800")
    Traceback (most recent call last):
    ...
    pydantic_core._pydantic_core.PydanticCustomError: text with a lone surrogate (U+D800) ...
    """
    bad = SURROGATE.search(text)
    if bad is not None:
        raise PydanticCustomError(
            "not_utf8",
            "text with a lone surrogate (U+{code}) cannot be stored as UTF-8",
            {"code": f"{ord(bad.group()):04X}"},
        )
    return text


#: A string that can be stored as UTF-8.
Text = Annotated[str, AfterValidator(check_utf8)]
Color = Literal["black", "white"]
Seat = Literal["black", "white", "both"]
Mode = Literal["engine", "local", "online"]
Action = Literal[
    "resign",
    "draw-offer",
    "draw-accept",
    "draw-decline",
    "takeback",
    "abort",
    "rematch",
    "rematch-decline",
]
#: Every game action, in the order above (one route each).
ACTIONS: tuple[Action, ...] = get_args(Action)
#: A game's status: "aborted" is a game ended before both sides had moved (no result).
Status = Literal["running", "finished", "aborted"]
#: The options of docs/RULES.md §9 (``RuleSet.to_dict()``), checked by the rules library.
Rules = dict[Text, Any]


class Request(BaseModel):
    """A request body: strict types, unknown fields ignored."""

    model_config = ConfigDict(strict=True, extra="ignore", allow_inf_nan=False)


class Answer(BaseModel):
    """A response body."""


# ---------------------------------------------------------------- errors
class ErrorDetail(Answer):
    code: str = Field(description="machine-readable: malformed, illegal_move, stale_ply, …")
    message: str = Field(description="what was wrong, citing the rule where one applies")


class ErrorBody(Answer):
    """Every error answer: ``{"error": {"code", "message"}}``."""

    error: ErrorDetail


# ---------------------------------------------------------------- game state
class LegalMove(Answer):
    notation: str
    path: list[int]
    paths: list[list[int]] = Field(description="every road the move can be walked by (R4)")
    captured: list[int]
    board_after: str = Field(description="the board after the move (32 characters)")


class LastMove(Answer):
    path: list[int]
    captured: list[int]


class OutcomeInfo(Answer):
    termination: str | None
    winner: Color | None
    result: str | None
    reason: str | None


class ClockInfo(Answer):
    black: float = Field(description="seconds left")
    white: float
    initial: float
    increment: float
    running: Color | None = Field(description="the side whose clock runs")


class CorrespondenceInfo(Answer):
    """A correspondence game's move deadline (R20): ``days`` for each move."""

    days: int = Field(description="days for each move; the deadline is set again after a move")
    deadline: float | None = Field(
        description="epoch seconds by which the side to move must move, or lose on time; "
        "null before each side has made its first move, and once the game is over"
    )
    left: float | None = Field(description="seconds left until the deadline (null: no deadline)")
    running: Color | None = Field(description="the side whose deadline runs")


class Counters(Answer):
    r18_plies: int
    r18_limit_plies: int
    r19_moves: int
    r19_active: bool
    r19_limit: int


class Seats(Answer):
    black: bool
    white: bool


class GameState(Answer):
    """A game as a player or spectator sees it."""

    your_color: Seat | None = None
    id: str
    mode: Literal["engine", "local", "online", "imported"]
    status: Status
    rules: dict[str, Any]
    rules_notes: list[str] = Field(description="how the rules differ from APCA, in words")
    start_fen: str
    fen: str
    board: str = Field(description="the 32 squares: b/w men, B/W kings, . empty")
    turn: Color
    start_turn: Color
    ply: int
    version: int
    moves: list[str]
    legal_moves: list[LegalMove]
    last_move: LastMove | None
    outcome: OutcomeInfo | None
    clock: ClockInfo | None
    correspondence: CorrespondenceInfo | None = Field(
        None, description="a correspondence game's move deadline (``clock`` is null then)"
    )
    counters: Counters
    draw_offer: Color | None
    can_abort: bool = Field(
        False, description="running and a side has not yet moved: abort gives no result"
    )
    rematch_offer: Color | None = Field(
        None, description="the side offering a rematch of this game (online, game over)"
    )
    rematch_game: str | None = Field(
        None, description="the rematch's id once it started (seats: colours swapped)"
    )
    level: int | None
    engine_color: Color | None
    seats: Seats
    tags: dict[str, str]
    rated: bool = Field(False, description="a rated game (its result changes ratings)")
    category: str | None = Field(
        None, description="bullet, blitz, rapid, classical or correspondence (clocked games)"
    )
    annotations: dict[str, Any] | None = Field(
        None,
        description="an imported game's move tree: the comments before and after its "
        "moves, NAGs, strength marks and nested variations (poolcheckers.pdn.game_tree)",
    )


class CreatedGame(Answer):
    game: GameState
    token: str = Field(description="the creator's seat token (both sides in local mode)")
    invite: str | None = Field(description="online: the invitation path for the opponent")


class JoinedGame(Answer):
    game: GameState
    token: str


class TimeControlInfo(Answer):
    initial: float = Field(description="seconds per side")
    increment: float = Field(description="seconds added per move")


class GameSummary(Answer):
    id: str
    mode: str
    status: str
    ply: int
    moves_count: int = Field(description="moves as PDN numbers them (Black's turn + White's)")
    seats: Seats
    clock: TimeControlInfo | None = Field(None, description="the clock of the game, if any")
    rules: dict[str, Any]
    level: int | None
    engine_color: Color | None
    result: str | None
    reason: str | None
    created: float
    updated: float
    tags: dict[str, str]
    played_on: str | None = Field(
        None, description="the day played (YYYY-MM-DD): an imported game's Date tag, else its start"
    )


class GameList(Answer):
    games: list[GameSummary]
    total: int | None = Field(None, description="the games the filters match, over every page")


class Credentials(Request):
    """``POST /api/account/signup`` and ``/login`` (the rules: docs/COMMUNITY.md)."""

    # the bound here only caps the body: the account rules (2 to 20 characters) answer
    # any longer name with the same message as the sign-up form
    username: Text = Field(max_length=1024, description="2 to 20 of A-Z a-z 0-9 _ -")
    password: Text = Field(max_length=1024, description="8 to 256 characters")


class PasswordReset(Request):
    """``POST /api/account/reset``: a new password with the code an administrator's
    command printed (``poolcheckers reset-password NAME``)."""

    username: Text = Field(max_length=1024)
    code: Text = Field(max_length=64, description="the one-time code, e.g. ABCD-EFGH-JKMN")
    password: Text = Field(max_length=1024, description="the new password, 8 to 256 characters")


class NewApiToken(Request):
    """``POST /api/account/tokens``: what the program is (a name) and what it may do."""

    label: Text = Field(max_length=1024, description="the token's name, 1 to 60 characters")
    scopes: list[Text] = Field(
        max_length=10, description="bot:play, challenge:read, challenge:write"
    )


class SessionInfo(Answer):
    """``GET /api/session``: the signed-in account, or null (never 401)."""

    account: AccountInfo | None


class PasswordChange(Request):
    old: Text = Field(max_length=1024)
    new: Text = Field(max_length=1024)


class LanguageChoice(Request):
    """``POST /api/language``: the site's language, as a BCP 47 tag."""

    locale: str = Field(max_length=16, examples=["pt-BR"])


class AccountInfo(Answer):
    """``GET /api/account``: who is signed in, and the token for ``X-CSRF-Token``."""

    username: str
    csrf_token: str = Field(description="send as X-CSRF-Token with state-changing requests")


class SeekRequest(Request):
    """``POST /api/seeks``: an open challenge (docs/CONTRACTS.md §3.2)."""

    clock: dict[Text, Any] | None = Field(
        description='{"initial", "increment"} in seconds, {"days"} per move, or null (no clock)'
    )
    rated: bool = False
    color: Literal["black", "white", "random"] = "random"
    rules: Rules | None = Field(None, description="docs/RULES.md §9 options; rated games use APCA")
    rating_range: list[int] | None = Field(None, description="[low, high] of the opponent")


class SeekInfo(Answer):
    """An open seek as the lobby lists it: the author's name, never an id."""

    id: str
    author: str
    rating: dict[str, Any] | None = Field(description="the author's rating in the category")
    clock: dict[str, Any] | None
    category: str | None
    rated: bool
    color: str
    rules: dict[str, Any]
    rating_range: list[int] | None
    created: float


class PlayNow(Answer):
    """``POST /api/seeks/play-now``: the game of the matching seek taken, or the seek
    posted when none matched."""

    game: GameState | None = None
    seek: SeekInfo | None = None


class AcceptedSeek(Answer):
    """The game a taken seek started (the taker's view; the author hears of it live)."""

    game: GameState


class PlayerGame(Answer):
    """A game on a player page: names (never account ids) and the player's result."""

    id: str
    status: str
    category: str | None
    rated: bool
    black: str = Field(description="username, 'Anonymous' or 'Engine'")
    white: str
    level: int | None = Field(
        default=None, description="the engine's level in a game against it (else null)"
    )
    result: str | None = Field(description="PDN result: 2-0, 0-2, 1-1")
    player_result: Literal["win", "draw", "loss"] | None
    forfeit: bool = Field(
        False, description="won or lost by forfeit: a side did not make its first move"
    )
    black_rating: int | None
    white_rating: int | None
    ply: int
    created: float
    updated: float


class PerfInfo(Answer):
    rating: int
    rd: int
    games: int
    provisional: bool


class CategoryStats(Answer):
    """A player's rated games of one category."""

    games: int
    wins: int
    draws: int
    losses: int
    best: int | None = Field(description="the best rating reached (null: no rating update)")


class PlayerPage(Answer):
    """``GET /api/users/{username}``."""

    username: str
    created: float
    bot: bool = Field(
        default=False, description="a bot account (shown BOT; never in the leaderboards)"
    )
    ratings: dict[str, PerfInfo]
    stats: dict[str, CategoryStats] = Field(
        default_factory=dict, description="rated games by category: results and best rating"
    )
    games: list[PlayerGame]
    total: int = Field(description="games matching the filters (``games`` is one page of them)")
    current: list[PlayerGame] = Field(
        description="the player's running games, newest first (at most 20), unfiltered"
    )


class HeadToHeadRow(Answer):
    """The player's record against one opponent in finished games."""

    opponent: str = Field(description="username, 'Anonymous' or 'Engine'")
    wins: int
    draws: int
    losses: int


class LeaderboardRow(Answer):
    rank: int
    username: str
    rating: int
    rd: int
    games: int


class RatingSide(Answer):
    before: int
    after: int
    diff: int


class RatingChange(Answer):
    """What a rated game did to both players' ratings."""

    category: str
    black: RatingSide
    white: RatingSide


class WaitingRow(Answer):
    """An active player whose rating has not yet settled (not on the leaderboard)."""

    username: str
    rating: int
    games: int
    more_games: int = Field(description="about how many more rated games settle the rating")


class ImportError_(Answer):
    game: int
    line: int
    column: int
    message: str


class ImportDuplicate(Answer):
    game: int = Field(description="the game's 1-based number in the text")
    id: str = Field(description="the stored game it is the same as")


class ImportResult(Answer):
    imported: list[str]
    errors: list[ImportError_]
    duplicates: list[ImportDuplicate] = Field(
        default_factory=list, description="games already stored (same tags, moves, rules)"
    )


class TablebaseMove(Answer):
    move: str
    value: Literal["win", "draw", "loss"]
    dtz: int | None = Field(description="plies to the next capture or man move by this move")


class TablebaseInfo(Answer):
    """Endgame tables (docs/EGDB.md): value for the side to move under the running counts."""

    value: Literal["win", "draw", "loss"]
    dtz: int | None
    fresh_value: Literal["win", "draw", "loss"]
    moves: list[TablebaseMove]
    line: list[str] = Field(
        default_factory=list,
        description="the tables' line: each side's best move to the game's end (160 plies at most)",
    )
    win_in: int | None = Field(
        None, description="the winner's moves to the end of the game along that line (null: a draw)"
    )


class PositionInfo(Answer):
    fen: str
    board: str
    start_fen: str
    turn: Color
    start_turn: Color
    ply: int
    rules: dict[str, Any]
    rules_notes: list[str]
    moves: list[str]
    line: str = Field(description="the moves as PDN move text")
    legal_moves: list[LegalMove]
    last_move: LastMove | None
    outcome: OutcomeInfo | None
    counters: Counters
    tablebase: TablebaseInfo | None = None


class PdnGameInfo(Answer):
    game: int
    tags: dict[str, str]
    start_fen: str
    moves: list[str]
    moves_count: int = Field(0, description="moves as PDN numbers them (a ply each side)")
    result: str
    rules: dict[str, Any]
    tree: dict[str, Any] | None = Field(
        None, description="the move tree with comments, NAGs and variations (null: none)"
    )


class PdnReadError(Answer):
    game: int
    line: int
    column: int
    token: str | None
    message: str
    partial: PdnGameInfo | None


class PdnReadResult(Answer):
    games: list[PdnGameInfo]
    errors: list[PdnReadError]


class RuleChoice(Answer):
    value: Any
    label: str


class RuleOptionInfo(Answer):
    name: str
    label: str
    rule: str
    kind: Literal["choice", "number", "boolean"]
    default: Any
    choices: list[RuleChoice]
    minimum: int | None
    maximum: int | None


class Bounds(Answer):
    """The smallest and the largest value a request's field may take (both allowed)."""

    minimum: int
    maximum: int


class RequestLimits(Answer):
    """The bounds this server checks requests against, so that forms offer no more
    (and the web pages keep no copy of them)."""

    analysis_lines: int = Field(description="most engine lines (multipv) one analysis asks for")
    analysis_moves: int = Field(description="longest line (plies) replayed for the analysis board")
    analysis_seconds: float = Field(description="longest search of one analysis request")
    level: Bounds = Field(description="the engine's levels")
    clock_initial_seconds: int = Field(description="longest clock of a game, per side")
    clock_increment_seconds: int = Field(description="longest increment of a game's clock")
    seek_initial_seconds: Bounds = Field(description="a lobby seek's clock, per side")
    seek_increment_seconds: Bounds = Field(description="a lobby seek's increment")
    seek_days: Bounds = Field(description="a correspondence seek's days per move")
    username_length: Bounds
    password_length: Bounds
    pdn_bytes: int = Field(description="largest PDN text read (import or analysis)")
    min_rated_plies: int = Field(
        description="plies a rated game must last for its result to change the ratings "
        "(ended sooner, it changes none)"
    )


class RulesInfo(Answer):
    """The rule options of docs/RULES.md §9 with their APCA defaults, in words (for forms),
    and the limits of the server's requests."""

    default: dict[str, Any]
    options: list[RuleOptionInfo]
    limits: RequestLimits


class Health(Answer):
    ok: bool
    engine: bool
    database: str
    database_reachable: bool
    error: ErrorDetail | None = None


# ---------------------------------------------------------------- HTTP requests
def _seconds(value: float) -> str:
    """Seconds in words with minutes: ``599940 s (9999 minutes)``."""
    text = f"{value:g} s"
    return f"{text} ({value / 60:g} minutes)" if value >= 60 else text


def _tenths(value: float, what: str) -> None:
    """Clocks count in tenths of a second: finer times (``1e-300``, ``1.25``) are refused
    rather than rounded, so a clock shows what was asked for."""
    if not math.isfinite(value) or round(value, 1) != value:
        raise PydanticCustomError(
            "clock_precision",
            "the {what} is given in whole or tenths of seconds (like 90 or 2.5), not {value}",
            {"what": what, "value": repr(value)},
        )


def check_initial(value: float) -> float:
    """A clock's time per side: :data:`MIN_CLOCK_S` to :data:`MAX_CLOCK_S` (24 hours), in
    whole or tenths of seconds."""
    if not MIN_CLOCK_S <= value <= MAX_CLOCK_S:
        raise PydanticCustomError(
            "clock_range",
            "the clock's time per side must be at least {minimum} and at most {limit}, not {value}",
            {
                "minimum": f"{MIN_CLOCK_S:g} s",
                "limit": f"{MAX_CLOCK_S} s ({MAX_CLOCK_S // 60} minutes, 24 hours)",
                "value": _seconds(value),
            },
        )
    _tenths(value, "clock's time per side")
    return value


def check_increment(value: float) -> float:
    """A clock's increment per move: 0 to :data:`MAX_INCREMENT_S` (one hour)."""
    if not 0 <= value <= MAX_INCREMENT_S:
        raise PydanticCustomError(
            "clock_range",
            "the clock's increment must be 0 or more and at most {limit}, not {value}",
            {"limit": f"{MAX_INCREMENT_S} s (60 minutes)", "value": _seconds(value)},
        )
    _tenths(value, "clock's increment")
    return value


class ClockSpec(Request):
    initial: Annotated[float, AfterValidator(check_initial)] = Field(
        description="seconds per side",
        json_schema_extra={"minimum": MIN_CLOCK_S, "maximum": MAX_CLOCK_S, "multipleOf": 0.1},
    )
    increment: Annotated[float, AfterValidator(check_increment)] = Field(
        0.0,
        description="seconds per move",
        json_schema_extra={"minimum": 0, "maximum": MAX_INCREMENT_S, "multipleOf": 0.1},
    )


class CreateGame(Request):
    mode: Mode = "local"
    rules: Rules | None = None
    fen: Text | None = None
    level: int | None = Field(None, ge=MIN_LEVEL, le=MAX_LEVEL)
    color: Color = Field("black", description="the creator's side")
    clock: ClockSpec | None = None


class JoinRequest(Request):
    invite: Text


class TokenRequest(Request):
    token: Text | None = Field(None, description="the seat token (not needed for account seats)")


class MoveRequest(Request):
    move: Text = Field(description="R4 notation, e.g. 11-15 or 1x10x19")
    ply: int = Field(ge=0, description="the game's current ply")
    token: Text | None = Field(None, description="the seat token (not needed for account seats)")


class PositionRequest(Request):
    fen: Text | None = None
    moves: list[Text] = Field(default_factory=list, max_length=MAX_ANALYSIS_MOVES)
    rules: Rules | None = None


class PdnRequest(Request):
    pdn: Text
    rules: Rules | None = None


class TreeExportRequest(Request):
    """``POST /api/analysis/export``: the analysis board's move tree, written as PDN."""

    fen: Text | None = Field(None, description="the start position (R5); null: the start")
    rules: Rules | None = None
    tags: dict[Text, Text] = Field(default_factory=dict, max_length=64)
    result: Literal["2-0", "0-2", "1-1", "0-0", "*"] = "*"
    tree: dict[str, Any] = Field(
        description="the main line: {moves: [{move, comment?, nags?, strength?, "
        "variations?: [line...]}], comment?, nags?} (poolcheckers.pdn.game_tree)"
    )


class TreeExport(Answer):
    pdn: str = Field(description="the game as PDN text, every line and comment kept")


# ---------------------------------------------------------------- WebSocket messages
class WsMove(Request):
    type: Literal["move"]
    move: Text
    ply: int = Field(ge=0)


class WsAction(Request):
    type: Action


class WsPing(Request):
    type: Literal["ping"]


class WsAnalyse(Request):
    type: Literal["analyse"]
    id: Text | int | None = None
    fen: Text | None = None
    moves: list[Text] = Field(default_factory=list, max_length=MAX_ANALYSIS_MOVES)
    rules: Rules | None = None
    time: float | None = Field(None, description="seconds (capped by the server)")
    multipv: int = Field(
        1,
        ge=1,
        le=MAX_ANALYSIS_LINES,
        description="how many of the engine's best lines to send (multi-PV), "
        "fewer when the position has fewer legal moves",
    )


class WsStop(Request):
    type: Literal["stop"]


GameMessage = Annotated[WsMove | WsAction | WsPing, Field(discriminator="type")]
AnalysisMessage = Annotated[WsAnalyse | WsStop, Field(discriminator="type")]
CLIENT_GAME_MESSAGE: TypeAdapter[WsMove | WsAction | WsPing] = TypeAdapter(GameMessage)
CLIENT_ANALYSIS_MESSAGE: TypeAdapter[WsAnalyse | WsStop] = TypeAdapter(AnalysisMessage)


class StateMessage(Answer):
    type: Literal["state"] = "state"
    game: GameState


class ErrorMessage(Answer):
    type: Literal["error"] = "error"
    error: ErrorDetail
    id: str | int | None = None


class AnalysisLine(Answer):
    """One of the engine's best lines (multi-PV) in an analysis ``info``/``done``."""

    move: str = Field(description="the line's first move (R4 notation), a legal move")
    score: int = Field(description="centi-men, the side to move's view")
    mate_in: int | None = Field(description="plies to the end, as the engine counts")
    win_in: int | None = Field(description="the winner's moves to the end (signed)")
    score_text: str = Field(description="the score in words, e.g. 'win in 2'")
    pv: list[str] = Field(description="the line's moves (R4 notation)")
    line: str = Field(description="the pv as PDN move text from the analysed position")


class AnalysisReport(Answer):
    """One depth of an analysis (``info``), or its end (``done``, with ``best``)."""

    type: Literal["info", "done"]
    id: str | int | None = None
    depth: int
    score: int = Field(description="centi-men, the side to move's view")
    mate_in: int | None = Field(description="plies to the end, as the engine counts")
    win_in: int | None = Field(description="the winner's moves to the end (signed)")
    score_text: str = Field(description="the score in words, e.g. 'win in 2'")
    pv: list[str]
    line: str = Field(description="the pv as PDN move text from the analysed position")
    nodes: int
    nps: int
    time: float
    best: str | None = None
    lines: list[AnalysisLine] = Field(
        default_factory=list,
        description="the best lines of this depth, best first, as many as the request's "
        "multipv (fewer with fewer legal moves); the first is the line above",
    )


M = TypeVar("M")

#: How deep a JSON text may nest (the game's messages nest 4 levels).
MAX_JSON_DEPTH = 64


def nesting_within(data: Any, limit: int) -> bool:
    """Whether the containers of parsed JSON ``data`` nest at most ``limit`` deep.

    >>> nesting_within([[1]], 2), nesting_within([[[1]]], 2)
    (True, False)
    """
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return False
        children = node.values() if isinstance(node, dict) else node
        stack.extend((c, depth + 1) for c in children if isinstance(c, dict | list))
    return True


def loads(raw: bytes | str) -> Any:
    """JSON text as Python data, or a ``malformed`` error (also for text nested
    deeper than :data:`MAX_JSON_DEPTH`: deeper still would exhaust the parser's stack)."""
    if isinstance(raw, bytes):
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise errors.malformed(M_("the payload is not UTF-8: {exc}", exc=exc)) from None
    try:
        data = json.loads(raw)
    except RecursionError:
        data = None
        deep = True
    except ValueError as exc:
        raise errors.malformed(M_("the payload is not valid JSON: {exc}", exc=exc)) from None
    else:  # few brackets in all: no need to look
        brackets = raw.count("[") + raw.count("{")
        deep = brackets > MAX_JSON_DEPTH and isinstance(data, dict | list)
        deep = deep and not nesting_within(data, MAX_JSON_DEPTH)
    if deep:
        raise errors.malformed(
            M_(
                "the JSON payload nests deeper than {MAX_JSON_DEPTH} levels",
                MAX_JSON_DEPTH=MAX_JSON_DEPTH,
            )
        )
    return data


def describe(exc: ValidationError) -> str:
    """A validation error in one line: ``field: reason; …``."""
    parts = []
    for e in exc.errors(include_url=False):
        loc = ".".join(str(x) for x in e.get("loc", ()) if x != "body")
        parts.append(f"{loc}: {e.get('msg', 'invalid')}" if loc else str(e.get("msg")))
    return clean_text("; ".join(parts) or "invalid request")


def parse_ws(raw: str | bytes | None, adapter: TypeAdapter[M]) -> M:
    """A client's WebSocket message, validated, or a ``malformed`` error."""
    if raw is None or (isinstance(raw, bytes) and not raw):
        raise errors.malformed(M_("messages must be JSON text"))
    if isinstance(raw, bytes):
        raise errors.malformed(M_("messages must be JSON text, not binary frames"))
    data = loads(raw)
    if not isinstance(data, dict):
        raise errors.malformed(M_("a message must be a JSON object with a 'type'"))
    try:
        return adapter.validate_python(data)
    except ValidationError as exc:
        raise errors.malformed(describe(exc)) from None  # every socket error is malformed


Model = TypeVar("Model", bound=BaseModel)


def validated(model: type[Model], raw: bytes | str) -> Model:
    """A JSON body read into ``model``, or a 400 error naming the bad fields."""
    data = loads(raw)
    if not isinstance(data, dict):
        raise errors.malformed(M_("the payload must be a JSON object"))
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise errors.ApiError(400, error_code(exc.errors()), describe(exc)) from None


#: validation errors about the shape of a request (answered ``malformed``)
SHAPE_ERRORS = frozenset({"missing", "json_invalid", "not_utf8"})


def error_code(problems: Any) -> str:
    """``malformed`` for missing, mistyped or undecodable fields, ``bad_request`` for
    a value out of its range or set (docs/CONTRACTS.md §3.1)."""
    kinds = {str(e.get("type", "")) for e in problems}
    shape = kinds & SHAPE_ERRORS or any(k.endswith(("_type", "_parsing")) for k in kinds)
    return "malformed" if shape else "bad_request"
