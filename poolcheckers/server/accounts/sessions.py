"""Sign-in sessions, their cookie, and protection against cross-site requests.

A session token is 32 random bytes (:func:`secrets.token_urlsafe`), sent only
in an HttpOnly, SameSite=Lax cookie.  The store keeps its SHA-256 digest, never
the token, so a leaked database does not sign anyone in.  Signing out deletes
the session; changing the password deletes all of the user's sessions (the
device that changed it gets a new one).

>>> store = MemorySessionStore()
>>> sessions = Sessions(store)
>>> token, session = sessions.start("user-1", at=1000.0)
>>> session.digest == token_digest(token) and token not in repr(store.sessions)
True
>>> sessions.authenticate(token, at=1001.0).user_id
'user-1'
>>> sessions.end(token)
True
>>> sessions.authenticate(token, at=1002.0) is None
True

A state-changing request authenticated by the cookie must come from the site
itself: its ``Origin`` is the site's, or it carries the session's CSRF token
(``X-CSRF-Token``, as ``GET /api/account`` returns it):

>>> site = {"https://checkers.example"}
>>> request_allowed("POST", origin="https://evil.example", csrf=None,
...                 session_token=token, site_origins=site)
False
>>> request_allowed("POST", origin=None, csrf=csrf_token(token),
...                 session_token=token, site_origins=site)
True
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import threading
from collections.abc import Collection
from dataclasses import dataclass, replace
from typing import Final, Protocol
from urllib.parse import urlsplit

#: The session cookie's name.
COOKIE_NAME: Final = "pc_session"
#: Bytes of randomness in a session token (256 bits).
TOKEN_BYTES: Final = 32
#: A session unused this long ends (seconds).
IDLE_TIMEOUT: Final = 30 * 86_400.0
#: A session ends this long after sign-in however much it is used (seconds).
MAX_LIFETIME: Final = 365 * 86_400.0
#: ``last_seen`` is written at most this often (seconds), not on every request.
TOUCH_INTERVAL: Final = 60.0
_CSRF_LABEL: Final = b"poolcheckers csrf v1"
SAFE_METHODS: Final = frozenset({"GET", "HEAD", "OPTIONS"})


def new_token() -> str:
    """A fresh session token (43 URL-safe characters)."""
    return secrets.token_urlsafe(TOKEN_BYTES)


def token_digest(token: str) -> str:
    """The SHA-256 hex digest the store keeps in place of the token.

    >>> len(token_digest("x")), token_digest("x") == token_digest("x")
    (64, True)
    """
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def csrf_token(session_token: str) -> str:
    """The session's CSRF token: an HMAC of the session token, so it needs no storage,
    is the same in every server process, and does not reveal the session token.

    >>> t = new_token()
    >>> csrf_token(t) == csrf_token(t) != csrf_token(new_token())
    True
    """
    key = session_token.encode("utf-8", "surrogatepass")
    mac = hmac.new(key, _CSRF_LABEL, hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac).rstrip(b"=").decode("ascii")


def csrf_valid(session_token: str, presented: str | None) -> bool:
    """True when ``presented`` is the session's CSRF token (constant-time comparison)."""
    if not presented:
        return False
    expected = csrf_token(session_token).encode("ascii")
    return hmac.compare_digest(expected, presented.encode("utf-8", "surrogatepass"))


def normalise_origin(url: str) -> str | None:
    """``scheme://host[:port]`` in lower case without a default port; None if not a URL.

    >>> normalise_origin("HTTPS://Checkers.Example:443/play"), normalise_origin("null")
    ('https://checkers.example', None)
    """
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return None
    scheme, host = parts.scheme.lower(), (parts.hostname or "").lower()
    if scheme not in ("http", "https") or not host:
        return None
    if ":" in host:
        host = f"[{host}]"
    default = {"http": 80, "https": 443}[scheme]
    return f"{scheme}://{host}" + (f":{port}" if port not in (None, default) else "")


def request_allowed(
    method: str,
    *,
    origin: str | None,
    csrf: str | None,
    session_token: str | None,
    site_origins: Collection[str],
) -> bool:
    """Whether a request may change state (docs/COMMUNITY.md, cross-site requests).

    Safe methods always may; so may a request not authenticated by the session
    cookie (it proves nothing about the user).  A cookie-authenticated
    ``POST``/``PUT``/``DELETE``… needs an ``Origin`` header naming the site, or
    the session's CSRF token.
    """
    if method.upper() in SAFE_METHODS or session_token is None:
        return True
    if origin is not None:
        mine = {normalise_origin(o) for o in site_origins} - {None}
        if normalise_origin(origin) in mine:
            return True
    return csrf_valid(session_token, csrf)


