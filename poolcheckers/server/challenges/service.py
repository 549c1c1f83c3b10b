"""Direct challenges as the server runs them (``ctx.challenges``): send one to a named
player, accept it (the game starts for both, through the one game creator, in the
commit that settles the challenge), decline it with a reason, cancel it; block a
player (their challenges stop, and those open between you are cancelled); choose
whom you take challenges from.  A player has at most ``MAX_OPEN`` challenges sent
and ``MAX_RECEIVED`` received waiting at once, in every process together.  Both
players' lobby sockets, in every server process, hear of each change."""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable

from poolcheckers.server import errors
from poolcheckers.server.accounts.model import User, username_key
from poolcheckers.server.accounts.repository import DbUserStore
from poolcheckers.server.challenges.model import (
    DECLINE_REASONS,
    MAX_OPEN,
    MAX_RECEIVED,
    Challenge,
    ChallengeConflict,
    ChallengeError,
    ChallengeForbidden,
    ChallengeGone,
    Policy,
    policy_of,
    spec_of,
    ttl_ms,
)
from poolcheckers.server.challenges.repository import DbChallengeStore
from poolcheckers.server.games.creator import GameCreator
from poolcheckers.server.games.repository import Committed
from poolcheckers.server.i18n import M_
from poolcheckers.server.quotas import Quotas, Rate
from poolcheckers.server.ratings.service import RatingService
from poolcheckers.server.timesource import TimeSource

#: challenges one account may send in an hour (each one is a notice to someone)
SENT_PER_HOUR = Rate("challenges:sent", 30, 3600)
#: answered challenges stay listed this long (so that an author reads the reason)
SHOWN_MS = 24 * 3600_000


