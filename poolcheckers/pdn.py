"""PDN (Portable Draughts Notation 3.0) for American pool checkers, GameType 23.

Reading validates every move with :meth:`Board.parse_move` (R4–R15), in the
main line and in every variation; writing replays the game and writes each
move as R4 asks in its position (the full path only where it is needed).

>>> text = '''
... [Event "Club night"]
... [Black "Ann"]
... [White "Bob"]
... [Result "2-0"]
... [GameType "23,B,8,8,N1,0"]
...
... 1. 11-15 22-18 {the usual reply} (1... 24-20 $2) 2. 15x22 25x18 2-0
... '''
>>> [game] = read_games(text)
>>> game.tags["Black"], game.result, game.winner
('Ann', '2-0', <Color.BLACK: 0>)
>>> [str(m) for m in game.moves]
['11-15', '22-18', '15x22', '25x18']
>>> game.comments, game.variations[2][0].nags
({2: 'the usual reply'}, {1: [2]})
>>> print(game.to_pdn())
[Event "Club night"]
[Site "?"]
[Date "????.??.??"]
[Round "?"]
[Black "Ann"]
[White "Bob"]
[Result "2-0"]
[GameType "23,B,8,8,N1,0"]
<BLANKLINE>
1. 11-15 22-18 {the usual reply} (1... 24-20 $2) 2. 15x22 25x18 2-0
<BLANKLINE>
>>> read_games("1. 11-15 22-18 2. 15-19 *")
Traceback (most recent call last):
...
poolcheckers.errors.PdnError: game 1, line 1, column 19: cannot play 15-19 as black's move 2: ...

Conventions (keys of ``comments``, ``nags``, ``strengths`` and ``variations``):
ply ``i`` (1-based) is ``moves[i - 1]``; ``comments[i]`` is the comment after
ply ``i`` and ``comments[0]`` the one before the first move; ``nags[i]`` and
``strengths[i]`` annotate ply ``i``; ``variations[i]`` are alternatives to ply
``i``, each starting from the position before it.  A :class:`PdnVariation` uses
the same keys for its own moves.

What is read: tag pairs ``[Name "value"]`` (``\\"`` and ``\\\\`` escape a quote
and a backslash); move numbers ``1.``, ``1...``, ``1. ...`` (read and not
checked); moves ``11-15``, ``15x22`` (also ``15:22``), full paths ``1x10x19``
and any shorthand :meth:`Board.parse_move` accepts; strength marks (``!``,
``?``, ``!!``, ``??``, ``!?``, ``?!``, ``(?)``); comments ``{…}`` (over several
lines; whitespace is collapsed to single spaces) and ``;`` to the end of the
line; nested variations ``(…)``; NAGs ``$0``–``$255``; the results below; lines
starting ``%`` are skipped (PDN's escape).  ``GameType`` must be 23 (``23`` or
``23,B,8,8,N1,0``); a ``FEN`` tag sets up the start (R5); a ``Rules`` tag
(:attr:`RuleSet.name`, e.g. ``apca+king_only_move_limit=15``) names the rule
set.  Games end at their result or where the next game's tags begin.  Moves
after the end of the game (R16–R21) and a result the final position
contradicts are errors.

Results: the first score is the first player's, Black's (R3), as written by
:meth:`Outcome.result` (``2-0``, ``0-2``, ``1-1``).  The chess-style ``1-0``,
``0-1`` and ``1/2-1/2`` are read as the same three; the text is kept as written
and :func:`normalize_result` maps it.  ``0-0`` is a double forfeit, ``*`` an
unfinished game.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path
from typing import Final, Literal, NotRequired, TypedDict, cast

from poolcheckers.board import Board
from poolcheckers.errors import (
    PdnError,
    PdnInputError,
    PdnTreeError,
    PoolCheckersError,
    RuleSetError,
)
from poolcheckers.fen import STARTING_FEN
from poolcheckers.move import Move
from poolcheckers.pieces import Color
from poolcheckers.rules import RuleSet

__all__ = [
    "GAME_TYPE",
    "MAX_VARIATION_DEPTH",
    "RESULTS",
    "ROSTER",
    "PdnGame",
    "PdnInputError",
    "PdnTreeError",
    "PdnVariation",
    "TreeLine",
    "TreeMove",
    "game_from_board",
    "game_tree",
    "iter_games",
    "normalize_result",
    "read_file",
    "read_games",
    "read_games_collect",
    "tree_to_game",
    "write_file",
    "write_game",
    "write_games",
]

#: The PDN GameType of American pool checkers (R4): type 23, Black starts,
#: an 8×8 board, numeric notation N1 (squares 1–32, R2), not inverted.
GAME_TYPE: Final = "23,B,8,8,N1,0"

#: The seven-tag roster, written first and in this order (Black moves first, R3).
ROSTER: Final = ("Event", "Site", "Date", "Round", "Black", "White", "Result")

#: Every result a game may end with, as PDN writes it.
RESULTS: Final = ("2-0", "0-2", "1-1", "1-0", "0-1", "1/2-1/2", "0-0", "*")

#: Variations nest at most this deep.
MAX_VARIATION_DEPTH: Final = 64

#: The line width the writer wraps movetext at.
LINE_WIDTH: Final = 80

_NORMAL_RESULT: Final = {"1-0": "2-0", "0-1": "0-2", "1/2-1/2": "1-1"}
_ROSTER_UNKNOWN: Final = {"Date": "????.??.??", "Result": "*"}
_GAME_TYPE_NAMES: Final = {
    "0": "chess",
    "1": "Chinese chess",
    "20": "international draughts",
    "21": "English draughts",
    "22": "Italian draughts",
    "24": "Spanish draughts",
    "25": "Russian draughts",
    "26": "Brazilian draughts",
    "27": "Canadian draughts",
    "28": "Portuguese draughts",
    "29": "Czech draughts",
    "30": "Turkish draughts",
    "31": "Thai draughts",
    "40": "Frisian draughts",
    "41": "Spantsiretti draughts",
    "50": "Othello",
}
_GAME_TYPE_RE: Final = re.compile(r"(\d+)(?:,([WB]),(\d+),(\d+),([ANS][0-3])(?:,([01]))?)?")
_TAG_NAME_RE: Final = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
_MAX_NAG: Final = 255


def normalize_result(result: str) -> str:
    """The result in the project's form: ``1-0`` → ``2-0``, ``0-1`` → ``0-2``,
    ``1/2-1/2`` → ``1-1``; the others are returned unchanged.

    >>> [normalize_result(r) for r in ("1-0", "0-1", "1/2-1/2", "2-0", "*")]
    ['2-0', '0-2', '1-1', '2-0', '*']
    """
    return _NORMAL_RESULT.get(result, result)


# --------------------------------------------------------------------- games


@dataclass
class PdnVariation:
    """An alternative line: ``moves[0]`` replaces the parent's move it follows.

    Its ``comments``, ``nags``, ``strengths`` and ``variations`` are keyed by
    ply within the variation (1-based; comment 0 comes before its first move).
    """

    moves: list[Move] = field(default_factory=list)
    comments: dict[int, str] = field(default_factory=dict)
    nags: dict[int, list[int]] = field(default_factory=dict)
    strengths: dict[int, str] = field(default_factory=dict)
    variations: dict[int, list[PdnVariation]] = field(default_factory=dict)


@dataclass
class PdnGame:
    """One game of a PDN file.

    ``tags`` keeps every tag pair in file order (``Result``, ``GameType`` and
    ``FEN`` included, as written); ``start_fen`` is the set-up position in
    canonical form (the start, R3, unless a ``FEN`` tag gives another, R5);
    ``result`` is the game's result as written; ``rules`` the rule set its
    moves were checked with.  ``number`` and ``line`` say where the game was
    read from (1-based; 0 when it was not read) and take no part in equality.

    >>> game = PdnGame(moves=[Move.from_notation("11-15"), Move.from_notation("22-18")])
    >>> game.board().fen()
    'B:W18,21,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,12,15'
    >>> len(game.boards()), game.notations(), game.start_board().ply
    (3, ['11-15', '22-18'], 0)
    >>> game.result = "1-0"
    >>> game.normalized_result, game.winner
    ('2-0', <Color.BLACK: 0>)
    """

    tags: dict[str, str] = field(default_factory=dict)
    start_fen: str = STARTING_FEN
    moves: list[Move] = field(default_factory=list)
    comments: dict[int, str] = field(default_factory=dict)
    nags: dict[int, list[int]] = field(default_factory=dict)
    strengths: dict[int, str] = field(default_factory=dict)
    variations: dict[int, list[PdnVariation]] = field(default_factory=dict)
    result: str = "*"
    rules: RuleSet = field(default_factory=RuleSet.apca)
    number: int = field(default=0, compare=False)
    line: int = field(default=0, compare=False)

    @property
    def board_start_fen(self) -> str:
        """The same as :attr:`start_fen`."""
        return self.start_fen

    def start_board(self) -> Board:
        """A new board set up at :attr:`start_fen` under :attr:`rules`."""
        return Board(self.start_fen, self.rules)

    def board(self) -> Board:
        """The board after the last move, with the game's moves on its move stack.

        Raises a :class:`~poolcheckers.MoveError` if :attr:`moves` are not legal.
        """
        board = self.start_board()
        for move in self.moves:
            board.push(move)
        return board

    def boards(self) -> list[Board]:
        """The start position and the position after every ply (``len(moves) + 1``
        independent boards)."""
        board = self.start_board()
        out = [board.copy()]
        for move in self.moves:
            board.push(move)
            out.append(board.copy())
        return out

    def notations(self) -> list[str]:
        """Each move in R4 notation, as written in its own position."""
        board = self.start_board()
        out: list[str] = []
        for move in self.moves:
            out.append(board.notation(move))
            board.push(move)
        return out

    @property
    def normalized_result(self) -> str:
        """:attr:`result` as ``2-0``, ``0-2``, ``1-1``, ``0-0`` or ``*``."""
        return normalize_result(self.result)

    @property
    def winner(self) -> Color | None:
        """The winner by :attr:`result`; ``None`` for a draw, ``0-0`` or ``*``."""
        result = self.normalized_result
        if result == "2-0":
            return Color.BLACK
        if result == "0-2":
            return Color.WHITE
        return None

    def to_pdn(self) -> str:
        """The game as PDN text (:func:`write_game`)."""
        return write_game(self)

    def tree(self) -> TreeLine:
        """The game's move tree as plain data (:func:`game_tree`)."""
        return game_tree(self)

    @property
    def annotated(self) -> bool:
        """Whether the game has a comment, NAG, strength mark or variation."""
        return bool(self.comments or self.nags or self.strengths or self.variations)


