"""Personal API tokens: what an outside program (a bot, a script) signs in with.

A token is made on the account page, shown once, and kept only as its SHA-256
(like sessions).  It carries scopes: what the program may do with it.  A program
sends it as ``Authorization: Bearer pct_…``; it never travels in a URL and never
opens a browser session (the account page itself needs the password's session).

>>> looks_like_token("pct_" + "a" * 43), looks_like_token("abc")
(True, False)
>>> sorted(parse_scopes(["bot:play", "challenge:read"]))
['bot:play', 'challenge:read']
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

from poolcheckers.server.accounts.sessions import token_digest
from poolcheckers.server.domain_errors import CommunityError
from poolcheckers.server.i18n import M_, N_

#: what a token may be allowed to do, and how the account page says it
SCOPES: dict[str, str] = {
    "bot:play": N_("play as a bot: its games, challenges and moves (bot accounts only)"),
    "challenge:read": N_("see the challenges sent to you and by you"),
    "challenge:write": N_("send, accept and decline challenges"),
}
TOKEN_PREFIX = "pct_"
#: a token's open streams hear of its revocation on this topic of its account (in
#: every server process: :class:`~poolcheckers.server.realtime.topics.TopicFeed`)
REVOKED_TOPIC = "api-tokens:"
#: tokens one account may hold at once
MAX_TOKENS = 20
LABEL_MAX = 60
_TOKEN_RE = re.compile(r"pct_[A-Za-z0-9_-]{43}")


class TokenError(CommunityError):
    """A token request the rules refuse (bad label or scopes, too many tokens)."""

    code = "bad_request"
    field = "token"


def looks_like_token(text: str) -> bool:
    """Whether ``text`` has a token's shape (checked before any database work)."""
    return _TOKEN_RE.fullmatch(text) is not None


def new_token() -> str:
    """A new token: 32 random bytes, URL-safe, after the prefix."""
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def parse_scopes(scopes: Iterable[object]) -> frozenset[str]:
    """The scopes asked for, each one known; at least one."""
    asked = list(scopes)
    unknown = [s for s in asked if not isinstance(s, str) or s not in SCOPES]
    if unknown:
        raise TokenError(
            M_(
                "unknown scope {unknown}: the scopes are {value}",
                unknown=repr(unknown[0]),
                value=", ".join(SCOPES),
            )
        )
    if not asked:
        raise TokenError(M_("choose at least one scope"))
    return frozenset(str(s) for s in asked)


def parse_label(label: object) -> str:
    """What the owner calls the token: 1 to 60 characters."""
    if not isinstance(label, str) or not label.strip():
        raise TokenError(M_("give the token a name (what program uses it)"))
    text = " ".join(label.split())
    if len(text) > LABEL_MAX:
        raise TokenError(
            M_("a token's name has at most {LABEL_MAX} characters", LABEL_MAX=LABEL_MAX)
        )
    return text


@dataclass(frozen=True, slots=True)
class ApiToken:
    """A stored token: never the token itself, only its digest."""

    digest: str
    user_id: str
    label: str
    scopes: frozenset[str]
    created: float
    last_used: float | None = None

    @property
    def id(self) -> str:
        """The token's public name on the account page (the digest's start)."""
        return self.digest[:12]

    def public(self) -> dict[str, object]:
        return {
            "id": self.id,
            "label": self.label,
            "scopes": sorted(self.scopes),
            "created": self.created,
            "last_used": self.last_used,
        }


class TokenStore(Protocol):
    def insert(self, token: ApiToken) -> None: ...

    def of_user(self, user_id: str) -> list[ApiToken]:
        """The account's tokens, oldest first."""
        ...

    def by_digest(self, digest: str) -> ApiToken | None: ...

    def touch(self, digest: str, at: float) -> None: ...

    def revoke(self, user_id: str, token_id: str) -> bool:
        """Delete the account's token whose id is ``token_id``; False if none."""
        ...

    def revoke_all(self, user_id: str) -> int:
        """Delete every token of the account; how many there were."""
        ...


class Tokens:
    """Making, checking and revoking tokens over a :class:`TokenStore`."""

    #: last use is written at most this often per token (seconds)
    TOUCH_INTERVAL = 60.0

    def __init__(self, store: TokenStore) -> None:
        self.store = store

    def create(
        self, user_id: str, label: object, scopes: Iterable[object], at: float
    ) -> tuple[str, ApiToken]:
        """A new token (the only time it is shown) and what is stored of it."""
        name, granted = parse_label(label), parse_scopes(scopes)
        if len(self.store.of_user(user_id)) >= MAX_TOKENS:
            raise TokenError(
                M_("at most {MAX_TOKENS} tokens: revoke one first", MAX_TOKENS=MAX_TOKENS)
            )
        token = new_token()
        stored = ApiToken(token_digest(token), user_id, name, granted, at)
        self.store.insert(stored)
        return token, stored

    def check(self, token: str, at: float) -> ApiToken | None:
        """The stored token ``token`` is, or None (unknown, revoked, malformed)."""
        if not looks_like_token(token):
            return None
        found = self.store.by_digest(token_digest(token))
        if found is not None and (
            found.last_used is None or at - found.last_used >= self.TOUCH_INTERVAL
        ):
            self.store.touch(found.digest, at)
        return found
