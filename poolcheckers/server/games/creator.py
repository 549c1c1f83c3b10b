"""The one creator of games.  Every way a game begins goes through
:class:`GameCreator` with a :class:`~poolcheckers.server.games.model.NewGame`
spec: an open game from ``POST /api/games`` (:meth:`GameCreator.open`), the game
of a lobby pairing (:meth:`GameCreator.paired`), a rematch
(:meth:`GameCreator.rematch_of`); tournaments and bots are meant to start theirs
here too, so that the seats, clocks and PDN player tags of a new game, and the
limits on how many one client may start (:mod:`.admission`), are decided in one
place."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from poolcheckers import RuleSet
from poolcheckers.server import errors
from poolcheckers.server.games import model
from poolcheckers.server.games.admission import CreationLimits, client_key
from poolcheckers.server.games.flow import Seat, player_tags
from poolcheckers.server.games.model import GameRec, Loaded, NewGame
from poolcheckers.server.games.repository import Committed, GameStore
from poolcheckers.server.games.seats import give_seats, hash_token, new_game_id, new_token
from poolcheckers.server.games.timecontrol import (
    Clock,
    Correspondence,
    TimeControl,
    category_of,
)
from poolcheckers.server.lobby.model import Pairing
from poolcheckers.server.ratings.model import Perf

#: rated games two accounts may start against each other in 24 hours; more are
#: played casual (a pair resigning game after game would otherwise farm a rating)
RATED_PER_PAIR_PER_DAY = 10
DAY_MS = 24 * 3600 * 1000


class GameCreator:
    """Builds new games from a spec and stores them (``store``)."""

    def __init__(
        self,
        store: GameStore,
        *,
        engine_available: Callable[[], bool],
        usernames: Callable[[str], str | None],
        titles: Callable[[str], str | None] = lambda _user_id: None,
        rated_per_pair_per_day: int = RATED_PER_PAIR_PER_DAY,
        limits: CreationLimits | None = None,
    ) -> None:
        self.store = store
        #: how many games a client may start (None: no limit, for tools and tests
        #: that build a service without a site)
        self.limits = limits
        self.rated_per_pair_per_day = rated_per_pair_per_day
        self.engine_available = engine_available
        self.usernames = usernames
        #: an account's PDN title (BOT), written beside its name
        self.titles = titles

    def _new(self, spec: NewGame, now: int) -> GameRec:
        if spec.mode == "engine" and not self.engine_available():
            raise errors.engine_unavailable()
        return model.new_game(spec, new_game_id(), now)

    def open(
        self, spec: NewGame, user_id: str | None = None, address: str | None = None
    ) -> tuple[Committed, str, str | None]:
        """Create and store a game; returns it, the creator's token and the
        invitation token.  A signed-in creator's seat is also bound to their
        account ``user_id``, and named in the PDN tags (shown on the game page).
        A request's client ``address`` is held to the creation limits first
        (``rate_limited``, nothing stored)."""
        now = self.store.clock.now_ms()
        game = self._new(spec, now)
        limits = self.limits if address is not None else None
        if limits is not None and address is not None:
            limits.admit(spec.mode, address, client_key(address, user_id), game.id)
        token = new_token()
        give_seats(game, token, spec.color, user_id)
        if spec.mode != "local":
            self.name_player(game, spec.color, user_id, both=False)
        invite = new_token() if spec.mode == "online" else None
        if invite is not None:
            game.invite_hash = hash_token(invite)
        loaded = Loaded(game, [], model.replay(game, []))
        try:
            self.store.insert(loaded)
        except BaseException:
            if limits is not None and spec.mode == "engine":
                limits.ended(game.id)
            raise
        return Committed(loaded, now, game.engine_to_move(loaded.board)), token, invite

    def name_player(self, game: GameRec, side: str, user_id: str | None, *, both: bool) -> None:
        """Name the player of ``side`` in the PDN tags (shown on the game page) when
        they play on an account.  With ``both`` (the second player has come), once
        either player is named the other is too, ``Anonymous`` when signed out."""
        name = None if user_id is None else self.usernames(user_id)
        if name is None and not (both and game.tags):
            return
        game.tags = {**(game.tags or {}), side.capitalize(): name or "Anonymous"}
        title = None if user_id is None else self.titles(user_id)
        if title:  # lichess's tag: the game page and the PDN mark a bot
            game.tags[f"{side.capitalize()}Title"] = title
        if both:
            game.tags.setdefault(model.other(side).capitalize(), "Anonymous")

    def admit_rematch(self, g: GameRec, address: str, user_id: str | None, new_id: str) -> None:
        """A rematch against the engine is a new engine game: the client's limits
        hold for it as for one created anew (other rematches need both players)."""
        if self.limits is not None and g.mode == "engine":
            self.limits.admit("engine", address, client_key(address, user_id), new_id)

    def rematch_of(self, g: GameRec, game_id: str, now: int) -> GameRec:
        """The rematch of ``g``: colours swapped (the seats' tokens and the engine's
        side), the same rules, start position, level and clock, nothing played; a rated
        game's rematch is rated too (as on lichess), within the pair's daily limit."""
        game = model.blank_record(game_id, g.mode, RuleSet.from_dict(g.rules), g.start_fen, now)
        game.level = g.level
        game.engine_color = model.other(g.engine_color) if g.engine_color is not None else None
        game.black_token_hash, game.white_token_hash = g.white_token_hash, g.black_token_hash
        game.black_user_id, game.white_user_id = g.white_user_id, g.black_user_id
        game.rematch_of = g.id
        if g.tags and g.mode != "imported":  # the players' names change sides too
            names = {
                "Black": g.tags.get("White"),
                "White": g.tags.get("Black"),
                "BlackTitle": g.tags.get("WhiteTitle"),
                "WhiteTitle": g.tags.get("BlackTitle"),
            }
            game.tags = {k: v for k, v in names.items() if v is not None} or None
        black, white = game.black_user_id, game.white_user_id
        if g.rated and black is not None and white is not None:
            game.rated = self.rated_allowed(black, white, now)
            game.category = g.category
        game.clock_initial_ms = game.black_ms = game.white_ms = g.clock_initial_ms
        game.clock_increment_ms = g.clock_increment_ms
        game.days_per_move = g.days_per_move  # a correspondence game's rematch is one too
        return game

    def rated_allowed(self, black_id: str, white_id: str, now: int) -> bool:
        """Whether the pair may start one more rated game today (the count is the
        database's, so every server process sees the same)."""
        played = self.store.rated_between(black_id, white_id, now - DAY_MS)
        return played < self.rated_per_pair_per_day

    def paired(
        self,
        pairing: Pairing,
        black: Perf | None,
        white: Perf | None,
        *,
        titles: Mapping[str, str | None] | None = None,
        rated_today: int | None = None,
    ) -> Committed:
        """The game of a lobby pairing, not stored yet (the lobby stores it in the
        transaction that removes the seek): both seats on the players' accounts,
        the ratings at the start (``black``, ``white``), its clock running from now,
        so that it starts for both at once.  ``titles``: the players' PDN titles as
        the caller read them (by account id; others are looked up); ``rated_today``:
        the rated games the pair started in the last :data:`DAY_MS`, as the caller
        counted them (None: counted here)."""
        spec = pairing.spec
        if not spec.rated:
            rated = False
        elif rated_today is not None:
            rated = rated_today < self.rated_per_pair_per_day
        else:
            now = self.store.clock.now_ms()
            rated = self.rated_allowed(pairing.black.id, pairing.white.id, now)
        return self.between(
            (pairing.black.id, pairing.black.name, black),
            (pairing.white.id, pairing.white.name, white),
            spec.time_control,
            spec.rules,
            rated=rated,
            titles=titles,
        )

    def between(
        self,
        black: tuple[str, str | None, Perf | None],
        white: tuple[str, str | None, Perf | None],
        tc: TimeControl,
        rules: RuleSet,
        *,
        rated: bool,
        tags: dict[str, str] | None = None,
        tournament_id: str | None = None,
        titles: Mapping[str, str | None] | None = None,
    ) -> Committed:
        """A game between two accounts (id, name, rating at the start), not stored
        yet: a lobby pairing's or a tournament's, its clock running from now so that
        it starts for both at once; ``tags`` are added to the players' (a
        tournament's ``Event``, ``Round``, ``Board``); ``titles`` as in :meth:`paired`."""
        clock = tc if isinstance(tc, Clock) else None
        new = NewGame(
            mode="online",
            rules=rules.to_dict(),
            clock_initial=None if clock is None else float(clock.initial),
            clock_increment=0.0 if clock is None else float(clock.increment),
        )
        now = self.store.clock.now_ms()
        game = self._new(new, now)
        game.black_user_id, game.white_user_id = black[0], white[0]
        game.rated = rated
        category = category_of(tc)
        game.category = None if category is None else category.value
        game.tournament_id = tournament_id
        if isinstance(tc, Correspondence):
            game.days_per_move = tc.days
        if black[2] is not None:
            game.black_rating = int(black[2].glicko.rating)
        if white[2] is not None:
            game.white_rating = int(white[2].glicko.rating)
        known = titles or {}
        marks = {
            f"{side}Title": title
            for side, user_id in (("Black", black[0]), ("White", white[0]))
            if (title := known[user_id] if user_id in known else self.titles(user_id))
        }
        game.tags = {
            **(tags or {}),
            **player_tags(Seat(black[1], game.black_rating), Seat(white[1], game.white_rating), tc),
            **marks,
        }
        # the archive's search by event finds a tournament's games by its name, as it
        # finds an imported game by its Event tag
        game.event = game.tags.get("Event")
        model.start_clock(game, "black", now)
        loaded = Loaded(game, [], model.replay(game, []))
        return Committed(loaded, now, False)
