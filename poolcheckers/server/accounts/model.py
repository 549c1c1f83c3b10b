"""Accounts: usernames, the password policy, Argon2id password hashes, and the
sign-up / sign-in / sign-out / password-change service (:class:`Accounts`).

A username is 2 to 20 characters ``A–Z a–z 0–9 _ -`` and starts with a letter
or a digit.  It is shown as it was typed and is unique without regard to case:
:func:`username_key` is the form the store keeps unique (``Ann`` and ``ann``
are the same account).

>>> Username.parse("Ann_1963")
Username(name='Ann_1963', key='ann_1963')
>>> Username.parse("-ann")
Traceback (most recent call last):
...
poolcheckers.server.domain_errors.UsernameError: username must start with a letter or a digit: ...

Passwords are hashed with Argon2id by argon2-cffi (RFC 9106's low-memory
profile by default; tests use its cheapest profile):

>>> from argon2.profiles import CHEAPEST
>>> passwords = Passwords(CHEAPEST)
>>> stored = passwords.hash("correct horse battery")
>>> stored.startswith("$argon2id$")
True
>>> passwords.verify(stored, "correct horse battery"), passwords.verify(stored, "Tr0ub4dor&3")
(True, False)
>>> Passwords().needs_rehash(stored)  # made with weaker parameters than the site's
True
"""

from __future__ import annotations

import hashlib
import hmac
import math
import re
import secrets
import threading
import time
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Final, Protocol

import argon2
import zxcvbn  # type: ignore[import-untyped]
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError
from argon2.profiles import RFC_9106_LOW_MEMORY

from poolcheckers.server.accounts.sessions import (
    MemorySessionStore,
    Session,
    Sessions,
    csrf_token,
    token_digest,
)
from poolcheckers.server.accounts.tokens import TokenStore
from poolcheckers.server.domain_errors import (
    CredentialsError,
    PasswordError,
    RateLimitedError,
    UsernameError,
    UsernameTakenError,
)
from poolcheckers.server.i18n import M_, Message
from poolcheckers.server.quotas import Decision, Quotas, Rate
from poolcheckers.server.throttle import SignInLimits, address_key

USERNAME_MIN: Final = 2
USERNAME_MAX: Final = 20
PASSWORD_MIN: Final = 8
#: Longer passwords are refused so that a sign-in request cannot be made arbitrarily costly.
PASSWORD_MAX: Final = 256

_USERNAME_CHARS: Final = re.compile(r"[A-Za-z0-9_-]*")
#: Names that would read as the site or a role speaking, or clash with game labels.
RESERVED_USERNAMES: Final = frozenset(
    {
        "admin",
        "administrator",
        "anonymous",
        "engine",
        "guest",
        "moderator",
        "poolcheckers",
        "root",
        "staff",
        "system",
        "support",
        "null",
        "undefined",
        "api",
        "static",
    }
)
#: zxcvbn's guessability score (0..4) a new password must reach
PASSWORD_MIN_SCORE: Final = 2
#: zxcvbn reads at most this much of a password (its cost grows with the length)
_STRENGTH_PREFIX: Final = 72
#: characters that read alike, by the one each folds to
_LOOKALIKE: Final = str.maketrans({"1": "l", "i": "l", "|": "l", "0": "o", "5": "s", "$": "s"})
_SEPARATORS: Final = re.compile(r"[_\-.\s]")
_PAIRS: Final = (("rn", "m"), ("vv", "w"), ("cl", "d"))


def fold(name: str) -> str:
    """The form two names that read alike share: NFKC, case folded, separators
    dropped, look-alike letters and digits (``1 l I i``, ``0 O o``, ``5 s``, ``rn m``)
    made one.  New accounts are unique by it.

    >>> fold("I1l") == fold("Il1"), fold("Ann_0") == fold("anno"), fold("burn") == fold("bum")
    (True, True, True)
    """
    text = unicodedata.normalize("NFKC", name).casefold()
    text = _SEPARATORS.sub("", text).translate(_LOOKALIKE)
    for pair, one in _PAIRS:
        text = text.replace(pair, one)
    return text