def game_from_board(
    board: Board, tags: dict[str, str] | None = None, result: str | None = None
) -> PdnGame:
    """The game played on ``board`` (its set-up position and move stack).

    The result is ``result`` if given, else the ``Result`` tag if it is not
    ``*``, else :meth:`Board.outcome` when the game is over (R16–R21), else
    ``*``.  A result that contradicts the final position is a ``ValueError``.
    The tags start with the roster (``?`` for unknown values) and ``GameType``.

    >>> board = Board()
    >>> for text in ("11-15", "22-18", "15x22"):
    ...     _ = board.push_notation(text)
    >>> game = game_from_board(board, {"Black": "Ann"})
    >>> game.result, game.tags["Black"], game.tags["White"], game.tags["GameType"]
    ('*', 'Ann', '?', '23,B,8,8,N1,0')
    >>> game_from_board(Board("W:W:B1")).result
    '2-0'
    """
    given = dict(tags or {})
    outcome = board.outcome()
    if result is None:
        tagged = given.get("Result", "*")
        if tagged == "*" and outcome is not None:
            tagged = outcome.result()
        result = tagged
    if result not in RESULTS:
        raise ValueError(f"result {result!r} is not a PDN result ({', '.join(RESULTS)})")
    normal = normalize_result(result)
    if outcome is not None and normal in ("2-0", "0-2", "1-1") and normal != outcome.result():
        raise ValueError(
            f"result {result} contradicts the final position: {outcome.reason()} "
            f"gives {outcome.result()}"
        )
    out: dict[str, str] = {}
    for name in ROSTER:
        out[name] = given.pop(name, _ROSTER_UNKNOWN.get(name, "?"))
    out["Result"] = result
    game_type = given.pop("GameType", GAME_TYPE)
    _check_game_type_value(game_type)
    out["GameType"] = game_type
    given.pop("FEN", None)
    given.pop("Rules", None)
    start = Board(board.start_fen, board.rules)
    if start.fen() != STARTING_FEN:
        out["FEN"] = start.fen()
    if board.rules != RuleSet.apca():
        out["Rules"] = board.rules.name
    out.update(given)
    return PdnGame(
        tags=out,
        start_fen=start.fen(),
        moves=list(board.move_stack),
        result=result,
        rules=board.rules,
    )


