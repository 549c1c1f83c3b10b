"""The lobby: open challenges ("seeks"), accepting them, and "play now".

A :class:`SeekSpec` is what a player asks for: a time control, rated or
casual, a colour (``black``, ``white`` or ``random``), the §9 rule options
(docs/RULES.md; rated games use the APCA rules) and optionally the range of
opponent ratings.  Posting it makes a :class:`Seek`.  Accepting a seek removes
it from the lobby in one compare-and-set step (:meth:`LobbyStore.take`), so of
two players accepting at once exactly one gets the game; the other is told the
seek is gone.  A seek also goes when its author cancels it or leaves.

>>> import random
>>> from poolcheckers import RuleSet
>>> from poolcheckers.server.games.timecontrol import Clock
>>> lobby = Lobby(MemoryLobbyStore(), rng=random.Random(1), clock=lambda: 0.0)
>>> ann, bob = LobbyPlayer("u1", "Ann"), LobbyPlayer("u2", "Bob")
>>> seek = lobby.post(ann, SeekSpec(Clock(300, 3), rated=True, color="random"))
>>> [str(s.spec) for s in lobby.seeks()]
['5+3 blitz rated random apca']
>>> pairing = lobby.accept(seek.id, bob)
>>> pairing.black.name, pairing.white.name, lobby.seeks()
('Ann', 'Bob', [])
>>> lobby.accept(seek.id, LobbyPlayer("u3", "Cy"))
Traceback (most recent call last):
...
poolcheckers.server.domain_errors.SeekGoneError: seek ... was taken, cancelled or withdrawn
>>> SeekSpec(Clock(300, 3), rated=True, rules=RuleSet(crown_during_capture="stop"))
Traceback (most recent call last):
...
poolcheckers.server.domain_errors.SeekError: rated games use the APCA rules (docs/RULES.md §9); ...
"""

from __future__ import annotations

import random
import secrets
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal, Protocol, get_args

from poolcheckers.errors import PoolCheckersError
from poolcheckers.pieces import Color
from poolcheckers.rules import RuleSet
from poolcheckers.server.domain_errors import (
    CommunityError,
    SeekError,
    SeekForbiddenError,
    SeekGoneError,
)
from poolcheckers.server.games.timecontrol import (
    Category,
    TimeControl,
    category_of,
    parse_time_control,
    time_control_to_dict,
)
from poolcheckers.server.i18n import M_
from poolcheckers.server.ratings.model import Perf

SeekColor = Literal["black", "white", "random"]
RemovalReason = Literal["taken", "cancelled", "left", "playing"]
#: Open seeks one player may have at once.
MAX_SEEKS_PER_AUTHOR: Final = 5
#: Bounds of a seek's opponent rating range (as lichess's).
RATING_RANGE_BOUNDS: Final = (400, 2900)


@dataclass(frozen=True, slots=True)
class LobbyPlayer:
    """Someone in the lobby: ``id`` is the account's id, or an anonymous visitor's
    (never shown); ``name`` is the username, None for an anonymous visitor."""

    id: str
    name: str | None = None

    @property
    def registered(self) -> bool:
        return self.name is not None

    @property
    def shown_name(self) -> str:
        """The name as the lobby shows it (to be HTML-escaped by whoever renders it)."""
        return self.name if self.name is not None else "Anonymous"


def rating_range_of(
    value: object, error: type[CommunityError] = SeekError
) -> tuple[int, int] | None:
    """``[low, high]`` of whole ratings within :data:`RATING_RANGE_BOUNDS`, or None;
    ``error`` (a seek's, a tournament's) names what is wrong otherwise."""
    if value is None:
        return None
    if (
        not isinstance(value, list | tuple)
        or len(value) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    ):
        raise error(f"rating_range must be [low, high] whole ratings or null, not {value!r}")
    low, high = value
    lo_bound, hi_bound = RATING_RANGE_BOUNDS
    if not lo_bound <= low <= high <= hi_bound:
        raise error(
            f"rating_range must have {lo_bound} <= low <= high <= {hi_bound}, not [{low}, {high}]"
        )
    return (low, high)