def is_reserved(name: str, extra: frozenset[str] = frozenset()) -> bool:
    """Whether ``name`` reads as a reserved name (:data:`RESERVED_USERNAMES` or
    ``extra``, such as the site's pages) however it is spelled: case, look-alikes,
    separators and a number at the end do not make it another name.

    >>> [is_reserved(n) for n in ("admin_", "Engine-", "Anonymous1", "adm1n", "Ann")]
    [True, True, True, True, False]
    """
    bare = _SEPARATORS.sub("", unicodedata.normalize("NFKC", name).casefold())
    stems = {fold(bare), fold(bare.rstrip("0123456789"))}
    return any(fold(word) in stems for word in RESERVED_USERNAMES | extra)


@dataclass(frozen=True, slots=True)
class Username:
    """A valid username: ``name`` as typed (shown, always HTML-escaped) and its unique ``key``."""

    name: str
    key: str

    @classmethod
    def parse(cls, text: object) -> Username:
        """Validate ``text``; the error says which rule it breaks."""
        if not isinstance(text, str):
            raise UsernameError(M_("username must be text, not {value}", value=repr(text)))
        if not USERNAME_MIN <= len(text) <= USERNAME_MAX:
            raise UsernameError(
                M_(
                    "username must be {low} to {high} characters, not {count}: {name}",
                    low=USERNAME_MIN,
                    high=USERNAME_MAX,
                    count=len(text),
                    name=repr(text),
                )
            )
        if not _USERNAME_CHARS.fullmatch(text):
            bad = next(c for c in text if not _USERNAME_CHARS.fullmatch(c))
            raise UsernameError(
                M_(
                    "username may only use letters A-Z, digits, '_' and '-', not {bad}: {name}",
                    bad=repr(bad),
                    name=repr(text),
                )
            )
        if not text[0].isalnum():
            raise UsernameError(
                M_("username must start with a letter or a digit: {name}", name=repr(text))
            )
        key = text.lower()
        if key in RESERVED_USERNAMES:
            raise UsernameError(M_("username {name} is reserved", name=repr(text)))
        return cls(text, key)

    def __str__(self) -> str:
        return self.name


def username_key(text: str) -> str:
    """The case-insensitive key a username is unique by (lookups by any spelling use it).

    >>> username_key("AnnB") == username_key("annb")
    True
    """
    return Username.parse(text).key


def check_password(password: object, username: str | None = None) -> str:
    """Apply the password policy; returns the password.

    At least 8 and at most 256 characters, not only spaces, and not the username.

    >>> check_password("short")
    Traceback (most recent call last):
    ...
    poolcheckers.server.domain_errors.PasswordError: password must be at least 8 characters, not 5
    >>> check_password("Annabel1", username="annabel1")
    Traceback (most recent call last):
    ...
    poolcheckers.server.domain_errors.PasswordError: password must not be the username
    """
    if not isinstance(password, str):
        raise PasswordError(
            M_("password must be text, not {name__}", name__=type(password).__name__)
        )
    if len(password) < PASSWORD_MIN:
        raise PasswordError(
            M_(
                "password must be at least {low} characters, not {count}",
                low=PASSWORD_MIN,
                count=len(password),
            )
        )
    if len(password) > PASSWORD_MAX:
        raise PasswordError(
            M_(
                "password must be at most {high} characters, not {count}",
                high=PASSWORD_MAX,
                count=len(password),
            )
        )
    if not password.strip():
        raise PasswordError(M_("password must not be only spaces"))
    if not _encodable(password):
        raise PasswordError(M_("password must be valid Unicode text (it has a lone surrogate)"))
    if username is not None and password.lower() == username.lower():
        raise PasswordError(M_("password must not be the username"))
    _check_strength(password, username)
    return password