# --------------------------------------------------------------------- lexer

_TAG_RE: Final = re.compile(
    r'\[[ \t]*([A-Za-z][A-Za-z0-9_]*)[ \t]+"((?:[^"\\\n]|\\[^\n])*)"[ \t]*\]'
)
_TOKEN_RE: Final = re.compile(
    r"""
    (?P<ws>\s+)
    |(?P<escape>%[^\n]*)
    |(?P<result>(?:1/2-1/2|1-0|0-1|2-0|0-2|1-1|0-0|\*)(?![0-9xX:/-]))
    |(?P<move>\d+(?:[-xX:]\d+)+)(?P<strength>[!?]+|\([!?]+\))?
    |(?P<movenum>\d+\.+)
    |(?P<ellipsis>\.\.\.|…)
    |(?P<mark>[!?]+|\([!?]+\))
    |(?P<nag>\$\d+)
    |(?P<lparen>\()
    |(?P<rparen>\))
    |(?P<bad>[^\s{}\[\]();%]+|.)
    """,
    re.VERBOSE | re.DOTALL,
)


@dataclass(frozen=True, slots=True)
class _Token:
    kind: str  # tag comment result move movenum ellipsis mark nag lparen rparen bad badtag
    text: str  # the source text
    offset: int
    value: str = ""  # a comment's text, a tag's value, a move's notation
    name: str = ""  # a tag's name
    strength: str = ""  # a move's strength mark
    value_offset: int = 0  # where a tag's value starts


def _unescape(value: str) -> str:
    return re.sub(r"[\x00-\x1f\x7f]+", " ", re.sub(r"\\(.)", r"\1", value))


def _escape(value: str) -> str:
    value = re.sub(r"[\x00-\x1f\x7f]+", " ", value)
    return value.replace("\\", "\\\\").replace('"', '\\"')


def _collapse(text: str) -> str:
    return " ".join(text.split())


def _lex(text: str) -> Iterator[_Token]:
    """Tokens of ``text``; never raises: what is not PDN becomes a ``bad`` token."""
    pos = 0
    n = len(text)
    while pos < n:
        char = text[pos]
        if char == "{":
            end = text.find("}", pos + 1)
            if end < 0:
                eol = text.find("\n", pos)
                stop = n if eol < 0 else eol
                yield _Token("bad", text[pos:stop], pos, "a comment '{' that is never closed")
                pos = stop
                continue
            yield _Token("comment", text[pos : end + 1], pos, _collapse(text[pos + 1 : end]))
            pos = end + 1
            continue
        if char == ";":
            eol = text.find("\n", pos)
            stop = n if eol < 0 else eol
            yield _Token("comment", text[pos:stop], pos, _collapse(text[pos + 1 : stop]))
            pos = stop
            continue
        if char == "[":
            match = _TAG_RE.match(text, pos)
            if match is None:
                eol = text.find("\n", pos)
                stop = n if eol < 0 else eol
                close = text.find("]", pos, stop)
                stop = close + 1 if close >= 0 else stop
                yield _Token(
                    "badtag",
                    text[pos:stop],
                    pos,
                    'a malformed tag pair: expected [Name "value"] on one line, '
                    'with \\" for a quote in the value',
                )
                pos = stop
                continue
            yield _Token(
                "tag",
                match.group(0),
                pos,
                _unescape(match.group(2)),
                match.group(1),
                value_offset=match.start(2),
            )
            pos = match.end()
            continue
        match = _TOKEN_RE.match(text, pos)
        assert match is not None  # the last alternative matches any character
        kind = match.lastgroup
        if kind == "strength":  # lastgroup is the last group that matched
            kind = "move"
        pos = match.end()
        if kind in ("ws", "escape"):
            continue
        assert kind is not None
        if kind == "move":
            yield _Token(
                "move",
                match.group(0),
                match.start(),
                match.group("move"),
                strength=match.group("strength") or "",
            )
        else:
            yield _Token(kind, match.group(0), match.start())


def _segment(tokens: Iterable[_Token]) -> Iterator[list[_Token]]:
    """Split the tokens into games: a game ends with a result outside any
    variation, or where a tag pair (even a malformed one) follows movetext."""
    chunk: list[_Token] = []
    in_movetext = False
    depth = 0
    for token in tokens:
        if token.kind in ("tag", "badtag") and in_movetext:
            yield chunk
            chunk, in_movetext, depth = [], False, 0
        chunk.append(token)
        if token.kind not in ("tag", "badtag", "comment"):
            in_movetext = True
        if token.kind == "lparen":
            depth += 1
        elif token.kind == "rparen":
            depth = max(0, depth - 1)
        elif token.kind == "result" and depth == 0:
            yield chunk
            chunk, in_movetext, depth = [], False, 0
    if any(t.kind != "comment" for t in chunk):
        yield chunk


# --------------------------------------------------------------------- parser


class _Source:
    """Maps offsets of the text to 1-based lines and columns."""

    def __init__(self, text: str) -> None:
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def line_column(self, offset: int) -> tuple[int, int]:
        index = bisect.bisect_right(self.starts, offset) - 1
        return index + 1, offset - self.starts[index] + 1