@dataclass(frozen=True, slots=True)
class SeekSpec:
    """What a seek asks for; invalid combinations are refused when it is made."""

    time_control: TimeControl
    rated: bool = False
    color: SeekColor = "random"
    rules: RuleSet = field(default_factory=RuleSet.apca)
    rating_range: tuple[int, int] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.rated, bool):
            raise SeekError(M_("rated must be true or false, not {rated}", rated=repr(self.rated)))
        if self.color not in get_args(SeekColor):
            raise SeekError(
                M_(
                    "color must be 'black', 'white' or 'random', not {color}",
                    color=repr(self.color),
                )
            )
        if not isinstance(self.rules, RuleSet):
            raise SeekError(M_("rules must be a RuleSet, not {rules}", rules=repr(self.rules)))
        object.__setattr__(self, "rating_range", rating_range_of(self.rating_range))
        if self.rated and self.rules != RuleSet.apca():
            raise SeekError(
                M_(
                    "rated games use the APCA rules (docs/RULES.md §9); {name} is for casual games only",  # noqa: E501
                    name=self.rules.name,
                )
            )
        if self.rated and self.time_control is None:
            raise SeekError(
                M_("rated games need a clock or correspondence days; without one: casual")
            )

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SeekSpec:
        """From the body of ``POST /api/seeks``: ``{"clock", "rated", "color", "rules",
        "rating_range"}``; every key but ``clock`` may be left out.

        >>> SeekSpec.from_dict({"clock": {"days": 3}, "rated": True}).category
        <Category.CORRESPONDENCE: 'correspondence'>
        """
        if not isinstance(data, Mapping):
            raise SeekError(M_("a seek must be an object, not {data}", data=repr(data)))
        known = {"clock", "rated", "color", "rules", "rating_range"}
        unknown = sorted(set(data) - known)
        if unknown:
            raise SeekError(
                M_(
                    "unknown seek fields {unknown} (a seek has: {value})",
                    unknown=unknown,
                    value=", ".join(sorted(known)),
                )
            )
        if "clock" not in data:
            raise SeekError(M_('a seek needs "clock" ({"initial", "increment"}, {"days"} or null)'))
        rules_data = data.get("rules") or {}
        if not isinstance(rules_data, Mapping):
            raise SeekError(
                M_(
                    "rules must be an object of §9 options, not {rules_data}",
                    rules_data=repr(rules_data),
                )
            )
        try:
            rules = RuleSet.from_dict(rules_data)
        except PoolCheckersError as error:
            raise SeekError(str(error)) from error
        return cls(
            parse_time_control(data["clock"]),
            rated=data.get("rated", False),
            color=data.get("color", "random"),
            rules=rules,
            rating_range=data.get("rating_range"),
        )

    @property
    def category(self) -> Category | None:
        """The rating category of the game it makes (None without a clock)."""
        return category_of(self.time_control)

    @property
    def real_time(self) -> bool:
        """True for a clock game (not correspondence, not unlimited)."""
        return self.category not in (None, Category.CORRESPONDENCE)

    def to_dict(self) -> dict[str, object]:
        return {
            "clock": time_control_to_dict(self.time_control),
            "category": None if self.category is None else self.category.value,
            "rated": self.rated,
            "color": self.color,
            "rules": self.rules.to_dict(),
            "rating_range": list(self.rating_range) if self.rating_range else None,
        }

    def __str__(self) -> str:
        clock = "unlimited" if self.time_control is None else str(self.time_control)
        category = f" {self.category.value}" if self.category else ""
        rated = "rated" if self.rated else "casual"
        return f"{clock}{category} {rated} {self.color} {self.rules.name}"


@dataclass(frozen=True, slots=True)
class Seek:
    """An open challenge in the lobby."""

    id: str
    author: LobbyPlayer
    spec: SeekSpec
    created: float
    #: The author's rating in the seek's category when posted (None: anonymous or unlimited).
    author_perf: Perf | None = None

    def to_dict(self) -> dict[str, object]:
        """As ``GET /api/seeks`` lists it.  Carries the author's name, never their id."""
        return {
            "id": self.id,
            "author": self.author.name,
            "rating": None if self.author_perf is None else self.author_perf.to_dict(),
            **self.spec.to_dict(),
            "created": self.created,
        }