def _check_strength(password: str, username: str | None) -> None:
    """Refuse a password that zxcvbn finds easy to guess (common, a pattern, the
    username again); the message gives zxcvbn's reason and advice.

    >>> _check_strength("12345678", None)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    poolcheckers.server.domain_errors.PasswordError: this password is too easy to guess: ...
    """
    inputs = [username, "poolcheckers", "checkers"] if username else ["poolcheckers", "checkers"]
    result = zxcvbn.zxcvbn(password[:_STRENGTH_PREFIX], user_inputs=inputs)
    if result["score"] >= PASSWORD_MIN_SCORE:
        return
    feedback = result["feedback"]
    reasons = " ".join([feedback["warning"], *feedback["suggestions"]]).strip()
    if not reasons:
        raise PasswordError(
            M_(
                "this password is too easy to guess: add another word or two; uncommon words are better"  # noqa: E501 - one message for the catalogs
            )
        )
    # zxcvbn's advice is English: the sentence around it is said in the player's language
    raise PasswordError(M_("this password is too easy to guess: {reasons}", reasons=reasons))


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _secret(password: str) -> bytes:
    """The bytes hashed: UTF-8, lone surrogates kept (so odd input fails to verify
    instead of crashing)."""
    return password.encode("utf-8", "surrogatepass")


class Passwords:
    """Argon2id hashing, verification and re-hash checks (argon2-cffi).

    :meth:`verify` compares in constant time (libargon2) and is never told
    whether the account exists: for an unknown username call
    :meth:`verify_unknown`, which costs the same as a real verification.
    """

    def __init__(self, parameters: argon2.Parameters = RFC_9106_LOW_MEMORY) -> None:
        self._hasher = argon2.PasswordHasher.from_parameters(parameters)
        # made on first use: a server (and every test app) starts without hashing
        self._dummy: str | None = None
        self._dummy_lock = threading.Lock()

    def hash(self, password: str) -> str:
        """A new salted Argon2id hash (PHC string) of ``password``."""
        return self._hasher.hash(_secret(password))

    def verify(self, stored: str, password: str) -> bool:
        """True when ``password`` matches ``stored``; False for a mismatch or a corrupt hash."""
        try:
            return self._hasher.verify(stored, _secret(password))
        except (VerifyMismatchError, VerificationError, InvalidHashError):
            return False

    def verify_unknown(self, password: str) -> bool:
        """Spend the time of a verification for a username that has no account; False."""
        with self._dummy_lock:
            if self._dummy is None:
                self._dummy = self._hasher.hash("a password nobody has")
            dummy = self._dummy
        self.verify(dummy, password + "\x00")
        return False

    def needs_rehash(self, stored: str) -> bool:
        """True when ``stored`` was made with other parameters than this hasher's (re-hash
        it on the next successful sign-in)."""
        try:
            return self._hasher.check_needs_rehash(stored)
        except InvalidHashError:
            return True

    def verify_and_update(self, stored: str, password: str) -> tuple[bool, str | None]:
        """Verify; on success also a fresh hash when ``stored`` needs one (else None).

        >>> from argon2.profiles import CHEAPEST
        >>> old = Passwords(CHEAPEST).hash("correct horse battery")
        >>> ok, new = Passwords().verify_and_update(old, "correct horse battery")
        >>> ok, new is not None and new.startswith("$argon2id$v=19$m=65536,t=3,p=4$")
        (True, True)
        """
        if not self.verify(stored, password):
            return False, None
        return True, (self.hash(password) if self.needs_rehash(stored) else None)


# ------------------------------------------------------------------ the service