class _GameParser:
    def __init__(self, tokens: list[_Token], number: int, source: _Source, rules: RuleSet) -> None:
        self.tokens = tokens
        self.number = number
        self.source = source
        self.default_rules = rules
        self.pos = 0
        self.start_offset = 0  # 1 when White moves first from the set-up position

    def error(self, token: _Token, reason: str, offset: int | None = None) -> PdnError:
        line, column = self.source.line_column(token.offset if offset is None else offset)
        return PdnError(reason, self.number, line, column, token.text)

    def parse(self) -> PdnGame:
        tags: dict[str, str] = {}
        tag_tokens: dict[str, _Token] = {}
        head_comments: list[str] = []
        tokens = self.tokens
        while self.pos < len(tokens) and tokens[self.pos].kind in ("tag", "badtag", "comment"):
            token = tokens[self.pos]
            if token.kind == "badtag":
                raise self.error(token, token.value)
            if token.kind == "comment":
                head_comments.append(token.value)
            else:
                if token.name in tags:
                    raise self.error(token, f"the tag {token.name} is given twice")
                tags[token.name] = token.value
                tag_tokens[token.name] = token
            self.pos += 1
        line = self.source.line_column(tokens[0].offset)[0] if tokens else 0
        rules = self.rules_from_tags(tags, tag_tokens)
        board = self.start_from_tags(tags, tag_tokens, rules)
        start_fen = board.fen()
        self.start_offset = 0 if board.turn is Color.BLACK else 1
        main = PdnVariation()
        if head_comments:
            main.comments[0] = " ".join(head_comments)
        result_token = self.parse_line(board, main, 0, None)
        result = self.settle_result(board, tags, tag_tokens, result_token)
        return PdnGame(
            tags=tags,
            start_fen=start_fen,
            moves=main.moves,
            comments=main.comments,
            nags=main.nags,
            strengths=main.strengths,
            variations=main.variations,
            result=result,
            rules=rules,
            number=self.number,
            line=line,
        )

    # ----------------------------------------------------------- tags
    def rules_from_tags(self, tags: dict[str, str], where: dict[str, _Token]) -> RuleSet:
        if "GameType" in tags:
            reason = _game_type_problem(tags["GameType"])
            if reason is not None:
                raise self.error(where["GameType"], reason)
        if "Rules" not in tags:
            return self.default_rules
        try:
            return _rules_from_name(tags["Rules"])
        except PoolCheckersError as exc:
            raise self.error(where["Rules"], f"the Rules tag: {exc} (docs/RULES.md §9)") from None

    def start_from_tags(
        self, tags: dict[str, str], where: dict[str, _Token], rules: RuleSet
    ) -> Board:
        if "FEN" not in tags:
            return Board(STARTING_FEN, rules)
        token = where["FEN"]
        try:
            return Board.from_fen(tags["FEN"], rules)
        except PoolCheckersError as exc:
            offset = token.value_offset
            position = getattr(exc, "position", 0)
            if "\\" not in token.text and isinstance(position, int):
                offset += position
            raise self.error(token, f"the FEN tag: {exc}", offset) from None

    # ----------------------------------------------------------- movetext
    def describe(self, board: Board) -> str:
        number = (board.ply + self.start_offset) // 2 + 1
        return f"{board.turn.name_lower}'s move {number}"

    def parse_line(
        self, board: Board, line: PdnVariation, depth: int, opener: _Token | None
    ) -> _Token | None:
        """Read moves into ``line`` until its ``)`` (``depth > 0``) or the
        result; returns the result token of the main line, if any."""
        tokens = self.tokens
        while self.pos < len(tokens):
            token = tokens[self.pos]
            self.pos += 1
            kind = token.kind
            ply = len(line.moves)
            if kind in ("movenum", "ellipsis"):
                continue
            if kind == "move":
                self.play(board, line, token)
            elif kind == "mark":
                if not ply:
                    raise self.error(token, f"the move strength mark {token.text} follows no move")
                line.strengths[ply] = token.text
            elif kind == "nag":
                digits = token.text[1:]
                if len(digits) > 3 or int(digits) > _MAX_NAG:
                    raise self.error(token, f"a NAG runs from $0 to ${_MAX_NAG}")
                line.nags.setdefault(ply, []).append(int(digits))
            elif kind == "comment":
                previous = line.comments.get(ply)
                # comments in a row are one; an empty one adds no space
                line.comments[ply] = (
                    token.value if previous is None else _collapse(f"{previous} {token.value}")
                )
            elif kind == "lparen":
                self.variation(board, line, token, depth)
            elif kind == "rparen":
                if depth == 0:
                    raise self.error(token, "a ')' closes no variation")
                return None
            elif kind == "result":
                if depth > 0:
                    raise self.error(
                        token,
                        f"the result {token.text} stands inside a variation: a ')' is missing",
                    )
                return token
            elif kind == "tag":
                raise self.error(token, "a tag pair after the movetext")
            else:  # bad, badtag: the lexer's reason, if it has one
                raise self.error(token, token.value or _bad_token_reason(token.text))
        if opener is not None:
            raise self.error(opener, "a variation '(' that is never closed")
        return None

    def play(self, board: Board, line: PdnVariation, token: _Token) -> None:
        outcome = board.outcome()
        if outcome is not None:
            raise self.error(
                token,
                f"cannot play {token.value} as {self.describe(board)}: "
                f"the game is over: {outcome.reason()}",
            )
        try:
            move = board.parse_move(token.value.replace(":", "x"))
        except PoolCheckersError as exc:
            raise self.error(
                token, f"cannot play {token.value} as {self.describe(board)}: {exc}"
            ) from None
        board.push(move)
        line.moves.append(move)
        if token.strength:
            line.strengths[len(line.moves)] = token.strength

    def variation(self, board: Board, line: PdnVariation, opener: _Token, depth: int) -> None:
        ply = len(line.moves)
        if not ply:
            raise self.error(opener, "a variation must follow the move it replaces")
        if depth >= MAX_VARIATION_DEPTH:
            raise self.error(opener, f"variations nest deeper than {MAX_VARIATION_DEPTH}")
        replaced = board.pop()
        sub = PdnVariation()
        self.parse_line(board, sub, depth + 1, opener)
        if not sub.moves and not sub.comments and not sub.nags:
            raise self.error(opener, "an empty variation '()'")
        for _ in sub.moves:
            board.pop()
        board.push(replaced)
        line.variations.setdefault(ply, []).append(sub)

    # ----------------------------------------------------------- result
    def settle_result(
        self,
        board: Board,
        tags: dict[str, str],
        where: dict[str, _Token],
        marker: _Token | None,
    ) -> str:
        tagged = tags.get("Result")
        if tagged is not None and tagged not in RESULTS and tagged not in ("", "?"):
            raise self.error(
                where["Result"],
                f"the Result tag {tagged!r} is not a PDN result ({', '.join(RESULTS)})",
            )
        if tagged in ("", "?"):
            tagged = None
        if marker is not None:
            result = marker.text
            if tagged is not None and normalize_result(tagged) != normalize_result(result):
                raise self.error(
                    marker, f"the result {result} differs from the Result tag {tagged!r}"
                )
            at = marker
        else:
            result = tagged if tagged is not None else "*"
            at = where.get("Result", self.tokens[-1])  # a game has at least one token
        outcome = board.outcome()
        normal = normalize_result(result)
        if outcome is not None and normal in ("2-0", "0-2", "1-1") and normal != outcome.result():
            reason = (
                f"the result {result} contradicts the final position: {outcome.reason()} "
                f"gives {outcome.result()}"
            )
            raise self.error(at, reason)
        return result


