"""Accounts: usernames, the password policy and Argon2id password hashes.

A username is 2 to 20 characters ``A–Z a–z 0–9 _ -`` and starts with a letter
or a digit.  It is shown as it was typed and is unique without regard to case:
:func:`username_key` is the form the store keeps unique (``Ann`` and ``ann``
are the same account).

>>> Username.parse("Ann_1963")
Username(name='Ann_1963', key='ann_1963')
>>> Username.parse("-ann")
Traceback (most recent call last):
...
poolcheckers.community.errors.UsernameError: username must start with a letter or a digit: '-ann'

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

import re
from dataclasses import dataclass
from typing import Final

import argon2
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError
from argon2.profiles import RFC_9106_LOW_MEMORY

from poolcheckers.community.errors import PasswordError, UsernameError

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
    }
)


@dataclass(frozen=True, slots=True)
class Username:
    """A valid username: ``name`` as typed (shown, always HTML-escaped) and its unique ``key``."""

    name: str
    key: str

    @classmethod
    def parse(cls, text: object) -> Username:
        """Validate ``text``; the error says which rule it breaks."""
        if not isinstance(text, str):
            raise UsernameError(f"username must be text, not {text!r}")
        if not USERNAME_MIN <= len(text) <= USERNAME_MAX:
            raise UsernameError(
                f"username must be {USERNAME_MIN} to {USERNAME_MAX} characters, "
                f"not {len(text)}: {text!r}"
            )
        if not _USERNAME_CHARS.fullmatch(text):
            bad = next(c for c in text if not _USERNAME_CHARS.fullmatch(c))
            raise UsernameError(
                f"username may only use letters A-Z, digits, '_' and '-', not {bad!r}: {text!r}"
            )
        if not text[0].isalnum():
            raise UsernameError(f"username must start with a letter or a digit: {text!r}")
        key = text.lower()
        if key in RESERVED_USERNAMES:
            raise UsernameError(f"username {text!r} is reserved")
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
    poolcheckers.community.errors.PasswordError: password must be at least 8 characters, not 5
    >>> check_password("Annabel1", username="annabel1")
    Traceback (most recent call last):
    ...
    poolcheckers.community.errors.PasswordError: password must not be the username
    """
    if not isinstance(password, str):
        raise PasswordError(f"password must be text, not {type(password).__name__}")
    if len(password) < PASSWORD_MIN:
        raise PasswordError(
            f"password must be at least {PASSWORD_MIN} characters, not {len(password)}"
        )
    if len(password) > PASSWORD_MAX:
        raise PasswordError(
            f"password must be at most {PASSWORD_MAX} characters, not {len(password)}"
        )
    if not password.strip():
        raise PasswordError("password must not be only spaces")
    if username is not None and password.lower() == username.lower():
        raise PasswordError("password must not be the username")
    return password


class Passwords:
    """Argon2id hashing, verification and re-hash checks (argon2-cffi).

    :meth:`verify` compares in constant time (libargon2) and is never told
    whether the account exists: for an unknown username call
    :meth:`verify_unknown`, which costs the same as a real verification.
    """

    def __init__(self, parameters: argon2.Parameters = RFC_9106_LOW_MEMORY) -> None:
        self._hasher = argon2.PasswordHasher.from_parameters(parameters)
        self._dummy = self._hasher.hash("a password nobody has")

    def hash(self, password: str) -> str:
        """A new salted Argon2id hash (PHC string) of ``password``."""
        return self._hasher.hash(password)

    def verify(self, stored: str, password: str) -> bool:
        """True when ``password`` matches ``stored``; False for a mismatch or a corrupt hash."""
        try:
            return self._hasher.verify(stored, password)
        except (VerifyMismatchError, VerificationError, InvalidHashError):
            return False

    def verify_unknown(self, password: str) -> bool:
        """Spend the time of a verification for a username that has no account; False."""
        self.verify(self._dummy, password + "\x00")
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