class ChallengeService:
    def __init__(
        self,
        store: DbChallengeStore,
        users: DbUserStore,
        creator: GameCreator,
        ratings: RatingService,
        clock: TimeSource,
        announce: Callable[[str, set[str]], None],
        quotas: Quotas | None = None,
    ) -> None:
        self.store = store
        self.users = users
        self.creator = creator
        self.ratings = ratings
        self.clock = clock
        #: a message to the lobby sockets of some accounts (in every process)
        self.announce = announce
        #: the rates shared by every process (challenges sent per account)
        self.quotas = quotas

    def _tell(self, c: Challenge, kind: str, **extra: object) -> None:
        now = self.clock.now_ms()
        message = {"type": kind, "challenge": c.to_dict(now), **extra}
        self.announce(json.dumps(message), {c.challenger_id, c.challenged_id})

    def _user(self, username: object) -> User:
        if not isinstance(username, str):
            raise ChallengeError(
                M_("username must be text, not {username}", username=repr(username))
            )
        user = self.users.by_key(username_key(username))
        if user is None:
            raise ChallengeGone(M_("no player named {username}", username=repr(username)))
        return user

    def create(self, me: User, data: dict[str, object]) -> Challenge:
        target = self._user(data.get("username"))
        if target.id == me.id:
            raise ChallengeError(M_("you cannot challenge yourself"))
        self._admitted(me, target)
        spec = spec_of(data)
        now = self.clock.now_ms()
        self._under_caps(me, target, now)
        if self.quotas is not None:
            decision = self.quotas.hit(SENT_PER_HOUR, me.id)
            if not decision.allowed:
                raise errors.limit_reached(
                    M_(
                        "at most {limit} challenges an hour from one account",
                        limit=SENT_PER_HOUR.limit,
                    ),
                    decision.retry_after,
                )
        c = Challenge(
            id=secrets.token_urlsafe(6)[:8],
            challenger_id=me.id,
            challenger=me.username,
            challenged_id=target.id,
            challenged=target.username,
            spec=spec,
            status="open",
            reason=None,
            game_id=None,
            created_ms=now,
            expires_ms=now + ttl_ms(spec),
        )
        stored = self.store.insert(
            c, MAX_OPEN, MAX_RECEIVED, frozenset(u.id for u in (me, target) if u.bot)
        )
        if stored == "full":
            # another request (of any process) took the last place meanwhile
            self._under_caps(me, target, now)
            raise ChallengeConflict(M_("too many challenges are waiting: try again later"))
        if stored == "bots":
            raise ChallengeConflict(
                M_("a player of this challenge became a bot account meanwhile: send it again")
            )
        self._tell(c, "challenge")
        return c

    def _admitted(self, me: User, target: User) -> None:
        """The challenged takes challenges from ``me``: not blocked, and their policy."""
        if self.store.blocks(target.id, me.id):
            raise ChallengeForbidden(
                M_("{username} does not accept challenges from you", username=target.username)
            )
        policy = self.store.policy(target.id)
        if policy == "nobody":
            raise ChallengeForbidden(
                M_("{username} does not accept challenges", username=target.username)
            )
        if policy == "played" and not self.store.have_played(target.id, me.id):
            raise ChallengeForbidden(
                M_(
                    "{username} accepts challenges only from players they have played",
                    username=target.username,
                )
            )

    def _under_caps(self, me: User, target: User, now: int) -> None:
        """Refuse, saying which, when either player has the most open challenges."""
        if self.store.open_from(me.id, now) >= MAX_OPEN:
            raise ChallengeConflict(
                M_(
                    "you have {MAX_OPEN} challenges waiting for an answer: cancel one first",
                    MAX_OPEN=MAX_OPEN,
                )
            )
        if self.store.open_to(target.id, now) >= MAX_RECEIVED:
            raise ChallengeConflict(
                M_(
                    "{username} has {limit} challenges waiting for an answer already: "
                    "try again later",
                    username=target.username,
                    limit=MAX_RECEIVED,
                )
            )

    def policy(self, me: User) -> Policy:
        """Whom ``me`` takes challenges from."""
        return self.store.policy(me.id)

    def set_policy(self, me: User, value: object) -> Policy:
        policy = policy_of(value)
        self.store.set_policy(me.id, policy, self.clock.now_ms())
        return policy

    def _open(self, cid: str) -> Challenge:
        c = self.store.get(cid)
        if c is None:
            raise ChallengeGone(M_("no challenge with id {cid}", cid=repr(cid)))
        status = c.shown_status(self.clock.now_ms())
        if status != "open":
            raise ChallengeConflict(M_("this challenge is {status}", status=status))
        return c

    def accept(self, me: User, cid: str) -> Committed:
        """The challenged player accepts: the game starts for both (Black moves first,
        R3; the challenger's colour as asked, or drawn by lot)."""
        c = self._open(cid)
        if c.challenged_id != me.id:
            raise ChallengeForbidden(M_("only the challenged player may accept"))
        first = c.spec.color
        if first == "random":
            first = secrets.choice(("black", "white"))
        challenger = (c.challenger_id, c.challenger)
        challenged = (c.challenged_id, c.challenged)
        black, white = (challenger, challenged) if first == "black" else (challenged, challenger)
        category = c.spec.category
        now = self.clock.now_ms()
        committed = self.creator.between(
            (*black, self.ratings.perf(black[0], category)),
            (*white, self.ratings.perf(white[0], category)),
            c.spec.time_control,
            c.spec.rules,
            rated=c.spec.rated and self.creator.rated_allowed(black[0], white[0], now),
        )
        game_id = committed.loaded.game.id
        won = self.creator.store.insert_many(
            [committed.loaded],
            lambda conn: self.store.settle(conn, cid, now, "accepted", game_id=game_id),
        )
        if not won:
            raise ChallengeConflict(M_("this challenge was answered or cancelled meanwhile"))
        if self.creator.store.on_change is not None:
            self.creator.store.on_change(committed)
        accepted = self.store.get(cid)
        assert accepted is not None
        self._tell(accepted, "challenge_accepted")
        self.announce(json.dumps({"type": "game", "id": game_id}), {c.challenger_id})
        return committed

    def decline(self, me: User, cid: str, reason: str = "generic") -> Challenge:
        if reason not in DECLINE_REASONS:
            raise ChallengeError(
                M_(
                    "reason must be one of {value}, not {reason}",
                    value=", ".join(sorted(DECLINE_REASONS)),
                    reason=repr(reason),
                )
            )
        c = self._open(cid)
        if c.challenged_id != me.id:
            raise ChallengeForbidden(M_("only the challenged player may decline"))
        if not self.store.settle_now(cid, self.clock.now_ms(), "declined", reason=reason):
            raise ChallengeConflict(M_("this challenge was answered or cancelled meanwhile"))
        answered = self.store.get(cid)
        assert answered is not None
        self._tell(answered, "challenge_declined")
        return answered

    def cancel(self, me: User, cid: str) -> Challenge:
        c = self._open(cid)
        if c.challenger_id != me.id:
            raise ChallengeForbidden(M_("only the challenger may cancel"))
        if not self.store.settle_now(cid, self.clock.now_ms(), "cancelled"):
            raise ChallengeConflict(M_("this challenge was answered meanwhile"))
        done = self.store.get(cid)
        assert done is not None
        self._tell(done, "challenge_cancelled")
        return done

    def listed(self, me: User) -> list[Challenge]:
        return self.store.of(me.id, self.clock.now_ms() - SHOWN_MS)

    def block(self, me: User, username: str) -> None:
        target = self._user(username)
        if target.id == me.id:
            raise ChallengeError(M_("you cannot block yourself"))
        self.store.block(me.id, target.id, self.clock.now_ms())
        self.store.cancel_between(me.id, target.id)

    def unblock(self, me: User, username: str) -> None:
        self.store.unblock(me.id, self._user(username).id)

    def blocked(self, me: User) -> list[str]:
        names = self.users.names(set(self.store.blocked_by(me.id)))
        return sorted(names.values(), key=str.lower)