@dataclass(frozen=True, slots=True)
class Pairing:
    """Two players and the game they start: the seek taken, who plays which colour."""

    seek: Seek
    black: LobbyPlayer
    white: LobbyPlayer

    @property
    def spec(self) -> SeekSpec:
        return self.seek.spec


@dataclass(frozen=True, slots=True)
class LobbyEvent:
    """A change of the lobby's list, for its live view (WebSocket) and other processes."""

    kind: Literal["added", "removed"]
    seek: Seek
    reason: RemovalReason | None = None

    def to_dict(self) -> dict[str, object]:
        if self.kind == "added":
            return {"type": "seek_added", "seek": self.seek.to_dict()}
        return {"type": "seek_removed", "id": self.seek.id, "reason": self.reason}


class LobbyStore(Protocol):
    """Where open seeks live.  The database implements :meth:`take` as
    ``DELETE FROM seeks WHERE id = :id RETURNING …``: one winner per seek."""

    def insert(self, seek: Seek) -> None: ...

    def get(self, seek_id: str) -> Seek | None: ...

    def open_seeks(self) -> list[Seek]:
        """Every open seek, oldest first."""
        ...

    def take(self, seek_id: str) -> Seek | None:
        """Remove the seek and return it, if it is still open; None if it is gone."""
        ...

    def by_author(self, author_id: str) -> list[Seek]:
        """The author's open seeks, oldest first."""
        ...

    def by_authors(self, author_ids: list[str]) -> list[Seek]:
        """The open seeks of any of these authors, oldest first."""
        ...


class MemoryLobbyStore:
    """A :class:`LobbyStore` in memory, safe across threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._seeks: dict[str, Seek] = {}

    def insert(self, seek: Seek) -> None:
        with self._lock:
            if seek.id in self._seeks:
                raise SeekError(M_("seek id {id} is already in use", id=repr(seek.id)))
            self._seeks[seek.id] = seek

    def get(self, seek_id: str) -> Seek | None:
        with self._lock:
            return self._seeks.get(seek_id)

    def open_seeks(self) -> list[Seek]:
        with self._lock:
            return list(self._seeks.values())

    def take(self, seek_id: str) -> Seek | None:
        with self._lock:
            return self._seeks.pop(seek_id, None)

    def by_author(self, author_id: str) -> list[Seek]:
        return self.by_authors([author_id])

    def by_authors(self, author_ids: list[str]) -> list[Seek]:
        with self._lock:
            return [s for s in self._seeks.values() if s.author.id in author_ids]


def seek_gone(seek_id: str) -> SeekGoneError:
    """The error of a seek taken by someone else, cancelled or withdrawn."""
    return SeekGoneError(M_("seek {seek_id} was taken, cancelled or withdrawn", seek_id=seek_id))


def colors_compatible(a: SeekColor, b: SeekColor) -> bool:
    """Two colour wishes that can both be met (one of them random, or black with white).

    >>> colors_compatible("black", "white"), colors_compatible("black", "black")
    (True, False)
    """
    return a == "random" or b == "random" or a != b


def _in_range(perf: Perf | None, wanted: tuple[int, int] | None) -> bool:
    if wanted is None:
        return True
    if perf is None:
        return False
    return wanted[0] <= int(perf.glicko.rating) <= wanted[1]


def matches(seek: Seek, spec: SeekSpec, player: LobbyPlayer, perf: Perf | None = None) -> bool:
    """Whether ``player`` asking for ``spec`` (rating ``perf`` in its category) can take
    ``seek`` for "play now": not their own, the same clock, rated flag and rules,
    compatible colours, and each side within the other's rating range."""
    other = seek.spec
    return (
        seek.author.id != player.id
        and other.time_control == spec.time_control
        and other.rated == spec.rated
        and other.rules == spec.rules
        and colors_compatible(other.color, spec.color)
        and _in_range(perf, other.rating_range)
        and _in_range(seek.author_perf, spec.rating_range)
    )