@dataclass(frozen=True, slots=True)
class Holdings:
    """What keeps an account from becoming a bot: what it entered or offered as a
    person (an event's entry, a seek, a challenge: a person who takes it means to
    play a person, and the site's events and lobby are for people), and its games
    (only a new account becomes a bot).

    >>> Holdings().held, Holdings(seeks=1).held
    (False, True)
    >>> print(Holdings(events=("Club night",), seeks=2).refusal("Ann"))
    Ann cannot become a bot yet: it is entered in 1 event(s) ('Club night'): withdraw first; it has 2 open seek(s) in the lobby: cancel them first
    """  # noqa: E501

    events: tuple[str, ...] = ()
    seeks: int = 0
    challenges: int = 0
    games: int = 0

    @property
    def held(self) -> bool:
        return bool(self.events or self.seeks or self.challenges or self.games)

    def to_dict(self) -> dict[str, object]:
        return {
            "events": list(self.events),
            "seeks": self.seeks,
            "challenges": self.challenges,
            "games": self.games,
        }

    def refusal(self, username: str) -> Message:
        """The refusal in plain words, naming each kind of holding."""
        held: list[Message] = []
        if self.events:
            names = ", ".join(repr(name) for name in self.events)
            held.append(
                M_(
                    "it is entered in {count} event(s) ({names}): withdraw first",
                    count=len(self.events),
                    names=names,
                )
            )
        if self.seeks:
            held.append(
                M_("it has {count} open seek(s) in the lobby: cancel them first", count=self.seeks)
            )
        if self.challenges:
            held.append(
                M_(
                    "it has {count} open challenge(s), sent or received: cancel or decline them first",  # noqa: E501
                    count=self.challenges,
                )
            )
        if self.games:
            held.append(
                M_(
                    "it has played {count} game(s): only a new account can become a bot (make one for the bot)",  # noqa: E501
                    count=self.games,
                )
            )
        # said in English as it reads; in another language each holding is said too
        english = M_(
            "{username} cannot become a bot yet: {held}", username=username, held="; ".join(held)
        )
        return Message.beside(english, english.template, username=username, held=held)


def pdn_title(bot: bool) -> str | None:
    """An account's title in PDN (``BlackTitle``/``WhiteTitle``, as lichess writes
    it): ``BOT`` for a bot account, else none."""
    return "BOT" if bot else None


@dataclass(frozen=True, slots=True)
class User:
    """An account.  ``password_hash`` never leaves the server: :meth:`public` is what
    other players may see, :meth:`private` what the account's owner sees."""

    id: str
    username: str
    key: str
    password_hash: str
    created: float
    #: a bot account (plays through the bot API; irreversible)
    bot: bool = False
    #: the site's language the account chose (server/i18n.LOCALES), None: the browser's
    locale: str | None = None

    def public(self) -> dict[str, object]:
        return {"username": self.username, "created": self.created, "bot": self.bot}

    def private(self, session_token: str) -> dict[str, object]:
        """``GET /api/account``: the username and the session's CSRF token."""
        return {"username": self.username, "csrf_token": csrf_token(session_token)}


class UserStore(Protocol):
    """Where accounts live; the database keeps ``key`` unique (case-insensitive names)
    and the :func:`fold` of new names (names that read alike)."""

    def add(self, user: User) -> bool:
        """Store a new account; False, storing nothing, if its ``key`` or the
        :func:`fold` of its name is taken."""
        ...

    def by_key(self, key: str) -> User | None: ...

    def by_id(self, user_id: str) -> User | None: ...

    def set_password_hash(self, user_id: str, old_hash: str, new_hash: str) -> bool:
        """Replace the hash if it is still ``old_hash`` (compare-and-set); False otherwise."""
        ...

    def set_reset(self, user_id: str, code_hash: str, expires: float) -> None:
        """Keep the account's password-reset code (one per account: a new one replaces it)."""
        ...

    def reset_of(self, user_id: str) -> tuple[str, float] | None:
        """The account's reset code (its hash) and expiry, if one was issued."""
        ...

    def drop_reset(self, user_id: str, code_hash: str) -> bool:
        """Forget the code if it is still ``code_hash``; True when this call took it."""
        ...


class SessionUserStore(Protocol):
    """A session and its account read together: who a request is, in one statement
    (every signed-in request asks)."""

    def session_user(self, digest: str) -> tuple[Session, User | None] | None:
        """The session of ``digest`` and its account (None: no such account), or None
        without the session."""
        ...


