"""Errors of the community layer (accounts, lobby, ratings).

Each carries an API error ``code`` (the codes of ``docs/CONTRACTS.md`` §3) and the
``field`` of the request it is about, so the server can answer
``{"error": {"code": ..., "message": ...}}`` without guessing.

>>> e = UsernameError("username must be 2 to 20 characters, not 1: 'a'")
>>> e.code, e.field
('bad_request', 'username')
>>> isinstance(e, ValueError)
True
"""

from __future__ import annotations

from typing import ClassVar

from poolcheckers.errors import PoolCheckersError


class CommunityError(PoolCheckersError):
    """Base class: bad input to the community layer.  The state is left unchanged."""

    code: ClassVar[str] = "bad_request"
    field: ClassVar[str] = ""


class TimeControlError(CommunityError):
    """A clock or correspondence setting out of bounds or malformed."""

    field = "clock"


class UsernameError(CommunityError):
    """A username that breaks the naming rules (length, characters, reserved)."""

    field = "username"


class PasswordError(CommunityError):
    """A password that breaks the password policy."""

    field = "password"


class SeekError(CommunityError):
    """A seek that cannot be posted as asked (e.g. a rated seek with non-APCA rules)."""

    field = "seek"


class SeekGoneError(CommunityError):
    """The seek was taken, cancelled or withdrawn before this request."""

    code = "not_found"
    field = "seek"


class SeekForbiddenError(CommunityError):
    """Someone other than its author tried to cancel a seek, or an author to accept their own."""

    code = "forbidden"
    field = "seek"


class RatingError(CommunityError):
    """A rating update that cannot be applied (e.g. the same player on both sides)."""

    field = "rating"


class UsernameTakenError(CommunityError):
    """Sign-up with a username that exists already (in any case)."""

    code = "conflict"
    field = "username"


class CredentialsError(CommunityError):
    """Wrong username or password, or no valid session (HTTP 401).  The message never
    says which of the two was wrong."""

    code = "unauthorized"
    field = "password"


class RateLimitedError(CommunityError):
    """Too many attempts (HTTP 429); ``retry_after`` seconds until the next is allowed."""

    code = "rate_limited"
    field = ""

    def __init__(self, message: str, retry_after: float) -> None:
        super().__init__(message)
        self.retry_after = retry_after
