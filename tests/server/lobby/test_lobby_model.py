"""The lobby: posting, accepting (one winner), cancelling, leaving, play now."""

from __future__ import annotations

import random
import threading
from itertools import count

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from poolcheckers import RuleSet
from poolcheckers.pieces import Color
from poolcheckers.server.domain_errors import SeekError, SeekForbiddenError, SeekGoneError
from poolcheckers.server.games.timecontrol import Clock, Correspondence
from poolcheckers.server.lobby.model import (
    Lobby,
    LobbyEvent,
    LobbyPlayer,
    MemoryLobbyStore,
    Pairing,
    Seek,
    SeekSpec,
    assign_colors,
    matches,
    side_of,
)
from poolcheckers.server.ratings.model import Glicko, Perf

ANN, BOB, CY = LobbyPlayer("u1", "Ann"), LobbyPlayer("u2", "Bob"), LobbyPlayer("u3", "Cy")
GUEST = LobbyPlayer("anon-7f3a")
BLITZ = Clock(300, 3)


class Coin(random.Random):
    """An RNG whose coin lands as told (below 0.5: the author plays Black)."""

    def __init__(self, value: float) -> None:
        super().__init__(0)
        self.value = value

    def random(self) -> float:
        return self.value


def make_lobby(rng: random.Random | None = None) -> tuple[Lobby, list[LobbyEvent]]:
    ids = count(1)
    lobby = Lobby(
        MemoryLobbyStore(),
        rng=rng or random.Random(7),
        clock=lambda: 1000.0,
        new_id=lambda: f"s{next(ids)}",
    )
    events: list[LobbyEvent] = []
    lobby.subscribe(events.append)
    return lobby, events


def perf(rating: float) -> Perf:
    return Perf(Glicko(rating, 60), games=50)


def test_post_then_accept_starts_one_game_and_empties_the_lobby() -> None:
    lobby, events = make_lobby()
    seek = lobby.post(ANN, SeekSpec(BLITZ, rated=True, color="white"), perf(1600))
    assert lobby.seeks() == [seek]
    pairing = lobby.accept(seek.id, BOB, perf(1550))
    assert (pairing.black, pairing.white) == (BOB, ANN)
    assert pairing.spec.rated and pairing.spec.time_control == BLITZ
    assert lobby.seeks() == []
    assert [(e.kind, e.reason) for e in events] == [("added", None), ("removed", "taken")]
    assert side_of(pairing, ANN) is Color.WHITE and side_of(pairing, BOB) is Color.BLACK
    with pytest.raises(SeekError, match="does not play"):
        side_of(pairing, CY)


@pytest.mark.parametrize(("coin", "ann_plays"), [(0.2, "black"), (0.8, "white")])
def test_random_colour_is_a_coin_toss(coin: float, ann_plays: str) -> None:
    lobby, _ = make_lobby(Coin(coin))
    seek = lobby.post(ANN, SeekSpec(BLITZ, color="random"))
    pairing = lobby.accept(seek.id, BOB)
    assert (pairing.black if ann_plays == "black" else pairing.white) == ANN


def test_taker_colour_wish_is_met_when_the_author_left_it_random() -> None:
    seek = Seek("s", ANN, SeekSpec(BLITZ), 0.0)
    assert assign_colors(seek, BOB, Coin(0.0), taker_color="white") == (ANN, BOB)
    assert assign_colors(seek, BOB, Coin(0.9), taker_color="black") == (BOB, ANN)


def test_the_first_of_two_accepts_wins() -> None:
    lobby, _ = make_lobby()
    seek = lobby.post(ANN, SeekSpec(BLITZ))
    lobby.accept(seek.id, BOB)
    with pytest.raises(SeekGoneError) as caught:
        lobby.accept(seek.id, CY)
    assert caught.value.code == "not_found"


