"""PDN export and import of stored games (uses :mod:`poolcheckers.pdn`)."""

from __future__ import annotations

import datetime
import hashlib
import json
import re
from collections.abc import Callable
from typing import Any

from poolcheckers import Board, PdnError, PoolCheckersError, RuleSet
from poolcheckers.errors import PdnTreeError
from poolcheckers.pdn import (
    PdnGame,
    _lex,
    _segment,
    game_from_board,
    iter_games,
    normalize_result,
    read_games_collect,
    tree_to_game,
    write_game,
)
from poolcheckers.server.api.schemas import (
    ImportDuplicate,
    ImportError_,
    ImportResult,
    PdnGameInfo,
    PdnReadError,
    PdnReadResult,
)
from poolcheckers.server.errors import ApiError
from poolcheckers.server.games.model import ABORTED, NO_SHOW, GameRec
from poolcheckers.server.games.service import GameService
from poolcheckers.server.games.view import full_moves
from poolcheckers.server.i18n import M_


def game_tags(g: GameRec) -> dict[str, str]:
    """The PDN tags of a stored game (imported games keep their own; a site game's
    stored tags, the players' names and ratings, go over the defaults)."""
    if g.mode == "imported" and g.tags:
        tags = dict(g.tags)
    else:
        date = datetime.datetime.fromtimestamp(g.created_ms / 1000, tz=datetime.UTC)
        # a player without an account is "Anonymous", as on lichess; on one screen
        # the two players are told apart by their colours
        unnamed = ("Black", "White") if g.mode == "local" else ("Anonymous", "Anonymous")
        tags = {
            "Event": f"poolcheckers {g.mode} game",
            "Site": "poolcheckers",
            "Date": date.strftime("%Y.%m.%d"),
            "Black": unnamed[0],
            "White": unnamed[1],
        }
        if g.engine_color is not None:
            tags[g.engine_color.capitalize()] = f"poolcheckers engine level {g.level}"
        if g.termination == NO_SHOW and g.winner is not None:
            # a game lost by forfeit (a side did not make its first move in an event
            # that scores it): the keyword, as PGN's "time forfeit" (docs/TOURNAMENTS.md)
            tags["Termination"] = "forfeit"
        elif g.reason and g.termination in ("agreement", "resignation", "time", ABORTED, NO_SHOW):
            tags["Termination"] = g.reason
        tags.update(g.tags or {})
    tags["Result"] = g.result or "*"
    tags["GameId"] = g.id
    return tags


def export_game(service: GameService, game_id: str) -> str:
    """One stored game as PDN (GameType 23, FEN when not the start, Rules when not APCA),
    with the comments, NAGs and variations it was imported with."""
    loaded = service.loaded(game_id)
    tags = game_tags(loaded.game)
    try:
        game = game_from_board(loaded.board, tags, result=tags["Result"])
    except ValueError:  # a stored result the final position contradicts: the board decides
        tags["Result"] = "*"
        game = game_from_board(loaded.board, tags)
    annotated = annotated_game(game, loaded.game.annotations)
    return write_game(annotated)


def annotated_game(game: PdnGame, tree: dict[str, Any] | None) -> PdnGame:
    """``game`` with the comments, NAGs and variations of its stored move ``tree``; the
    game as it is when there is none, or when the tree's main line is not the game's
    moves (the stored moves decide)."""
    if not tree:
        return game
    try:
        full = tree_to_game(tree, game.start_fen, game.rules, game.tags, game.result)
    except (PoolCheckersError, ValueError):
        return game
    return full if full.moves == game.moves else game


def export_all(service: GameService) -> str:
    """Every stored game, oldest first, separated by blank lines."""
    return "\n".join(export_game(service, game_id) for game_id in service.iter_ids())


def game_digest(
    board: Board, tags: dict[str, str], result: str, tree: dict[str, Any] | None = None
) -> str:
    """The SHA-256 of a game read from PDN, normalised: its tags (``GameId`` and
    ``Result`` left out, the result comes normalised), start position (canonical FEN,
    R5), rules (§9), moves (full paths, R4) and its move tree when it has comments or
    variations.  Two texts of the same game, however spaced or ordered in their tags,
    have one digest; an annotated copy of a stored game is another game.

    >>> b = Board(); _ = b.push_notation("11-15")
    >>> game_digest(b, {"Event": "x"}, "*") == game_digest(b, {"Event": "x"}, "*")
    True
    >>> game_digest(b, {"Event": "x"}, "*") == game_digest(b, {"Event": "y"}, "*")
    False
    """
    start = Board(board.start_fen, rules=board.rules)
    content = {
        "tags": sorted((k, v) for k, v in tags.items() if k not in ("GameId", "Result")),
        "result": result,
        "start_fen": start.fen(),
        "rules": board.rules.to_dict(),
        "moves": [m.full_notation() for m in board.move_stack],
    }
    if tree:
        content["tree"] = tree
    text = json.dumps(content, sort_keys=True, ensure_ascii=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("ascii")).hexdigest()