class MemoryUserStore:
    """A :class:`UserStore` in memory, safe across threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_id: dict[str, User] = {}
        self._by_key: dict[str, User] = {}
        self._folds: set[str] = set()
        self._resets: dict[str, tuple[str, float]] = {}

    def add(self, user: User) -> bool:
        with self._lock:
            folded = fold(user.username)
            if user.key in self._by_key or user.id in self._by_id or folded in self._folds:
                return False
            self._by_id[user.id] = self._by_key[user.key] = user
            self._folds.add(folded)
            return True

    def by_key(self, key: str) -> User | None:
        with self._lock:
            return self._by_key.get(key)

    def by_id(self, user_id: str) -> User | None:
        with self._lock:
            return self._by_id.get(user_id)

    def set_password_hash(self, user_id: str, old_hash: str, new_hash: str) -> bool:
        with self._lock:
            user = self._by_id.get(user_id)
            if user is None or user.password_hash != old_hash:
                return False
            changed = replace(user, password_hash=new_hash)
            self._by_id[user_id] = self._by_key[user.key] = changed
            return True

    def set_reset(self, user_id: str, code_hash: str, expires: float) -> None:
        with self._lock:
            self._resets[user_id] = (code_hash, expires)

    def reset_of(self, user_id: str) -> tuple[str, float] | None:
        with self._lock:
            return self._resets.get(user_id)

    def drop_reset(self, user_id: str, code_hash: str) -> bool:
        with self._lock:
            if self._resets.get(user_id, ("", 0.0))[0] != code_hash:
                return False
            del self._resets[user_id]
            return True


@dataclass(frozen=True, slots=True)
class SignedIn:
    """A successful sign-up or sign-in: the account and the new session's token
    (for the ``Set-Cookie`` header only)."""

    user: User
    token: str


_WRONG: Final = M_("wrong username or password")
_WRONG_CODE: Final = M_(
    "wrong or expired reset code for this username: ask the site's administrator for a new one"
)
#: how long a password-reset code lasts
RESET_CODE_SECONDS: Final = 3600.0
#: the letters of a reset code: no 0/O, 1/I/L to misread over the phone
_CODE_ALPHABET: Final = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"


def _code_digest(code: str) -> str:
    """A reset code's SHA-256, as stored: spaces, dashes and case do not count (a code
    of 60 random bits needs no slow hash)."""
    norm = re.sub(r"[\s-]+", "", code).upper()
    return hashlib.sha256(norm.encode("utf-8", "replace")).hexdigest()


def _sign_in_allowed(decision: Decision) -> None:
    if not decision.allowed:
        raise RateLimitedError(
            M_(
                "too many sign-in attempts: try again in {value} s",
                value=math.ceil(decision.retry_after),
            ),
            decision.retry_after,
        )


class Accounts:
    """Sign-up, sign-in, sign-out and password change over a :class:`UserStore`.

    >>> from argon2.profiles import CHEAPEST
    >>> accounts = Accounts(MemoryUserStore(), passwords=Passwords(CHEAPEST))
    >>> ann = accounts.signup("Ann", "correct horse battery", address="192.0.2.1")
    >>> accounts.login("ANN", "correct horse battery", address="192.0.2.1").user.username
    'Ann'
    >>> accounts.login("ann", "wrong horse battery", address="192.0.2.1")
    Traceback (most recent call last):
    ...
    poolcheckers.server.domain_errors.CredentialsError: wrong username or password
    >>> accounts.signup("aNN", "another password", address="192.0.2.9")
    Traceback (most recent call last):
    ...
    poolcheckers.server.domain_errors.UsernameTakenError: username 'aNN' is taken ...
    """

    def __init__(
        self,
        users: UserStore,
        *,
        sessions: Sessions | None = None,
        session_users: SessionUserStore | None = None,
        passwords: Passwords | None = None,
        limiter: SignInLimits | None = None,
        signup_limit: tuple[Quotas, Rate] | None = None,
        clock: Callable[[], float] = time.time,
        new_id: Callable[[], str] = lambda: secrets.token_urlsafe(9),
        tokens: TokenStore | None = None,
    ) -> None:
        self.users = users
        #: the API tokens, all revoked with the sessions (:meth:`end_everywhere`)
        self.tokens = tokens
        self.sessions = sessions if sessions is not None else Sessions(MemorySessionStore())
        #: reads a session with its account (else: the session, then the account)
        self.session_users = session_users
        self.passwords = passwords if passwords is not None else Passwords()
        self.limiter = limiter
        self.signup_limit = signup_limit
        self.clock = clock
        self.new_id = new_id
        #: names reserved besides :data:`RESERVED_USERNAMES` (the site's pages)
        self.reserved: frozenset[str] = frozenset()

    def signup(self, username: object, password: object, *, address: str) -> SignedIn:
        """Create an account and sign it in.  ``signup_limit`` (if set) counts per address."""
        name = Username.parse(username)
        if is_reserved(name.name, self.reserved):
            raise UsernameError(M_("username {name} is reserved", name=repr(name.name)))
        secret = check_password(password, name.name)
        if self.signup_limit is not None:
            quotas, rate = self.signup_limit
            decision = quotas.hit(rate, address_key(address))
            if not decision.allowed:
                raise RateLimitedError(
                    M_(
                        "too many sign-ups from this address: try again in {seconds} s",
                        seconds=math.ceil(decision.retry_after),
                    ),
                    decision.retry_after,
                )
        now = self.clock()
        user = User(self.new_id(), name.name, name.key, self.passwords.hash(secret), now)
        if not self.users.add(user):
            raise UsernameTakenError(
                M_(
                    "username {name} is taken (or too like an existing name)",
                    name=repr(name.name),
                )
            )
        token, _ = self.sessions.start(user.id, now)
        return SignedIn(user, token)

    def admit_sign_in(self, address: str) -> None:
        """Count a sign-in from ``address`` against its attempts of this minute before
        it waits for a password-hashing thread (:meth:`SignInLimits.burst`), or raise
        :class:`RateLimitedError`."""
        if self.limiter is not None:
            _sign_in_allowed(self.limiter.burst(address))

    def _check_password(self, key: str, password: object, address: str) -> User:
        limiter = self.limiter
        if limiter is not None:
            _sign_in_allowed(limiter.attempt(key, address))
        user = self.users.by_key(key) if key else None
        if not isinstance(password, str):
            password = ""
        if user is None:
            self.passwords.verify_unknown(password)
            if limiter is not None:
                limiter.failed(key, address)
            raise CredentialsError(_WRONG)
        ok, rehashed = self.passwords.verify_and_update(user.password_hash, password)
        if not ok:
            if limiter is not None:
                limiter.failed(key, address)
            raise CredentialsError(_WRONG)
        if limiter is not None:
            limiter.succeeded(key, address)
        if rehashed is not None and self.users.set_password_hash(
            user.id, user.password_hash, rehashed
        ):
            user = replace(user, password_hash=rehashed)
        return user

    def login(self, username: object, password: object, *, address: str) -> SignedIn:
        """Sign in: a new session.  The same answer for an unknown username and a wrong
        password, in the same time; attempts are limited (:class:`SignInLimits`)."""
        key = username.lower() if isinstance(username, str) else ""
        user = self._check_password(key[: USERNAME_MAX + 1], password, address)
        token, _ = self.sessions.start(user.id, self.clock())
        return SignedIn(user, token)

    def authenticate(self, token: str | None) -> User | None:
        """The signed-in account of a session cookie, or None."""
        if self.session_users is None:
            session = self.sessions.authenticate(token, self.clock())
            return None if session is None else self.users.by_id(session.user_id)
        if not token:
            return None
        found = self.session_users.session_user(token_digest(token))
        if found is None or self.sessions.live(found[0], self.clock()) is None:
            return None
        return found[1]

    def logout(self, token: str) -> bool:
        """End this session; True if it was live."""
        return self.sessions.end(token)

    def issue_reset_code(self, username: str) -> tuple[str, float]:
        """A one-time code to set a new password of ``username``'s account without the
        old one, and when it expires (:data:`RESET_CODE_SECONDS`): printed by an
        administrator's command, given to the player in person or by phone (the site
        sends no mail).  A new code replaces the account's last one.

        >>> from argon2.profiles import CHEAPEST
        >>> accounts = Accounts(
        ...     MemoryUserStore(), passwords=Passwords(CHEAPEST), clock=lambda: 0.0
        ... )
        >>> _ = accounts.signup("Ann", "correct horse battery", address="192.0.2.1")
        >>> code, expires = accounts.issue_reset_code("ann")
        >>> len(code), expires
        (14, 3600.0)
        >>> where = "192.0.2.1"
        >>> accounts.reset_password("Ann", code, "a brand new secret", address=where).user.username
        'Ann'
        >>> accounts.reset_password("Ann", code, "another new secret", address=where)
        Traceback (most recent call last):
        ...
        poolcheckers.server.domain_errors.CredentialsError: wrong or expired reset code ...
        """
        user = self.users.by_key(username.strip().lower())
        if user is None:
            raise UsernameError(M_("no account named {name}", name=repr(username)))
        code = "-".join("".join(secrets.choice(_CODE_ALPHABET) for _ in range(4)) for _ in range(3))
        expires = self.clock() + RESET_CODE_SECONDS
        self.users.set_reset(user.id, _code_digest(code), expires)
        return code, expires

    def reset_password(
        self, username: object, code: object, new_password: object, *, address: str
    ) -> SignedIn:
        """Set a new password with a reset code (once; attempts are limited as sign-ins
        are): every session of the account ends, every API token of it is revoked,
        and this device is signed in."""
        key = username.strip().lower()[: USERNAME_MAX + 1] if isinstance(username, str) else ""
        if self.limiter is not None:
            _sign_in_allowed(self.limiter.attempt(key, address))
        user = self.users.by_key(key) if key else None
        stored = self.users.reset_of(user.id) if user is not None else None
        given = _code_digest(code) if isinstance(code, str) else ""
        fits = stored is not None and hmac.compare_digest(stored[0], given)
        if user is None or stored is None or not fits or stored[1] < self.clock():
            if self.limiter is not None:
                self.limiter.failed(key, address)
            raise CredentialsError(_WRONG_CODE)
        secret = check_password(new_password, user.username)
        if not self.users.drop_reset(user.id, stored[0]):
            raise CredentialsError(_WRONG_CODE)  # taken meanwhile by another request
        new_hash = self.passwords.hash(secret)
        while not self.users.set_password_hash(user.id, user.password_hash, new_hash):
            fresh_user = self.users.by_id(user.id)  # a rehash at sign-in meanwhile
            if fresh_user is None:
                raise CredentialsError(_WRONG_CODE)
            user = fresh_user
        if self.limiter is not None:
            self.limiter.succeeded(key, address)
        token = self.end_everywhere(user.id)
        return SignedIn(replace(user, password_hash=new_hash), token)

    def change_password(
        self, token: str | None, old_password: object, new_password: object, *, address: str
    ) -> SignedIn:
        """Change the password of the session's account: every session of the account
        ends, every API token of it is revoked, and the device that asked is signed
        in again with a new token."""
        user = self.authenticate(token)
        if user is None:
            raise CredentialsError(M_("sign in first"))
        user = self._check_password(user.key, old_password, address)
        secret = check_password(new_password, user.username)
        new_hash = self.passwords.hash(secret)
        if not self.users.set_password_hash(user.id, user.password_hash, new_hash):
            raise CredentialsError(M_("the password was changed meanwhile: sign in again"))
        return SignedIn(replace(user, password_hash=new_hash), self.end_everywhere(user.id))

    def sign_out_everywhere(self, token: str | None) -> SignedIn:
        """ "Sign out everywhere": every session of the session's account ends and
        every API token of it is revoked; the device that asked is signed in again
        with a new token."""
        user = self.authenticate(token)
        if user is None:
            raise CredentialsError(M_("sign in first"))
        return SignedIn(user, self.end_everywhere(user.id))

    def end_everywhere(self, user_id: str) -> str:
        """End every session of the account and revoke every API token of it (a
        password that changed, or was perhaps stolen: a program signed in with the
        old one kept its token); a new session's token for the device that asked."""
        if self.tokens is not None:
            self.tokens.revoke_all(user_id)
        fresh = self.sessions.end_all(user_id, self.clock(), keep_signed_in=True)
        assert fresh is not None
        return fresh