def test_racing_threads_one_winner() -> None:
    lobby, events = make_lobby()
    seek = lobby.post(ANN, SeekSpec(BLITZ))
    takers = [LobbyPlayer(f"t{i}", f"T{i}") for i in range(8)]
    barrier = threading.Barrier(len(takers))
    won: list[Pairing] = []
    lost: list[LobbyPlayer] = []

    def take(player: LobbyPlayer) -> None:
        barrier.wait()
        try:
            won.append(lobby.accept(seek.id, player))
        except SeekGoneError:
            lost.append(player)

    threads = [threading.Thread(target=take, args=(p,)) for p in takers]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(won) == 1 and len(lost) == 7
    assert [e.reason for e in events if e.kind == "removed"] == ["taken"]


def test_own_seek_cannot_be_accepted_and_others_cannot_cancel() -> None:
    lobby, _ = make_lobby()
    seek = lobby.post(ANN, SeekSpec(BLITZ))
    with pytest.raises(SeekForbiddenError, match="your own") as caught:
        lobby.accept(seek.id, ANN)
    assert caught.value.code == "forbidden"
    with pytest.raises(SeekForbiddenError, match="not yours"):
        lobby.cancel(seek.id, BOB)
    assert lobby.seeks() == [seek]  # state unchanged


def test_cancel() -> None:
    lobby, events = make_lobby()
    seek = lobby.post(ANN, SeekSpec(BLITZ))
    assert lobby.cancel(seek.id, ANN) == seek
    assert lobby.seeks() == []
    assert events[-1].to_dict() == {"type": "seek_removed", "id": seek.id, "reason": "cancelled"}
    with pytest.raises(SeekGoneError):
        lobby.cancel(seek.id, ANN)
    with pytest.raises(SeekGoneError):
        lobby.accept(seek.id, BOB)


def test_leaving_removes_clock_seeks_but_keeps_correspondence() -> None:
    lobby, events = make_lobby()
    a = lobby.post(ANN, SeekSpec(BLITZ))
    b = lobby.post(ANN, SeekSpec(None))
    c = lobby.post(ANN, SeekSpec(Correspondence(3)))
    other = lobby.post(BOB, SeekSpec(BLITZ))
    assert lobby.leave(ANN.id) == [a, b]
    assert lobby.seeks() == [c, other]
    assert [e.reason for e in events if e.kind == "removed"] == ["left", "left"]
    assert lobby.leave(ANN.id, correspondence_too=True) == [c]


def test_starting_a_clock_game_withdraws_both_players_other_clock_seeks() -> None:
    lobby, events = make_lobby()
    taken = lobby.post(ANN, SeekSpec(BLITZ))
    ann_other = lobby.post(ANN, SeekSpec(Clock(60, 0)))
    ann_corr = lobby.post(ANN, SeekSpec(Correspondence(2)))
    bob_own = lobby.post(BOB, SeekSpec(Clock(900, 10)))
    cy_seek = lobby.post(CY, SeekSpec(BLITZ))
    lobby.accept(taken.id, BOB)
    assert lobby.seeks() == [ann_corr, cy_seek]
    gone = {e.seek.id: e.reason for e in events if e.kind == "removed"}
    assert gone == {taken.id: "taken", ann_other.id: "playing", bob_own.id: "playing"}


def test_rated_seeks_need_accounts_apca_rules_and_a_clock() -> None:
    lobby, _ = make_lobby()
    with pytest.raises(SeekForbiddenError, match="rated games need an account"):
        lobby.post(GUEST, SeekSpec(BLITZ, rated=True))
    seek = lobby.post(ANN, SeekSpec(BLITZ, rated=True))
    with pytest.raises(SeekForbiddenError, match="sign in to accept"):
        lobby.accept(seek.id, GUEST)
    with pytest.raises(
        SeekError, match=r"APCA rules \(docs/RULES.md §9\); apca\+repetition_draw=true"
    ):
        SeekSpec(BLITZ, rated=True, rules=RuleSet(repetition_draw=True))
    with pytest.raises(SeekError, match="rated games need a clock"):
        SeekSpec(None, rated=True)
    casual = lobby.post(GUEST, SeekSpec(BLITZ, rules=RuleSet(crown_during_capture="stop")))
    assert lobby.accept(casual.id, LobbyPlayer("anon-2")).spec.rules.crown_during_capture == "stop"


