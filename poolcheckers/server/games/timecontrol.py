"""Time controls of the lobby and their rating categories.

A time control is a :class:`Clock` (initial time plus an increment per move,
both in seconds), a :class:`Correspondence` setting (days per move), or
``None`` (no clock: casual games only).  The category a game is rated in comes
from the clock as on lichess: the estimated duration of one side's time for a
game of 40 moves, ``initial + 40 × increment`` seconds, is bullet under 3
minutes, blitz under 8, rapid under 25 and classical from 25 on.

>>> c = Clock(300, 3)
>>> c.estimated_seconds, c.category, c.pdn(), str(c)
(420, <Category.BLITZ: 'blitz'>, '300+3', '5+3')
>>> Clock.from_minutes(0.5, 0).category
<Category.BULLET: 'bullet'>
>>> Clock(900, 10).category, Clock(1800, 0).category
(<Category.RAPID: 'rapid'>, <Category.CLASSICAL: 'classical'>)
>>> d = Correspondence(3)
>>> d.category, d.pdn(), str(d)
(<Category.CORRESPONDENCE: 'correspondence'>, '1/259200', '3 days per move')
>>> parse_time_control({"initial": 180, "increment": 2})
Clock(initial=180, increment=2)
>>> parse_time_control({"days": 2}), parse_time_control(None)
(Correspondence(days=2), None)
>>> pdn_time_control(None)
'-'
>>> parse_time_control({"initial": 599940, "increment": 0})
Traceback (most recent call last):
...
poolcheckers.server.domain_errors.TimeControlError: clock.initial must ... 599940 (9999 minutes)
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from poolcheckers.server.domain_errors import TimeControlError
from poolcheckers.server.i18n import M_

#: Bounds of a custom clock (seconds): ¼ minute to 3 hours initial, up to 3 minutes increment.
MIN_INITIAL: Final = 15
MAX_INITIAL: Final = 180 * 60
MAX_INCREMENT: Final = 180
#: Bounds of correspondence: days per move.
MIN_DAYS: Final = 1
MAX_DAYS: Final = 14
#: Moves counted in the estimated duration ``initial + MOVES_ESTIMATE × increment`` (lichess).
MOVES_ESTIMATE: Final = 40


class Category(enum.Enum):
    """A rating category: each has its own rating per player."""

    BULLET = "bullet"
    BLITZ = "blitz"
    RAPID = "rapid"
    CLASSICAL = "classical"
    CORRESPONDENCE = "correspondence"

    @classmethod
    def parse(cls, text: str) -> Category:
        """The category named ``text`` (``"blitz"``…); an error lists the names.

        >>> Category.parse("rapid")
        <Category.RAPID: 'rapid'>
        >>> Category.parse("ultra")
        Traceback (most recent call last):
        ...
        poolcheckers.server.domain_errors.TimeControlError: unknown category 'ultra' (bullet, ...)
        """
        for member in cls:
            if member.value == text:
                return member
        names = ", ".join(m.value for m in cls)
        raise TimeControlError(
            M_("unknown category {text} ({names})", text=repr(text), names=names)
        )


#: Upper bounds (exclusive, estimated seconds) of the real-time categories.
_CATEGORY_LIMITS: Final = (
    (3 * 60, Category.BULLET),
    (8 * 60, Category.BLITZ),
    (25 * 60, Category.RAPID),
)


def _whole(value: object, name: str) -> int:
    """``value`` as an int when it is a whole number (JSON may send ``300.0``)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TimeControlError(
            M_("{name} must be a whole number, not {value}", name=name, value=repr(value))
        )
    if isinstance(value, float):
        if not value.is_integer():
            raise TimeControlError(
                M_("{name} must be a whole number, not {value}", name=name, value=repr(value))
            )
        return int(value)
    return value


def _minutes_text(seconds: int) -> str:
    """Minutes as the lobby shows them: ``90`` → ``'1½'``, ``15`` → ``'¼'``, ``100`` → ``'1:40'``.

    >>> [_minutes_text(s) for s in (15, 90, 100, 300)]
    ['¼', '1½', '1:40', '5']
    """
    whole, rest = divmod(seconds, 60)
    fraction = {0: "", 15: "¼", 30: "½", 45: "¾"}.get(rest)
    if fraction is None:
        return f"{whole}:{rest:02d}"
    if whole == 0 and fraction:
        return fraction
    return f"{whole}{fraction}"


