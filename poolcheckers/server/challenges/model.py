"""A direct challenge (plain code: no web server, no database): what is asked
(:class:`~poolcheckers.server.lobby.model.SeekSpec`: clock, colour, rated, rules),
between whom, and its life: ``open`` until accepted (the game starts), declined with
a reason, cancelled by its author, or expired; and whom a player takes challenges
from."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from poolcheckers.server.domain_errors import CommunityError
from poolcheckers.server.games.timecontrol import Category, time_control_to_dict
from poolcheckers.server.i18n import M_, N_
from poolcheckers.server.lobby.model import SeekSpec

Status = Literal["open", "accepted", "declined", "cancelled", "expired"]

#: what a declined challenge tells its author (lichess's reasons, pool's words)
DECLINE_REASONS: dict[str, str] = {
    "generic": N_("I'm not accepting challenges at the moment."),
    "later": N_("This is not the right time for me, please ask again later."),
    "too_fast": N_(
        "This time control is too fast for me, please challenge again with a slower game."
    ),
    "too_slow": N_(
        "This time control is too slow for me, please challenge again with a faster game."
    ),
    "time_control": N_("I'm not accepting challenges with this time control."),
    "rated": N_("Please send me a rated challenge instead."),
    "casual": N_("Please send me a casual challenge instead."),
    "rules": N_("I'm only accepting games on the APCA rules."),
}
#: how long an open challenge waits for its answer, by the game's category.  A game on
#: a running clock is played now: its challenger waits at the screen, a bullet or blitz
#: one only minutes; an untimed game is played now too.  A correspondence player may
#: look in once a day or so: three days.  (A week let a flood of challenges stand.)
TTL_MS: dict[Category | None, int] = {
    Category.BULLET: 5 * 60_000,
    Category.BLITZ: 5 * 60_000,
    Category.RAPID: 10 * 60_000,
    Category.CLASSICAL: 10 * 60_000,
    None: 10 * 60_000,
    Category.CORRESPONDENCE: 3 * 24 * 3600_000,
}
#: open challenges one player may have sent at once
MAX_OPEN = 10
#: open challenges one player may have received at once, from all senders together
MAX_RECEIVED = 10

#: whom a player takes challenges from: everyone, the players they have played a game
#: with, or nobody (``challenge_policies``; without a row, everyone)
Policy = Literal["everyone", "played", "nobody"]
POLICIES: tuple[Policy, ...] = ("everyone", "played", "nobody")


class ChallengeError(CommunityError):
    """A challenge that cannot be made or answered as asked; nothing changes."""

    field = "challenge"


class ChallengeForbidden(ChallengeError):
    code = "forbidden"


class ChallengeGone(ChallengeError):
    code = "not_found"


class ChallengeConflict(ChallengeError):
    code = "conflict"


def spec_of(data: Any) -> SeekSpec:
    """The game asked for, from ``POST /api/challenges`` (``clock``, ``color``,
    ``rated``, ``rules``)."""
    if not isinstance(data, dict):
        raise ChallengeError(M_("a challenge must be an object, not {data}", data=repr(data)))
    return SeekSpec.from_dict({k: v for k, v in data.items() if k != "username"})


def ttl_ms(spec: SeekSpec) -> int:
    return TTL_MS[spec.category]


def policy_of(value: object) -> Policy:
    """A policy from ``POST /api/challenges/policy``'s ``from``."""
    for policy in POLICIES:
        if value == policy:
            return policy
    raise ChallengeError(
        M_(
            "challenges may come from {value}, not {policy}",
            value=", ".join(POLICIES),
            policy=repr(value),
        )
    )


@dataclass(frozen=True, slots=True)
class Challenge:
    id: str
    challenger_id: str
    challenger: str
    challenged_id: str
    challenged: str
    spec: SeekSpec
    status: Status
    reason: str | None
    game_id: str | None
    created_ms: int
    expires_ms: int

    def shown_status(self, now_ms: int) -> Status:
        return "expired" if self.status == "open" and now_ms >= self.expires_ms else self.status

    def to_dict(self, now_ms: int) -> dict[str, Any]:
        return {
            "id": self.id,
            "challenger": self.challenger,
            "challenged": self.challenged,
            "clock": time_control_to_dict(self.spec.time_control),
            "category": None if self.spec.category is None else self.spec.category.value,
            "rated": self.spec.rated,
            "color": self.spec.color,
            "rules": self.spec.rules.to_dict(),
            "status": self.shown_status(now_ms),
            "reason": None if self.reason is None else DECLINE_REASONS.get(self.reason),
            "game": self.game_id,
            "created": self.created_ms // 1000,
            "expires": self.expires_ms // 1000,
        }