def session_cookie(token: str, *, secure: bool) -> dict[str, object]:
    """The cookie's attributes (the keyword arguments of Starlette's ``set_cookie``).

    ``secure`` is true behind HTTPS.

    >>> c = session_cookie("t", secure=True)
    >>> c["httponly"], c["samesite"], c["secure"], c["path"]
    (True, 'lax', True, '/')
    """
    return {
        "key": COOKIE_NAME,
        "value": token,
        "max_age": int(MAX_LIFETIME),
        "httponly": True,
        "samesite": "lax",
        "secure": secure,
        "path": "/",
    }


@dataclass(frozen=True, slots=True)
class Session:
    """A signed-in device: the token's digest, the user, when it began and was last used."""

    digest: str
    user_id: str
    created: float
    last_seen: float


class SessionStore(Protocol):
    """Where sessions live; the database keeps them in a table keyed by ``digest``."""

    def insert(self, session: Session) -> None: ...

    def get(self, digest: str) -> Session | None: ...

    def touch(self, digest: str, at: float) -> None:
        """Set ``last_seen`` (no-op if the session is gone)."""
        ...

    def delete(self, digest: str) -> bool:
        """Remove one session; True if it existed."""
        ...

    def delete_user(self, user_id: str) -> int:
        """Remove every session of the user; how many there were."""
        ...


class MemorySessionStore:
    """A :class:`SessionStore` in memory, safe across threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.sessions: dict[str, Session] = {}

    def insert(self, session: Session) -> None:
        with self._lock:
            self.sessions[session.digest] = session

    def get(self, digest: str) -> Session | None:
        with self._lock:
            return self.sessions.get(digest)

    def touch(self, digest: str, at: float) -> None:
        with self._lock:
            if digest in self.sessions:
                self.sessions[digest] = replace(self.sessions[digest], last_seen=at)

    def delete(self, digest: str) -> bool:
        with self._lock:
            return self.sessions.pop(digest, None) is not None

    def delete_user(self, user_id: str) -> int:
        with self._lock:
            mine = [d for d, s in self.sessions.items() if s.user_id == user_id]
            for digest in mine:
                del self.sessions[digest]
            return len(mine)


class Sessions:
    """Starting, checking and ending sessions over a :class:`SessionStore`."""

    def __init__(
        self,
        store: SessionStore,
        *,
        idle_timeout: float = IDLE_TIMEOUT,
        max_lifetime: float = MAX_LIFETIME,
    ) -> None:
        self.store = store
        self.idle_timeout = idle_timeout
        self.max_lifetime = max_lifetime

    def start(self, user_id: str, at: float) -> tuple[str, Session]:
        """Sign in: a new token (for the cookie only) and the session stored for it."""
        token = new_token()
        session = Session(token_digest(token), user_id, at, at)
        self.store.insert(session)
        return token, session

    def authenticate(self, token: str | None, at: float) -> Session | None:
        """The live session of a cookie's token, or None (unknown, ended or expired)."""
        if not token:
            return None
        return self.live(self.store.get(token_digest(token)), at)

    def live(self, session: Session | None, at: float) -> Session | None:
        """``session``, as just read from the store, if it still signs in at ``at``
        (None: expired, and then deleted); its ``last_seen`` is written when due.
        :meth:`authenticate` after the read, for a caller that read the session
        with its account in one statement."""
        if session is None:
            return None
        if at - session.last_seen > self.idle_timeout or at - session.created > self.max_lifetime:
            self.store.delete(session.digest)
            return None
        if at - session.last_seen >= TOUCH_INTERVAL:
            self.store.touch(session.digest, at)
            session = replace(session, last_seen=at)
        return session

    def end(self, token: str) -> bool:
        """Sign out this device; True if it was signed in."""
        return self.store.delete(token_digest(token))

    def end_all(self, user_id: str, at: float, *, keep_signed_in: bool = True) -> str | None:
        """End every session of the user (after a password change).  With
        ``keep_signed_in`` the device that asked gets a new token, returned."""
        self.store.delete_user(user_id)
        if not keep_signed_in:
            return None
        token, _ = self.start(user_id, at)
        return token