#: tags an imported game may carry, and the longest tag name and value: a game's
#: tags are stored with it and sent with its every state
MAX_TAGS = 64
MAX_TAG_NAME = 64
MAX_TAG_VALUE = 256
#: the longest move tree (comments, NAGs, variations) an imported game keeps, as JSON
#: characters: a book's annotated game is a few thousand; refused above, never cut
MAX_ANNOTATIONS = 200_000


def annotations_of(game: PdnGame) -> tuple[dict[str, Any] | None, str | None]:
    """The move tree an imported ``game`` is stored with (None: nothing to keep), or
    why it is refused (longer than :data:`MAX_ANNOTATIONS`)."""
    if not game.annotated:
        return None, None
    tree = dict(game.tree())
    size = len(json.dumps(tree, ensure_ascii=False, separators=(",", ":")))
    if size > MAX_ANNOTATIONS:
        return None, (
            f"its comments and variations take {size:,} characters; at most "
            f"{MAX_ANNOTATIONS:,} are kept per game: split the game"
        )
    return tree, None


def tags_problem(tags: dict[str, str]) -> str | None:
    """Why an imported game's ``tags`` are refused, or None when they are within the caps.

    >>> tags_problem({"Event": "Club night"}) is None
    True
    >>> tags_problem({"Event": "x" * 300})
    'tag Event has 300 characters; at most 256 are kept'
    """
    if len(tags) > MAX_TAGS:
        return f"{len(tags)} tags; at most {MAX_TAGS} are kept per game"
    for name, value in tags.items():
        if len(name) > MAX_TAG_NAME:
            return (
                f"tag {name[:20]}... has a name of {len(name)} characters; at most {MAX_TAG_NAME}"
            )
        if len(value) > MAX_TAG_VALUE:
            return f"tag {name} has {len(value)} characters; at most {MAX_TAG_VALUE} are kept"
    return None


def import_text(
    service: GameService,
    text: str,
    max_games: int,
    admit: Callable[[int], None] | None = None,
) -> ImportResult:
    """Store every game of a PDN text (at most ``max_games``, else nothing is stored:
    413); a bad game is reported (1-based number, line, column, reason) and the
    others are still imported.  A game already stored (the same digest, see
    :func:`game_digest`), or twice in the text, is not stored again: it is listed in
    ``duplicates`` with the stored game's id.

    ``admit`` is told how many distinct games the text holds before any is stored,
    and may refuse them all by raising (the per-address import limit): counted by
    games, not by requests, so that editing one tag to pass the duplicate check
    still costs every game."""
    problems: list[ImportError_] = []

    def on_error(exc: PdnError) -> None:
        problems.append(
            ImportError_(game=exc.game, line=exc.line, column=exc.column, message=str(exc))
        )

    games: list[tuple[int, Board, dict[str, str], str, str, dict[str, Any] | None]] = []
    for game in iter_games(text, on_error=on_error):
        if len(games) + len(problems) >= max_games:
            raise ApiError(
                413,
                "too_large",
                M_("at most {max_games} games per import: split the file", max_games=max_games),
            )
        tags = {k: v for k, v in game.tags.items() if k != "GameId"}
        tree, too_long = annotations_of(game)
        refused = tags_problem(tags) or too_long
        try:
            if refused is not None:
                raise ValueError(refused)
            board = game.board()
        except ValueError as exc:  # MoveError is a ValueError
            problems.append(
                ImportError_(game=game.number, line=game.line, column=1, message=str(exc))
            )
            continue
        result = normalize_result(game.result)
        digest = game_digest(board, tags, result, tree)
        games.append((game.number, board, tags, result, digest, tree))
    if admit is not None:
        admit(len({digest for *_, digest, _ in games}))
    imported: list[str] = []
    duplicates: list[ImportDuplicate] = []
    for number, board, tags, result, digest, tree in games:
        gid, stored = service.import_game(board, tags, result, digest, tree)
        if stored:
            imported.append(gid)
        else:
            duplicates.append(ImportDuplicate(game=number, id=gid))
    return ImportResult(imported=imported, errors=problems, duplicates=duplicates)


# ---------------------------------------------------------------- the analysis board's tree
#: the most moves, over every line, of a tree the analysis board exports
MAX_TREE_MOVES = 4000