def test_rating_range_is_enforced_on_accept() -> None:
    lobby, _ = make_lobby()
    seek = lobby.post(ANN, SeekSpec(BLITZ, rated=True, rating_range=(1400, 1700)), perf(1550))
    with pytest.raises(SeekForbiddenError, match="for ratings 1400-1700; you have 1800"):
        lobby.accept(seek.id, BOB, perf(1800))
    with pytest.raises(SeekForbiddenError, match="you have no rating"):
        lobby.accept(seek.id, BOB, None)
    assert lobby.accept(seek.id, BOB, perf(1700)).seek == seek


def test_seeks_per_author_are_limited() -> None:
    lobby, _ = make_lobby()
    for _ in range(lobby.max_seeks_per_author):
        lobby.post(ANN, SeekSpec(BLITZ))
    with pytest.raises(SeekError, match="at most 5 open seeks"):
        lobby.post(ANN, SeekSpec(BLITZ))
    lobby.post(BOB, SeekSpec(BLITZ))


def test_play_now_pairs_with_the_oldest_matching_seek() -> None:
    lobby, _ = make_lobby()
    lobby.post(ANN, SeekSpec(Clock(300, 0)))  # other clock
    lobby.post(ANN, SeekSpec(BLITZ, rated=True), perf(1500))  # rated
    lobby.post(ANN, SeekSpec(BLITZ, rules=RuleSet(crown_during_capture="stop")))  # rules
    lobby.post(ANN, SeekSpec(BLITZ, color="black"))  # both want black
    good = lobby.post(CY, SeekSpec(BLITZ, color="white"))
    later = lobby.post(CY, SeekSpec(BLITZ))
    pairing = lobby.play_now(BOB, SeekSpec(BLITZ, color="black"))
    assert isinstance(pairing, Pairing)
    assert pairing.seek == good and pairing.black == BOB
    assert later not in lobby.seeks()  # Cy is playing now


def test_play_now_posts_a_seek_when_nothing_matches() -> None:
    lobby, _ = make_lobby()
    mine = lobby.post(BOB, SeekSpec(BLITZ))
    result = lobby.play_now(BOB, SeekSpec(BLITZ))  # own seek does not match
    assert isinstance(result, Seek) and result != mine
    assert result.author == BOB


def test_play_now_respects_both_rating_ranges() -> None:
    seek = Seek("s", ANN, SeekSpec(BLITZ, rating_range=(1400, 1600)), 0.0, perf(1500))
    assert matches(seek, SeekSpec(BLITZ), BOB, perf(1450))
    assert not matches(seek, SeekSpec(BLITZ), BOB, perf(1650))
    assert not matches(seek, SeekSpec(BLITZ, rating_range=(1600, 2000)), BOB, perf(1500))


def test_play_now_skips_a_seek_taken_meanwhile() -> None:
    """A match found in the list but taken before the accept: the next one is tried."""
    lobby, _ = make_lobby()
    first = lobby.post(ANN, SeekSpec(BLITZ))
    second = lobby.post(CY, SeekSpec(BLITZ))
    stale = lobby.store.open_seeks()

    class RacingStore(MemoryLobbyStore):
        def open_seeks(self) -> list[Seek]:
            return stale

    racing = RacingStore()
    racing.insert(second)
    lobby.store = racing  # the first seek was taken by someone else
    pairing = lobby.play_now(BOB, SeekSpec(BLITZ))
    assert isinstance(pairing, Pairing) and pairing.seek == second
    assert first in stale


