"""Seats: the tokens that let a player move, and the invitation to an online game.

Tokens are random (``secrets``) and only their SHA-256 is stored; a token is
compared in constant time.  A token travels in a request body, the ``X-Seat-Token``
header (or ``Authorization: Bearer``) or the WebSocket sub-protocol, never in a URL,
so no log line carries it.

A seat can also belong to an account (``black_user_id`` / ``white_user_id``): the
signed-in player holds it from any device, by the session, without a token;
the token given when the seat was taken still works too.

>>> len(hash_token("abc"))
64
>>> hash_token("\\ud800") == hash_token("\\ud800")  # never fails, even on bad text
True
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from poolcheckers.server import errors
from poolcheckers.server.games.model import GameRec
from poolcheckers.server.i18n import M_


def hash_token(token: str) -> str:
    """SHA-256 of a seat or invitation token: only hashes are stored."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def new_token() -> str:
    return secrets.token_urlsafe(24)


def new_game_id() -> str:
    return secrets.token_urlsafe(9)


def _same(token_hash: str, stored: str | None) -> bool:
    return stored is not None and hmac.compare_digest(token_hash, stored)


def account_seat(game: GameRec, user_id: str | None) -> str | None:
    """The seat the account ``user_id`` holds in this game (None: none)."""
    if user_id is None:
        return None
    black, white = game.black_user_id == user_id, game.white_user_id == user_id
    return "both" if black and white else "black" if black else "white" if white else None


def seat_of(game: GameRec, token: str | None, user_id: str | None = None) -> str | None:
    """The seat a token (or else the signed-in account ``user_id``) holds in this
    game: "black", "white", "both" (local games), or None; a token that holds no
    seat is ``forbidden``."""
    if not token:
        return account_seat(game, user_id)
    h = hash_token(token)
    black = _same(h, game.black_token_hash)
    white = _same(h, game.white_token_hash)
    if black and white:
        return "both"
    if black:
        return "black"
    if white:
        return "white"
    raise errors.forbidden(M_("this token holds no seat in game {id}", id=game.id))


def require_seat(game: GameRec, token: str | None, user_id: str | None = None) -> str:
    """The seat of the token (or the account); ``forbidden`` without one."""
    seat = seat_of(game, token, user_id)
    if seat is None:
        raise errors.forbidden(M_("a seat token is required (or sign in to the account playing)"))
    return seat


def give_seats(game: GameRec, token: str, color: str, user_id: str | None = None) -> None:
    """Seat the creator of ``game`` (both sides in a local game), on their account too
    when they are signed in."""
    h = hash_token(token)
    if game.mode == "local":
        game.black_token_hash = game.white_token_hash = h
        game.black_user_id = game.white_user_id = user_id
    elif color == "black":
        game.black_token_hash = h
        game.black_user_id = user_id
    else:
        game.white_token_hash = h
        game.white_user_id = user_id


def check_invite(game: GameRec, invite: str) -> None:
    """``forbidden`` unless ``invite`` is the game's invitation token."""
    if game.mode != "online" or game.invite_hash is None:
        raise errors.conflict(M_("game {id} is not an online game awaiting a player", id=game.id))
    if not _same(hash_token(invite), game.invite_hash):
        raise errors.forbidden(M_("wrong invitation for game {id}", id=game.id))