def _bad_token_reason(text: str) -> str:
    if re.fullmatch(r"[a-hA-H][1-8](?:[-xX:]?[a-hA-H][1-8])+", text):
        return (
            f"{text!r} is in alphanumeric notation; GameType 23 numbers the squares "
            "1-32 (N1, R2): e.g. 11-15 or 15x22 (R4)"
        )
    if re.fullmatch(r"\d+(?:[\u2010-\u2015\u2212\u00d7]\d+)+", text):
        return (
            f"{text!r} joins its squares with a dash or times sign that is not ASCII "
            "(as word processors write them): a move is written 11-15 or 15x22 (R4)"
        )
    if re.fullmatch(r"[-x]+", text):
        return f"{text!r} stands for an unknown move; every move must be given to replay a game"
    return (
        f"unexpected {text[:40]!r}: expected a move such as 11-15, 15x22 or 1x10x19 (R4), "
        "a move number, a comment, a variation, a NAG or a result"
    )


def _game_type_problem(value: str) -> str | None:
    """Why ``value`` is not a GameType tag of American pool checkers, or ``None``."""
    text = value.strip()
    match = _GAME_TYPE_RE.fullmatch(text)
    if match is None:
        return (
            f"the GameType tag {value!r} is malformed: expected {GAME_TYPE!r} "
            "(type, start colour, board width, height, notation, invert flag)"
        )
    number = match.group(1).lstrip("0") or "0"
    if number != "23":
        name = _GAME_TYPE_NAMES.get(number, "another game")
        return (
            f"the GameType tag {value!r} is {name} (type {number}); this reader reads "
            f"American pool checkers, GameType {GAME_TYPE} (R4)"
        )
    if match.group(2) is not None:
        colour, width, height, notation, invert = match.group(2, 3, 4, 5, 6)
        if (colour, width, height, notation, invert or "0") != ("B", "8", "8", "N1", "0"):
            return (
                f"the GameType tag {value!r} is a pool checkers variant this reader does not "
                f"read: American pool checkers is {GAME_TYPE} (Black starts, R3; squares "
                "numbered 1-32, R2)"
            )
    return None


def _check_game_type_value(value: str) -> None:
    problem = _game_type_problem(value)
    if problem is not None:
        raise ValueError(problem)


def _rules_from_name(name: str) -> RuleSet:
    """The rule set named ``name`` (as :attr:`RuleSet.name` writes it)."""
    parts = [p.strip() for p in name.strip().split("+")]
    if parts[0] != "apca":
        raise RuleSetError(f"{name!r} does not start with 'apca'")
    return RuleSet.from_options(parts[1:])


# --------------------------------------------------------------------- reading

ErrorMode = Literal["raise", "skip"]


def _check_reading(text: object, rules: object, mode: object, on_error: object) -> None:
    """The arguments of :func:`iter_games`, checked before any game is read."""
    if mode not in ("raise", "skip"):
        raise PdnInputError(f"errors must be 'raise' or 'skip', not {mode!r}")
    if not isinstance(text, str):
        raise PdnInputError(f"PDN text must be str, not {type(text).__name__}")
    if rules is not None and not isinstance(rules, RuleSet):
        raise PdnInputError(f"rules must be a RuleSet or None, not {type(rules).__name__}")
    if on_error is not None and not callable(on_error):
        raise PdnInputError(f"on_error must be callable, not {type(on_error).__name__}")


def iter_games(
    text: str,
    rules: RuleSet | None = None,
    *,
    errors: ErrorMode | None = None,
    on_error: Callable[[PdnError], object] | None = None,
) -> Iterator[PdnGame]:
    """The games of a PDN text, one by one.

    ``rules`` is the rule set of games without a ``Rules`` tag (default APCA).
    With ``errors="raise"`` (the default without ``on_error``) the first bad
    game raises :class:`PdnError`; with ``errors="skip"`` (the default when
    ``on_error`` is given) a bad game is passed to ``on_error`` and reading goes
    on with the next game.  A :class:`PdnError` names the game (1-based), the
    line and column of the offending token, the token and the reason.

    >>> text = "1. 11-15 *  1. 21-17 *  1. 9-13 22-18 *"
    >>> errors = []
    >>> [g.number for g in iter_games(text, on_error=errors.append)]
    [1, 3]
    >>> errors[0].game, errors[0].column, errors[0].token
    (2, 16, '21-17')

    Input that is not PDN text raises :class:`PdnInputError` (a :class:`PdnError`)
    at once, before the first game:

    >>> iter_games(b"1. 11-15 *")
    Traceback (most recent call last):
    ...
    poolcheckers.errors.PdnInputError: PDN text must be str, not bytes
    """
    mode = errors if errors is not None else ("skip" if on_error is not None else "raise")
    _check_reading(text, rules, mode, on_error)
    return _iter_games(text, rules, mode, on_error)


