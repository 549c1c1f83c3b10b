"""``poolcheckers bot``'s choices, without a site: which challenges it takes (by the
rules of docs/RULES.md §9, the clock and rated or casual) and the reason it gives
for the others, when it offers or accepts a draw, and the game it hands the
engine (the whole history, so that repetitions and the R18 count are seen)."""

from __future__ import annotations

import argparse
import urllib.error
from email.message import Message
from pathlib import Path
from typing import Any

import pytest

from poolcheckers import Board
from poolcheckers.cli import UsageError, build_parser
from poolcheckers.commands.bot import Policy, _answer, _clock, _read_token, board_of


def policy(*argv: str) -> Policy:
    args = build_parser().parse_args(["bot", "--token-file", "t", *argv])
    assert isinstance(args, argparse.Namespace)
    return Policy(args)


def challenge(**changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "id": "c1", "challenger": "Ann", "clock": {"initial": 180, "increment": 2},
        "category": "blitz", "rated": True, "rules": {},
    }  # fmt: skip
    base.update(changes)
    return base


@pytest.mark.parametrize(
    ("argv", "changes", "reason"),
    [
        ((), {}, None),
        ((), {"rules": {"crown_during_capture": "stop"}}, "rules"),  # a §9 option
        (("--rules", "crown_during_capture=stop"), {"rules": {"crown_during_capture": "stop"}},
         None),
        ((), {"clock": {"initial": 15, "increment": 0}}, "too_fast"),
        ((), {"clock": {"initial": 7200, "increment": 0}}, "too_slow"),
        ((), {"clock": {"days": 3}, "category": "correspondence"}, "time_control"),
        (("--correspondence",), {"clock": {"days": 3}, "category": "correspondence"}, None),
        (("--rated-only",), {"rated": False}, "rated"),
        (("--casual-only",), {"rated": True}, "casual"),
    ],
)  # fmt: skip
def test_challenges_are_taken_or_declined_with_the_sites_reason(
    argv: tuple[str, ...], changes: dict[str, Any], reason: str | None
) -> None:
    assert policy(*argv).decline_reason(challenge(**changes)) == reason


def test_a_draw_is_wanted_with_level_material_of_three_or_fewer_a_side() -> None:
    assert Policy.wants_draw(Board("W:WK1,K2:BK31,K32"))  # two kings each
    assert not Policy.wants_draw(Board("W:WK1,K2,K3:BK31,K32"))  # three against two
    assert not Policy.wants_draw(Board())  # twelve men each


def test_a_draw_is_wanted_once_the_r18_count_has_run_past_its_limit() -> None:
    board = Board("W:WK1,K2,K3,K4:BK29,K30,K31,K32")
    assert not Policy.wants_draw(board)
    board.halfmove_clock = board.rules.king_only_move_limit + 1
    assert Policy.wants_draw(board)


def test_the_engine_gets_the_game_from_its_start() -> None:
    state = {"start_fen": Board().fen(), "rules": {}, "moves": ["11-15", "23-19", "8-11"]}
    board = board_of(state)
    assert [str(m) for m in board.move_stack] == ["11-15", "23-19", "8-11"]
    assert board.turn.name == "WHITE"


def test_token_file_and_clock_are_checked_before_connecting(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="No such file"):
        _read_token(tmp_path / "absent")
    (tmp_path / "t").write_text("my password\n")
    with pytest.raises(UsageError, match="no API token there"):
        _read_token(tmp_path / "t")
    (tmp_path / "t").write_text("pct_" + "a" * 43 + "\n")
    assert _read_token(tmp_path / "t") == "pct_" + "a" * 43
    assert _clock("3+2") == {"initial": 180.0, "increment": 2.0}
    with pytest.raises(UsageError, match="MINUTES"):
        _clock("fast")


class Recording:
    """A site that records the answers posted (the first ``failing`` of them answered
    503, as while its database restarts)."""

    def __init__(self, failing: int = 0) -> None:
        self.posted: list[str] = []
        self.failing = failing

    def post(self, path: str, body: dict[str, Any] | None = None) -> Any:
        self.posted.append(path)
        if self.failing:
            self.failing -= 1
            raise urllib.error.HTTPError(path, 503, "Service Unavailable", Message(), None)
        return {}


def test_a_challenge_told_again_is_answered_once() -> None:
    """The event stream tells an open challenge again when it opens again, or when the
    site missed notices and reads the open ones again: the bot answers it once, unless
    the site failed to take the answer."""
    site, answered, quiet = Recording(failing=1), set[str](), lambda _text: None
    for _ in range(3):
        _answer(site, policy(), challenge(), quiet, answered)  # type: ignore[arg-type]
        other = challenge(id="c2", rules={"crown_during_capture": "stop"})  # declined
        _answer(site, policy(), other, quiet, answered)  # type: ignore[arg-type]
    accept, decline = "/api/bot/challenge/c1/accept", "/api/bot/challenge/c2/decline"
    assert site.posted == [accept, decline, accept]  # the first accept met a 503