def test_seek_from_the_http_body() -> None:
    spec = SeekSpec.from_dict(
        {
            "clock": {"initial": 180, "increment": 2},
            "rated": False,
            "color": "black",
            "rules": {"king_only_move_limit": 15},
            "rating_range": [1200, 1800],
        }
    )
    assert spec == SeekSpec(
        Clock(180, 2), False, "black", RuleSet(king_only_move_limit=15), (1200, 1800)
    )
    assert SeekSpec.from_dict({"clock": None}) == SeekSpec(None)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({}, 'a seek needs "clock"'),
        ({"clock": None, "colour": "black"}, "unknown seek fields ['colour']"),
        ({"clock": None, "color": "red"}, "color must be 'black', 'white' or 'random', not 'red'"),
        ({"clock": None, "rated": "yes"}, "rated must be true or false"),
        ({"clock": None, "rules": {"flying_kings": True}}, "unknown rule option 'flying_kings'"),
        ({"clock": None, "rules": [1]}, "rules must be an object"),
        ({"clock": {"days": 30}}, "clock.days must be"),
        ({"clock": None, "rating_range": [1800, 1200]}, "low <= high"),
        ({"clock": None, "rating_range": [100, 1200]}, "400 <= low"),
        ({"clock": None, "rating_range": "1200-1800"}, "rating_range must be [low, high]"),
        (
            {
                "clock": {"initial": 300, "increment": 0},
                "rated": True,
                "rules": {"three_kings_limit_result": "loss"},
            },
            "rated games use the APCA rules",
        ),
    ],
)
def test_bad_seek_bodies_are_refused(body: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError) as caught:
        SeekSpec.from_dict(body)
    assert message in str(caught.value)


def test_listing_shows_names_not_ids() -> None:
    lobby, events = make_lobby()
    seek = lobby.post(GUEST, SeekSpec(Correspondence(2)))
    shown = seek.to_dict()
    assert GUEST.id not in repr(shown) and GUEST.id not in repr(events[0].to_dict())
    assert shown["author"] is None and shown["category"] == "correspondence"
    assert shown["clock"] == {"days": 2}
    rated = lobby.post(ANN, SeekSpec(BLITZ, rated=True), perf(1612.5)).to_dict()
    assert rated["author"] == "Ann"
    assert rated["rating"] == {"rating": 1612, "rd": 60, "games": 50, "provisional": False}
    assert ANN.id not in repr(rated)


def test_unsubscribe() -> None:
    lobby, events = make_lobby()
    heard: list[LobbyEvent] = []
    stop = lobby.subscribe(heard.append)
    lobby.post(ANN, SeekSpec(BLITZ))
    stop()
    lobby.post(BOB, SeekSpec(BLITZ))
    assert len(heard) == 1 and len(events) == 2


players = st.sampled_from([ANN, BOB, CY, GUEST, LobbyPlayer("u4", "Di")])
specs = st.builds(
    SeekSpec,
    st.sampled_from([BLITZ, Clock(60, 0), Correspondence(1), None]),
    st.just(False),
    st.sampled_from(["black", "white", "random"]),
)
operations = st.lists(
    st.tuples(
        st.sampled_from(["post", "accept", "cancel", "leave", "play_now"]),
        players,
        specs,
        st.integers(0, 20),
    ),
    max_size=40,
)


@settings(max_examples=150)
@given(operations)
def test_every_seek_is_taken_at_most_once(
    ops: list[tuple[str, LobbyPlayer, SeekSpec, int]],
) -> None:
    lobby, events = make_lobby()
    pairings: list[Pairing] = []
    for op, player, spec, pick in ops:
        ids = [s.id for s in lobby.seeks()] or ["s0"]
        seek_id = ids[pick % len(ids)]
        try:
            if op == "post":
                lobby.post(player, spec)
            elif op == "accept":
                pairings.append(lobby.accept(seek_id, player))
            elif op == "cancel":
                lobby.cancel(seek_id, player)
            elif op == "leave":
                lobby.leave(player.id)
            else:
                result = lobby.play_now(player, spec)
                if isinstance(result, Pairing):
                    pairings.append(result)
        except (SeekError, SeekGoneError, SeekForbiddenError):
            pass
    removed = [e.seek.id for e in events if e.kind == "removed"]
    added = [e.seek.id for e in events if e.kind == "added"]
    assert len(removed) == len(set(removed))  # removed (taken, cancelled, left) once
    assert sorted(set(added) - set(removed)) == sorted(s.id for s in lobby.seeks())
    taken = [p.seek.id for p in pairings]
    assert len(taken) == len(set(taken))
    for p in pairings:
        assert p.black.id != p.white.id
        assert {p.black, p.white} >= {p.seek.author}
        wish = p.seek.spec.color
        if wish != "random":
            assert (p.black if wish == "black" else p.white) == p.seek.author