def tree_moves(tree: object, bound: int) -> int:
    """How many moves ``tree`` holds over all its lines, counting up to past ``bound``
    (without recursion: a deep tree costs no stack)."""
    count = 0
    stack = [tree]
    while stack and count <= bound:
        line = stack.pop()
        moves = line.get("moves") if isinstance(line, dict) else None
        if not isinstance(moves, list):
            continue
        count += len(moves)
        for item in moves:
            variations = item.get("variations") if isinstance(item, dict) else None
            if isinstance(variations, list):
                stack.extend(variations)
    return count


def export_tree(
    fen: str, rules: RuleSet, tags: dict[str, str], result: str, tree: dict[str, Any]
) -> str:
    """The analysis board's move tree as PDN: every move of every line checked (R4-R21);
    a bad one is ``illegal_move`` naming where it stands and the rule."""
    if tree_moves(tree, MAX_TREE_MOVES) > MAX_TREE_MOVES:
        raise ApiError(
            400,
            "bad_request",
            M_(
                "at most {MAX_TREE_MOVES} moves over every line of a tree",
                MAX_TREE_MOVES=MAX_TREE_MOVES,
            ),
        )
    refused = tags_problem(tags)
    if refused is not None:
        raise ApiError(400, "bad_request", refused)
    try:
        return write_game(tree_to_game(tree, fen, rules, tags, result))
    except PdnTreeError as exc:
        raise ApiError(400, "illegal_move", str(exc)) from None
    except ValueError as exc:  # a result the position contradicts (R16-R21), a tag name
        raise ApiError(400, "bad_request", str(exc)) from None


# ---------------------------------------------------------------- reading for analysis
#: how often the legal part of a bad game is cut shorter before giving up
PARTIAL_TRIES = 4


def game_json(game: PdnGame) -> PdnGameInfo:
    """A game read from PDN, as ``POST /api/analysis/pdn`` answers it."""
    return PdnGameInfo(
        game=game.number,
        tags=dict(game.tags),
        start_fen=game.start_fen,
        moves=game.notations(),
        moves_count=full_moves(game.start_fen, len(game.moves)),
        result=normalize_result(game.result),
        rules=game.rules.to_dict(),
        tree=dict(game.tree()) if game.annotated else None,
    )


def _offset(text: str, line: int, column: int) -> int:
    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    return starts[min(max(line, 1), len(starts)) - 1] + column - 1


def _legal_part(text: str, header_end: int, rules: RuleSet) -> PdnGameInfo | None:
    """The game ``text`` (one game, its error past ``header_end``) read up to the
    error: cut before the offending token and read again (a cut inside a
    variation is cut again before its ``(``).  ``None`` if the tags are at fault."""
    for _ in range(PARTIAL_TRIES):
        games, errors = read_games_collect(text, rules)
        if len(games) == 1 and not errors:
            part = game_json(games[0])
            part.result = "*"
            return part
        if len(errors) != 1:
            return None
        cut = _offset(text, errors[0].line, errors[0].column)
        if cut <= header_end or cut >= len(text):
            return None
        text = text[:cut]
    return None


def read_for_analysis(text: str, rules: RuleSet) -> PdnReadResult:
    """Every game of a PDN text, read (R4-R21 checked) and not stored: the good games
    and, for each bad one, the error and the game's legal part (``partial``)."""
    games, errors = read_games_collect(text, rules)
    out = PdnReadResult(games=[game_json(g) for g in games], errors=[])
    if not errors:
        return out
    # the text as the reader sees it, cut into the same games
    norm = text[1:] if text.startswith("\ufeff") else text
    norm = norm.replace("\r\n", "\n").replace("\r", "\n")
    chunks = list(_segment(_lex(norm)))
    starts = [0] + [m.end() for m in re.finditer("\n", norm)]
    for exc in errors:
        partial = None
        if 1 <= exc.game <= len(chunks):
            chunk = chunks[exc.game - 1]
            begin = chunk[0].offset
            header = 0
            for token in chunk:
                if token.kind not in ("tag", "badtag", "comment"):
                    break
                header = token.offset - begin + len(token.text)
            line = min(max(exc.line, 1), len(starts))
            end = starts[line - 1] + exc.column - 1
            if end - begin > header:
                partial = _legal_part(norm[begin:end], header, rules)
                if partial is not None:
                    partial.game = exc.game
        out.errors.append(
            PdnReadError(
                game=exc.game,
                line=exc.line,
                column=exc.column,
                token=exc.token,
                message=str(exc),
                partial=partial,
            )
        )
    return out