def _iter_games(
    text: str,
    rules: RuleSet | None,
    mode: str,
    on_error: Callable[[PdnError], object] | None,
) -> Iterator[PdnGame]:
    if text.startswith("\ufeff"):
        text = text[1:]  # a byte-order mark is no part of the text
    if "\r" in text:  # CR LF and lone CR line ends count as one line end
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    source = _Source(text)
    default = rules if rules is not None else RuleSet.apca()
    for number, chunk in enumerate(_segment(_lex(text)), start=1):
        try:
            game = _GameParser(chunk, number, source, default).parse()
        except PdnError as exc:
            if mode == "raise":
                raise
            if on_error is not None:
                on_error(exc)
            continue
        yield game


def read_games(
    text: str,
    rules: RuleSet | None = None,
    *,
    errors: ErrorMode | None = None,
    on_error: Callable[[PdnError], object] | None = None,
) -> list[PdnGame]:
    """Every game of a PDN text (see :func:`iter_games`); by default the first
    error raises :class:`PdnError`.

    >>> [len(g.moves) for g in read_games("1. 11-15 22-18 2-0 1. 9-13 *")]
    [2, 1]
    """
    return list(iter_games(text, rules, errors=errors, on_error=on_error))


def read_games_collect(
    text: str, rules: RuleSet | None = None
) -> tuple[list[PdnGame], list[PdnError]]:
    """The good games and the errors of the bad ones, reading on past each error.

    >>> games, errors = read_games_collect("1. 11-15 * [Event 'x'] 1. 9-13 *")
    >>> len(games), errors[0].game, errors[0].token
    (1, 2, "[Event 'x']")
    """
    errors: list[PdnError] = []
    games = read_games(text, rules, errors="skip", on_error=errors.append)
    return games, errors


def read_file(
    path: str | Path,
    rules: RuleSet | None = None,
    *,
    errors: ErrorMode | None = None,
    on_error: Callable[[PdnError], object] | None = None,
) -> list[PdnGame]:
    """The games of a PDN file: UTF-8 (with or without a byte-order mark), else
    read as Latin-1 (as many older PDN files are).  See :func:`iter_games`.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = Path(folder) / "games.pdn"
    ...     _ = path.write_text('[Event "x"]\\n1. 11-15 22-18 *\\n', encoding="utf-8")
    ...     [len(g.moves) for g in read_file(path)]
    [2]

    A ``path`` that is neither a ``str`` nor a path raises :class:`PdnInputError`;
    a file that cannot be read, ``OSError``.
    """
    if not isinstance(path, (str, PathLike)):
        raise PdnInputError(f"a PDN file is named by a str or a path, not {type(path).__name__}")
    mode = errors if errors is not None else ("skip" if on_error is not None else "raise")
    _check_reading("", rules, mode, on_error)
    data = Path(path).read_bytes()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    return read_games(text, rules, errors=errors, on_error=on_error)


# --------------------------------------------------------------------- the tree as data


class TreeMove(TypedDict):
    """A move of a :class:`TreeLine`: its notation as R4 writes it in its position, the
    comment after it, its NAGs and strength mark, and the lines that replace it."""

    move: str
    comment: NotRequired[str]
    nags: NotRequired[list[int]]
    strength: NotRequired[str]
    variations: NotRequired[list[TreeLine]]


class TreeLine(TypedDict):
    """A line of the move tree as plain data (JSON as it is): the comment and NAGs
    before its first move, then its moves."""

    moves: list[TreeMove]
    comment: NotRequired[str]
    nags: NotRequired[list[int]]


_MOVE_FIELDS: Final = frozenset({"move", "comment", "nags", "strength", "variations"})

#: a strength mark as the reader takes it (``!``, ``??``, ``(?)``…)
_STRENGTH_RE: Final = re.compile(r"[!?]{1,3}|\([!?]{1,3}\)")


def game_tree(game: PdnGame) -> TreeLine:
    """The game's main line with its comments, NAGs, strength marks and variations
    (nested) as plain data, every move written as R4 asks in its position; the
    inverse of :func:`tree_to_game`.

    >>> [game] = read_games("{start} 1. 11-15 $1 (1. 9-13 {also}) 22-18! *")
    >>> game_tree(game)  # doctest: +NORMALIZE_WHITESPACE
    {'moves': [{'move': '11-15', 'nags': [1], 'variations': [{'moves': [{'move': '9-13',
    'comment': 'also'}]}]}, {'move': '22-18', 'strength': '!'}], 'comment': 'start'}
    """
    return _line_data(game.start_board(), game, 0)


def _line_data(board: Board, line: PdnGame | PdnVariation, depth: int) -> TreeLine:
    if depth > MAX_VARIATION_DEPTH:
        raise ValueError(f"variations nest deeper than {MAX_VARIATION_DEPTH}")
    out: TreeLine = {"moves": []}
    if 0 in line.comments:
        out["comment"] = line.comments[0]
    if line.nags.get(0):
        out["nags"] = list(line.nags[0])
    for ply, move in enumerate(line.moves, start=1):
        item: TreeMove = {"move": board.notation(move)}
        if ply in line.comments:
            item["comment"] = line.comments[ply]
        if line.nags.get(ply):
            item["nags"] = list(line.nags[ply])
        if ply in line.strengths:
            item["strength"] = line.strengths[ply]
        if line.variations.get(ply):
            item["variations"] = [_line_data(board, v, depth + 1) for v in line.variations[ply]]
        board.push(move)
        out["moves"].append(item)
    for _ in line.moves:
        board.pop()
    return out