def assign_colors(
    seek: Seek, taker: LobbyPlayer, rng: random.Random, taker_color: SeekColor = "random"
) -> tuple[LobbyPlayer, LobbyPlayer]:
    """(Black, White) for a taken seek: the author's wish, else the taker's, else a coin toss.

    >>> s = Seek("s", LobbyPlayer("a", "Ann"), SeekSpec(None, color="white"), 0.0)
    >>> [p.name for p in assign_colors(s, LobbyPlayer("b", "Bob"), random.Random())]
    ['Bob', 'Ann']
    """
    wish = seek.spec.color
    if wish == "random" and taker_color != "random":
        wish = "white" if taker_color == "black" else "black"
    if wish == "random":
        wish = "black" if rng.random() < 0.5 else "white"
    return (seek.author, taker) if wish == "black" else (taker, seek.author)


def _new_id() -> str:
    return secrets.token_urlsafe(6)


class Lobby:
    """The lobby's rules over a :class:`LobbyStore`; listeners hear every change.

    ``rng`` tosses the coin for random colours; ``clock`` (epoch seconds) dates
    the seeks; both are injectable for tests.
    """

    def __init__(
        self,
        store: LobbyStore,
        *,
        rng: random.Random | None = None,
        clock: Callable[[], float] = time.time,
        new_id: Callable[[], str] = _new_id,
        max_seeks_per_author: int = MAX_SEEKS_PER_AUTHOR,
    ) -> None:
        self.store = store
        self.rng = rng if rng is not None else random.Random()
        self.clock = clock
        self.new_id = new_id
        self.max_seeks_per_author = max_seeks_per_author
        self._listeners: list[Callable[[LobbyEvent], None]] = []

    def subscribe(self, listener: Callable[[LobbyEvent], None]) -> Callable[[], None]:
        """Call ``listener`` on every change; returns the function that unsubscribes."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    def _emit(self, event: LobbyEvent) -> None:
        for listener in list(self._listeners):
            listener(event)

    def seeks(self) -> list[Seek]:
        """The open seeks, oldest first."""
        return self.store.open_seeks()

    def post(self, author: LobbyPlayer, spec: SeekSpec, author_perf: Perf | None = None) -> Seek:
        """Open a seek.  Rated seeks need an account; a player has at most
        :data:`MAX_SEEKS_PER_AUTHOR` open seeks."""
        if spec.rated and not author.registered:
            raise SeekForbiddenError(
                M_("rated games need an account: sign in to post a rated seek")
            )
        if len(self.store.by_author(author.id)) >= self.max_seeks_per_author:
            raise SeekError(
                M_(
                    "at most {max_seeks_per_author} open seeks at once: cancel one first",
                    max_seeks_per_author=self.max_seeks_per_author,
                )
            )
        seek = Seek(self.new_id(), author, spec, self.clock(), author_perf)
        self.store.insert(seek)
        self._emit(LobbyEvent("added", seek))
        return seek

    def _check_taker(self, seek: Seek, taker: LobbyPlayer, perf: Perf | None) -> None:
        if seek.author.id == taker.id:
            raise SeekForbiddenError(M_("seek {id} is your own: cancel it instead", id=seek.id))
        if seek.spec.rated and not taker.registered:
            raise SeekForbiddenError(M_("rated games need an account: sign in to accept this seek"))
        if not _in_range(perf, seek.spec.rating_range):
            low, high = seek.spec.rating_range or (0, 0)
            shown = "no rating" if perf is None else f"{int(perf.glicko.rating)}"
            raise SeekForbiddenError(
                M_(
                    "seek {id} is for ratings {low}-{high}; you have {shown}",
                    id=seek.id,
                    low=low,
                    high=high,
                    shown=shown,
                )
            )

    def accept(
        self,
        seek_id: str,
        taker: LobbyPlayer,
        taker_perf: Perf | None = None,
        taker_color: SeekColor = "random",
        *,
        take: Callable[[Pairing], bool] | None = None,
        seek: Seek | None = None,
        others: list[Seek] | None = None,
    ) -> Pairing:
        """Take a seek: the pairing to start the game from, or :class:`SeekGoneError` if
        another player took it first (or it was cancelled).

        ``take`` removes the seek in place of ``store.take``, with the pairing in hand:
        a store keeping games too removes the seek and stores the game in one atomic
        step (False: the seek was gone, nothing stored).  ``seek``: the seek as the
        caller already read it (the removal still decides whether it is open);
        ``others``: the other open seeks of its author and of the taker, read with it
        (None: read after the take, when a clock game's start removes them)."""
        if seek is None or seek.id != seek_id:
            seek, others = self.store.get(seek_id), None
        if seek is None:
            raise seek_gone(seek_id)
        self._check_taker(seek, taker, taker_perf)
        black, white = assign_colors(seek, taker, self.rng, taker_color)
        pairing = Pairing(seek, black, white)
        taken = take(pairing) if take is not None else self.store.take(seek_id) is not None
        if not taken:
            raise seek_gone(seek_id)
        self._emit(LobbyEvent("removed", seek, "taken"))
        if seek.spec.real_time:
            # As on lichess: someone starting a clock game is no longer waiting for another.
            players = [seek.author.id, taker.id]
            self._remove(players, "playing", lambda s: s.spec.real_time, others)
        return pairing

    def cancel(self, seek_id: str, by: LobbyPlayer) -> Seek:
        """The author withdraws their seek."""
        seek = self.store.get(seek_id)
        if seek is None:
            raise seek_gone(seek_id)
        if seek.author.id != by.id:
            raise SeekForbiddenError(M_("seek {seek_id} is not yours to cancel", seek_id=seek_id))
        if self.store.take(seek_id) is None:
            raise seek_gone(seek_id)
        self._emit(LobbyEvent("removed", seek, "cancelled"))
        return seek

    def _remove(
        self,
        author_ids: list[str],
        reason: RemovalReason,
        which: Callable[[Seek], bool],
        seeks: list[Seek] | None = None,
    ) -> list[Seek]:
        """Take the open seeks of ``author_ids`` that are ``which`` (of ``seeks`` when
        the caller has read them already)."""
        removed = []
        for seek in self.store.by_authors(author_ids) if seeks is None else seeks:
            if which(seek) and self.store.take(seek.id) is not None:
                removed.append(seek)
                self._emit(LobbyEvent("removed", seek, reason))
        return removed

    def leave(self, author_id: str, *, correspondence_too: bool = False) -> list[Seek]:
        """The author left the lobby (closed its page, signed out): their clock and
        unlimited seeks go; correspondence seeks stay unless ``correspondence_too``."""

        def going(seek: Seek) -> bool:
            return correspondence_too or seek.spec.category is not Category.CORRESPONDENCE

        return self._remove([author_id], "left", going)

    def play_now(
        self,
        player: LobbyPlayer,
        spec: SeekSpec,
        perf: Perf | None = None,
        *,
        take: Callable[[Pairing], bool] | None = None,
    ) -> Pairing | Seek:
        """Pair with the oldest matching seek (:func:`matches`), or post ``spec`` as a
        seek; ``take`` as in :meth:`accept`."""
        for seek in self.store.open_seeks():
            if not matches(seek, spec, player, perf):
                continue
            try:
                return self.accept(seek.id, player, perf, spec.color, take=take)
            except SeekGoneError:
                continue  # someone else took it meanwhile: try the next
        return self.post(player, spec, perf)


def side_of(pairing: Pairing, player: LobbyPlayer) -> Color:
    """The colour ``player`` plays in ``pairing``.

    >>> s = Seek("s", LobbyPlayer("a"), SeekSpec(None, color="black"), 0.0)
    >>> side_of(Pairing(s, LobbyPlayer("a"), LobbyPlayer("b")), LobbyPlayer("b"))
    <Color.WHITE: 1>
    """
    if pairing.black.id == player.id:
        return Color.BLACK
    if pairing.white.id == player.id:
        return Color.WHITE
    raise SeekError(M_("{shown_name} does not play in this pairing", shown_name=player.shown_name))
