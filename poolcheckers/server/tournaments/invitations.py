"""Invitations to an event: the accounts an imported TRF file names
(:mod:`.imports`) answer on the event's page.  Accepting goes through the checks of
a join (no bot, the password, a rating in the range) and one more: a player who
blocks the director is refused (they unblock first).  A player who accepted is in:
paired from the next round of a running event, the event on their page (a finished
event too: accepting confirms its results are theirs).  Declining keeps them listed
as declined (their results stay the file's), never paired, the event not on their
page; they may still accept later.  The methods block: callers run them on the
database executor."""

from __future__ import annotations

from poolcheckers.server.accounts.model import User
from poolcheckers.server.accounts.repository import bots_among
from poolcheckers.server.challenges.repository import DbChallengeStore
from poolcheckers.server.i18n import M_
from poolcheckers.server.tournaments.model import (
    Tournament,
    TournamentConflict,
    TournamentForbidden,
)
from poolcheckers.server.tournaments.service import TournamentService


class Invitations:
    """Answers to invitations of ``service``'s events; ``blocks`` tells who blocks whom."""

    def __init__(self, service: TournamentService, blocks: DbChallengeStore) -> None:
        self.service = service
        self.blocks = blocks

    def pending(self, user: User) -> list[Tournament]:
        """The events that invite ``user`` and that they have not answered."""
        return self.service.store.invitations_of(user.id)

    def accept(self, tid: str, user: User, *, admitted: bool = False) -> None:
        """``user`` accepts the event's invitation (``admitted``: its password was
        given); ``forbidden`` by a check of a join, ``conflict`` with no invitation."""
        s = self.service
        t = s._get(tid)
        s.admission(t, user, admitted=admitted)
        if self.blocks.blocks(user.id, t.creator_id):
            raise TournamentForbidden(
                M_(
                    "you block {name}: unblock them to accept their event",
                    name=t.creator_name,
                )
            )
        with s.db.begin() as conn:
            s._lock(conn, tid)
            players = s.store.players(tid, conn)
            mine = next((p for p in players if p.user_id == user.id), None)
            if mine is None or mine.invitation is None:
                raise TournamentConflict(M_("you have no invitation to this event"))
            active = sum(p.playing for p in players)
            if t.status != "finished" and t.max_players is not None and active >= t.max_players:
                raise TournamentConflict(
                    M_(
                        "{name} is full ({max_players} players)",
                        name=t.name,
                        max_players=t.max_players,
                    )
                )
            if not s.store.answer(conn, tid, user.id, True, s._now()):
                raise TournamentConflict(M_("you have no invitation to this event"))
            if bots_among(conn, [user.id]):  # it became one meanwhile (read under a lock)
                raise TournamentForbidden(M_("a bot account cannot join tournaments"))
        s._changed(tid)

    def decline(self, tid: str, user: User) -> None:
        """``user`` declines the event's invitation."""
        s = self.service
        s._get(tid)
        with s.db.begin() as conn:
            if not s.store.answer(conn, tid, user.id, False, s._now()):
                raise TournamentConflict(M_("you have no invitation to this event to decline"))
        s._changed(tid)