def tree_to_game(
    tree: object,
    start_fen: str = STARTING_FEN,
    rules: RuleSet | None = None,
    tags: dict[str, str] | None = None,
    result: str | None = None,
) -> PdnGame:
    """The game whose move tree is ``tree`` (as :func:`game_tree` gives it, read from
    JSON): every move of every line is checked by :meth:`Board.parse_move` in its
    position (R4-R15) and none is played after the end of the game (R16-R21);
    comments are kept with their whitespace collapsed (as PDN reads them back), an
    empty one is no comment.  The tags and result as :func:`game_from_board` takes
    them.  Raises :class:`PdnTreeError` naming where (``moves[2].variations[0]``),
    the token and the rule.

    >>> tree = {"moves": [{"move": "11-15", "comment": "the  Old\\n14th"},
    ...     {"move": "22-18", "variations": [{"moves": [{"move": "23-19"}]}]}]}
    >>> game = tree_to_game(tree, tags={"Black": "Ann"})
    >>> game.comments, len(game.variations[2]), game_tree(game) == tree
    ({1: 'the Old 14th'}, 1, False)
    >>> tree_to_game({"moves": [{"move": "11-18"}]})
    Traceback (most recent call last):
    ...
    poolcheckers.errors.PdnTreeError: moves[0]: cannot play 11-18 as black's move 1: ...
    """
    board = Board(start_fen, rules)
    main = _line_from_data(board, tree, "", 0)
    start = board.copy()
    for move in main.moves:
        start.push(move)
    game = game_from_board(start, tags, result)
    game.comments, game.nags = main.comments, main.nags
    game.strengths, game.variations = main.strengths, main.variations
    return game


def _line_from_data(board: Board, data: object, path: str, depth: int) -> PdnVariation:
    if depth > MAX_VARIATION_DEPTH:
        raise PdnTreeError(f"variations nest deeper than {MAX_VARIATION_DEPTH}", path)
    if not isinstance(data, dict):
        raise PdnTreeError("a line must be an object with its moves", path)
    unknown = sorted(set(map(str, data)) - {"moves", "comment", "nags"})
    if unknown:
        raise PdnTreeError(f"a line has no field {unknown[0]!r}", path, unknown[0])
    moves = data.get("moves", [])
    if not isinstance(moves, list):
        raise PdnTreeError("a line's moves must be a list", path)
    line = PdnVariation()
    _annotate(line, 0, data, path)
    number_offset = board.ply % 2 if depth == 0 else 0
    played = 0
    try:
        for index, item in enumerate(moves):
            where = f"{path}.moves[{index}]" if path else f"moves[{index}]"
            if not isinstance(item, dict) or not isinstance(item.get("move"), str):
                raise PdnTreeError("a move must be an object with its notation as 'move'", where)
            unknown = sorted(
                set(map(str, item)) - {"move", "comment", "nags", "strength", "variations"}
            )
            if unknown:
                raise PdnTreeError(f"a move has no field {unknown[0]!r}", where, unknown[0])
            text = cast(str, item["move"])
            ply = index + 1
            variations = item.get("variations", [])
            if not isinstance(variations, list):
                raise PdnTreeError("variations must be a list of lines", where)
            for v, sub in enumerate(variations):
                inner = _line_from_data(board, sub, f"{where}.variations[{v}]", depth + 1)
                if not inner.moves and not inner.comments and not inner.nags:
                    raise PdnTreeError("an empty variation", f"{where}.variations[{v}]")
                line.variations.setdefault(ply, []).append(inner)
            move = _tree_move(board, text, where, number_offset)
            board.push(move)
            played += 1
            line.moves.append(move)
            _annotate(line, ply, item, where)
    finally:
        for _ in range(played):
            board.pop()
    return line


def _tree_move(board: Board, text: str, where: str, offset: int) -> Move:
    number = (board.ply + offset) // 2 + 1
    who = f"{board.turn.name_lower}'s move {number}"
    outcome = board.outcome()
    if outcome is not None:
        raise PdnTreeError(
            f"cannot play {text} as {who}: the game is over: {outcome.reason()}", where, text
        )
    try:
        return board.parse_move(text)
    except PoolCheckersError as exc:
        raise PdnTreeError(f"cannot play {text} as {who}: {exc}", where, text) from None


def _annotate(line: PdnVariation, ply: int, data: dict[object, object], where: str) -> None:
    comment = data.get("comment")
    if comment is not None:
        if not isinstance(comment, str):
            raise PdnTreeError("a comment must be text", where)
        collapsed = _collapse(re.sub(r"[\x00-\x1f\x7f]", " ", comment))
        if collapsed:
            line.comments[ply] = collapsed
    nags = data.get("nags")
    if nags is not None:
        if not isinstance(nags, list) or not all(
            isinstance(n, int) and not isinstance(n, bool) and 0 <= n <= _MAX_NAG for n in nags
        ):
            raise PdnTreeError(f"NAGs must be a list of numbers from 0 to {_MAX_NAG}", where)
        if nags:
            line.nags[ply] = list(nags)
    strength = data.get("strength")
    if strength is not None:
        if not isinstance(strength, str) or not _STRENGTH_RE.fullmatch(strength):
            raise PdnTreeError(
                f"{str(strength)[:10]!r} is not a strength mark (!, ?, !!, ??, !?, ?!)",
                where,
                str(strength)[:10],
            )
        if ply == 0:
            raise PdnTreeError("a strength mark follows a move", where)
        line.strengths[ply] = strength


# --------------------------------------------------------------------- writing


@dataclass(frozen=True, slots=True)
class _Unit:
    """A piece of movetext that is never broken across lines."""

    text: str
    line_ends_after: bool = False  # a ';' comment runs to the end of its line


def _comment_units(text: str) -> list[_Unit]:
    words = text.split()
    if "}" in text:
        return [_Unit("; " + " ".join(words), line_ends_after=True)]
    if not words:
        return [_Unit("{}")]
    if len(words) == 1:
        return [_Unit("{" + words[0] + "}")]
    return [_Unit("{" + words[0]), *(_Unit(w) for w in words[1:-1]), _Unit(words[-1] + "}")]