@dataclass(frozen=True, slots=True)
class Clock:
    """A Fischer clock: ``initial`` seconds for each side, ``increment`` seconds added per move."""

    initial: int
    increment: int

    def __post_init__(self) -> None:
        initial = _whole(self.initial, "clock.initial")
        increment = _whole(self.increment, "clock.increment")
        if not MIN_INITIAL <= initial <= MAX_INITIAL:
            shown = f"{initial} ({_minutes_text(initial)} minutes)" if initial > 0 else f"{initial}"
            raise TimeControlError(
                M_(
                    "clock.initial must be whole seconds from {MIN_INITIAL} (¼ minute) to {MAX_INITIAL} (180 minutes), not {shown}",  # noqa: E501
                    MIN_INITIAL=MIN_INITIAL,
                    MAX_INITIAL=MAX_INITIAL,
                    shown=shown,
                )
            )
        if not 0 <= increment <= MAX_INCREMENT:
            raise TimeControlError(
                M_(
                    "clock.increment must be whole seconds from 0 to {MAX_INCREMENT}, not {increment}",  # noqa: E501
                    MAX_INCREMENT=MAX_INCREMENT,
                    increment=increment,
                )
            )
        object.__setattr__(self, "initial", initial)
        object.__setattr__(self, "increment", increment)

    @classmethod
    def from_minutes(cls, minutes: float, increment: int) -> Clock:
        """From the custom form's minutes (¼, ½, ¾ or whole minutes) and increment seconds.

        >>> Clock.from_minutes(2.5, 1)
        Clock(initial=150, increment=1)
        """
        seconds = minutes * 60
        if isinstance(minutes, bool) or not float(seconds).is_integer():
            raise TimeControlError(
                M_(
                    "clock minutes must be whole seconds, not {minutes} minutes",
                    minutes=repr(minutes),
                )
            )
        return cls(int(seconds), increment)

    @property
    def estimated_seconds(self) -> int:
        """``initial + 40 × increment``: one side's time for a 40-move game."""
        return self.initial + MOVES_ESTIMATE * self.increment

    @property
    def category(self) -> Category:
        """Bullet (< 3 min estimated), blitz (< 8), rapid (< 25) or classical."""
        estimate = self.estimated_seconds
        for limit, category in _CATEGORY_LIMITS:
            if estimate < limit:
                return category
        return Category.CLASSICAL

    def pdn(self) -> str:
        """The PDN/PGN ``TimeControl`` value: ``"300+3"`` (seconds + increment seconds)."""
        return f"{self.initial}+{self.increment}"

    def to_dict(self) -> dict[str, int]:
        """As in the HTTP API: ``{"initial": s, "increment": s}``."""
        return {"initial": self.initial, "increment": self.increment}

    def __str__(self) -> str:
        return f"{_minutes_text(self.initial)}+{self.increment}"


@dataclass(frozen=True, slots=True)
class Correspondence:
    """Correspondence play: each move must be made within ``days`` days."""

    days: int

    def __post_init__(self) -> None:
        days = _whole(self.days, "clock.days")
        if not MIN_DAYS <= days <= MAX_DAYS:
            raise TimeControlError(
                M_(
                    "clock.days must be a whole number of days per move from {MIN_DAYS} to {MAX_DAYS}, not {days}",  # noqa: E501
                    MIN_DAYS=MIN_DAYS,
                    MAX_DAYS=MAX_DAYS,
                    days=days,
                )
            )
        object.__setattr__(self, "days", days)

    @property
    def category(self) -> Category:
        return Category.CORRESPONDENCE

    @property
    def seconds_per_move(self) -> int:
        return self.days * 86_400

    def pdn(self) -> str:
        """PDN/PGN ``TimeControl`` ``moves/seconds`` form: one move per ``days`` days."""
        return f"1/{self.seconds_per_move}"

    def to_dict(self) -> dict[str, int]:
        """As in the HTTP API: ``{"days": n}``."""
        return {"days": self.days}

    def __str__(self) -> str:
        return f"{self.days} day{'s' if self.days != 1 else ''} per move"


TimeControl = Clock | Correspondence | None
"""A clock, correspondence, or ``None`` for a game without a clock."""


def category_of(control: TimeControl) -> Category | None:
    """The rating category; ``None`` for a game without a clock (never rated).

    >>> category_of(Clock(60, 0)), category_of(None)
    (<Category.BULLET: 'bullet'>, None)
    """
    return None if control is None else control.category


def pdn_time_control(control: TimeControl) -> str:
    """The PDN ``TimeControl`` tag value; ``"-"`` (PGN's "no time control") without a clock."""
    return "-" if control is None else control.pdn()


def time_control_to_dict(control: TimeControl) -> dict[str, int] | None:
    """The HTTP form: ``{"initial", "increment"}``, ``{"days"}`` or ``None``."""
    return None if control is None else control.to_dict()


def parse_time_control(data: Mapping[str, Any] | None) -> TimeControl:
    """Read the HTTP form ``{"initial", "increment"} | {"days"} | null``.

    Unknown keys and mixtures of the two forms are errors that name them.

    >>> parse_time_control({"initial": 60})
    Traceback (most recent call last):
    ...
    poolcheckers.server.domain_errors.TimeControlError: clock needs ... or "days", not ['initial']
    """
    if data is None:
        return None
    if not isinstance(data, Mapping):
        raise TimeControlError(M_("clock must be an object or null, not {data}", data=repr(data)))
    keys = set(data)
    if keys == {"initial", "increment"}:
        return Clock(data["initial"], data["increment"])
    if keys == {"days"}:
        return Correspondence(data["days"])
    raise TimeControlError(
        M_(
            'clock needs "initial" and "increment" (seconds) or "days", not {value}',
            value=sorted(keys),
        )
    )


#: The lobby's quick-pairing presets (as lichess's), in the order shown.
PRESETS: Final[tuple[Clock, ...]] = (
    Clock(60, 0),
    Clock(120, 1),
    Clock(180, 0),
    Clock(180, 2),
    Clock(300, 0),
    Clock(300, 3),
    Clock(600, 0),
    Clock(600, 5),
    Clock(900, 10),
    Clock(1800, 0),
    Clock(1800, 20),
)
