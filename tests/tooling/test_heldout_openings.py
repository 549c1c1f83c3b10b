"""The held-out openings: kept for final results, out of every tuning, book and test
of a change (poolcheckers.tooling.openings)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from commands.fake_engine import FakeEngine, FakeLimit

from poolcheckers import Board, RuleSet
from poolcheckers.cli import build_parser, main
from poolcheckers.commands import match as match_cmd
from poolcheckers.engine.book import default_book
from poolcheckers.pdn import read_games
from poolcheckers.tooling import ToolingError
from poolcheckers.tooling import tune as texel
from poolcheckers.tooling.openings import (
    DEFAULT_BALLOTS,
    HELDOUT_OPENINGS,
    heldout_positions,
    load_ballots,
    opening_board,
)

REPO = Path(__file__).resolve().parents[2]


def heldout() -> list[tuple[str, ...]]:
    return load_ballots(HELDOUT_OPENINGS, final=True)


def test_the_heldout_openings_are_distinct_sound_five_ply_lines_the_book_never_reaches() -> None:
    openings = heldout()
    assert len(openings) >= 100
    assert all(len(o) == 5 for o in openings)
    positions = {opening_board(o).fen() for o in openings}
    assert len(positions) == len(openings) == len(heldout_positions())
    assert all(opening_board(o).outcome() is None for o in openings)
    book = default_book()
    assert book is not None and not positions & set(book.entries)
    # nor the openings of the earlier unseen set, which tested a change (t14b')
    earlier = load_ballots(REPO / "benchmarks/results/openings_unseen5.txt", final=True)
    assert not positions & {opening_board(o).fen() for o in earlier}


def test_the_shipped_ballots_reach_no_heldout_opening() -> None:
    assert len(load_ballots(DEFAULT_BALLOTS)) >= 60


def test_a_ballot_file_reaching_a_heldout_opening_is_refused_naming_its_line(
    tmp_path: Path,
) -> None:
    first = heldout()[0]
    path = tmp_path / "mine.txt"
    # a longer line through a held-out position is refused too
    longer = Board()
    for text in first:
        longer.push_notation(text)
    extra = longer.notation(next(iter(longer.legal_moves)))
    path.write_text(f"# mine\n11-15 22-18 15x22\n{' '.join(first)} {extra}\n", "utf-8")
    with pytest.raises(ToolingError, match=r"mine\.txt, line 3: .*held-out") as caught:
        load_ballots(path)
    assert "match --held-out" in str(caught.value)
    assert len(load_ballots(path, final=True)) == 2


def test_match_held_out_plays_the_heldout_openings_and_nothing_else(tmp_path: Path) -> None:
    pdn = tmp_path / "final.pdn"
    args = build_parser().parse_args(
        ["match", "--level-b", "3", "--held-out", "--games", "4", "--pdn", str(pdn)]
    )
    out = io.StringIO()

    def factory(_hash: int, _rules: RuleSet, _weights: str | None) -> FakeEngine:
        return FakeEngine()

    assert match_cmd.run(args, engine_factory=factory, limit=FakeLimit(depth=1), out=out) == 0
    games = read_games(pdn.read_text(encoding="utf-8"))
    openings = heldout()
    assert [tuple(g.notations()[:5]) for g in games] == [openings[0]] * 2 + [openings[1]] * 2


def test_match_refuses_the_heldout_file_without_held_out(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["match", "--ballots", str(HELDOUT_OPENINGS), "--games", "2"]) == 2
    assert "held-out" in capsys.readouterr().err
    assert main(["match", "--held-out", "--ballots", str(DEFAULT_BALLOTS)]) == 2


def test_tuning_leaves_out_the_games_through_a_heldout_opening(tmp_path: Path) -> None:
    moves = heldout()[0]
    first = " ".join(f"{i // 2 + 1}. {m}" if i % 2 == 0 else m for i, m in enumerate(moves))
    path = tmp_path / "games.pdn"
    path.write_text(
        f'[Result "2-0"]\n\n{first} 2-0\n\n[Result "1-1"]\n\n1. 11-15 22-18 15x22 1-1\n',
        encoding="utf-8",
    )
    load = texel.games_from_pdn([str(path)])
    assert load.games == [texel.SelfPlayGame(("11-15", "22-18", "15x22"), "1-1")]
    assert load.left_out == {"held-out opening": 1}


def test_building_a_book_from_the_heldout_openings_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    book = tmp_path / "book.json"
    argv = ["book", "--roots", "ballots", "--ballots", str(HELDOUT_OPENINGS)]
    assert main([*argv, "--output", str(book)]) == 2
    assert "held-out" in capsys.readouterr().err and not book.exists()