def _line_units(
    board: Board, line: PdnVariation | PdnGame, start_offset: int, depth: int
) -> list[_Unit]:
    if depth > MAX_VARIATION_DEPTH:
        raise ValueError(f"variations nest deeper than {MAX_VARIATION_DEPTH}")
    units: list[_Unit] = []
    if 0 in line.comments:
        units.extend(_comment_units(line.comments[0]))
    units.extend(_Unit(f"${nag}") for nag in line.nags.get(0, []))
    need_number = True
    for ply, move in enumerate(line.moves, start=1):
        number = (board.ply + start_offset) // 2 + 1
        text = board.notation(move) + line.strengths.get(ply, "")
        if board.turn is Color.BLACK:
            text = f"{number}. {text}"
        elif need_number:
            text = f"{number}... {text}"
        need_number = False
        board.push(move)
        units.append(_Unit(text))
        for nag in line.nags.get(ply, []):
            if not 0 <= nag <= _MAX_NAG:
                raise ValueError(f"NAG ${nag} is outside $0..${_MAX_NAG}")
            units.append(_Unit(f"${nag}"))
        if ply in line.comments:
            units.extend(_comment_units(line.comments[ply]))
            need_number = True
        variations = line.variations.get(ply, [])
        if variations:
            board.pop()
            for variation in variations:
                sub = _line_units(board, variation, start_offset, depth + 1)
                for _ in variation.moves:
                    board.pop()
                if not sub:
                    raise ValueError(f"an empty variation after ply {ply}")
                sub[0] = _Unit("(" + sub[0].text, sub[0].line_ends_after)
                last = sub[-1]
                if last.line_ends_after:
                    sub.append(_Unit(")"))
                else:
                    sub[-1] = _Unit(last.text + ")")
                units.extend(sub)
            board.push(move)
            need_number = True
    return units


def _wrap(units: list[_Unit], width: int = LINE_WIDTH) -> str:
    lines: list[str] = []
    current = ""
    for unit in units:
        if current and len(current) + 1 + len(unit.text) > width:
            lines.append(current)
            current = ""
        current = f"{current} {unit.text}" if current else unit.text
        if unit.line_ends_after:
            lines.append(current)
            current = ""
    if current:
        lines.append(current)
    return "\n".join(lines)


def _header(game: PdnGame, start: Board) -> list[tuple[str, str]]:
    tags = game.tags
    out: list[tuple[str, str]] = []
    for name in ROSTER:
        value = game.result if name == "Result" else tags.get(name, _ROSTER_UNKNOWN.get(name, "?"))
        out.append((name, value))
    game_type = tags.get("GameType", GAME_TYPE)
    _check_game_type_value(game_type)
    out.append(("GameType", game_type))
    fen = _kept_tag(tags, "FEN", lambda value: Board(value, game.rules).fen() == start.fen())
    if fen is not None:
        out.append(("FEN", fen))
    elif start.fen() != STARTING_FEN:
        out.append(("FEN", start.fen()))
    rules = _kept_tag(tags, "Rules", lambda value: _rules_from_name(value) == game.rules)
    if rules is not None:
        out.append(("Rules", rules))
    elif game.rules != RuleSet.apca():
        out.append(("Rules", game.rules.name))
    written = {name for name, _ in out} | {"FEN", "Rules"}
    out.extend((name, value) for name, value in tags.items() if name not in written)
    for name, _ in out:
        if not _TAG_NAME_RE.fullmatch(name):
            raise ValueError(f"tag name {name!r} is not a PDN identifier (letters, digits, _)")
    return out


def _kept_tag(tags: dict[str, str], name: str, agrees: Callable[[str], bool]) -> str | None:
    """The tag's value as read, if it still says what the game says."""
    value = tags.get(name)
    if value is None:
        return None
    try:
        return value if agrees(value) else None
    except PoolCheckersError:
        return None


def write_game(game: PdnGame) -> str:
    """The game as PDN: the roster (Event, Site, Date, Round, Black, White,
    Result), GameType, FEN when not the start position, Rules when not APCA,
    the other tags, a blank line, then the movetext wrapped at 80 columns and
    ending in the result.

    Moves are replayed from :attr:`PdnGame.start_fen` (an illegal move raises a
    :class:`~poolcheckers.MoveError`) and written as R4 asks in their position.
    A comment containing ``}`` is written as a ``;`` comment.

    >>> board = Board("W:WK30:B19")
    >>> _ = board.push_notation("30x16")
    >>> print(write_game(game_from_board(board)))
    [Event "?"]
    [Site "?"]
    [Date "????.??.??"]
    [Round "?"]
    [Black "?"]
    [White "?"]
    [Result "0-2"]
    [GameType "23,B,8,8,N1,0"]
    [FEN "W:WK30:B19"]
    <BLANKLINE>
    1... 30x16 0-2
    <BLANKLINE>
    """
    if game.result not in RESULTS:
        raise ValueError(f"result {game.result!r} is not a PDN result ({', '.join(RESULTS)})")
    start = game.start_board()
    header = "\n".join(f'[{name} "{_escape(value)}"]' for name, value in _header(game, start))
    offset = 0 if start.turn is Color.BLACK else 1
    units = _line_units(start, game, offset, 0)
    units.append(_Unit(game.result))
    return f"{header}\n\n{_wrap(units)}\n"


def write_games(games: Iterable[PdnGame]) -> str:
    """Several games, separated by a blank line.

    >>> text = write_games([PdnGame(result="1-1"), PdnGame(start_fen="W:W22:B9")])
    >>> [g.result for g in read_games(text)], text.count("[Event ")
    (['1-1', '*'], 2)
    """
    return "\n".join(write_game(game) for game in games)


def write_file(path: str | Path, games: Iterable[PdnGame]) -> None:
    """Write ``games`` to ``path`` as UTF-8 PDN (:func:`write_games`).

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = Path(folder) / "out.pdn"
    ...     write_file(path, [PdnGame(moves=[Move.from_notation("9-13")])])
    ...     read_file(path)[0].moves
    [Move.from_notation('9-13')]
    """
    Path(path).write_text(write_games(games), encoding="utf-8")
