"""The generator: from the same seed the same game and the same puzzles; every solver
move of a kept puzzle is the only one that keeps the gain (searched again from an
empty hash table, or by the tables exactly); a position with two good moves is no
puzzle; the command writes, resumes and checks a puzzle file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from poolcheckers import Board
from poolcheckers.cli import main
from poolcheckers.egdb import Tablebase
from poolcheckers.puzzles import Puzzle, read_puzzles, replay, shipped_puzzles, write_puzzles
from poolcheckers.puzzles.generate import Candidate, Generator, Settings, verify
from poolcheckers.puzzles.themes import tag

#: a self-play game of the shipped run (seed 1, game 2) with a puzzle in it
GAME_SEED = 1 * 1_000_003 + 2


@pytest.fixture(scope="module")
def generator(tables4: Tablebase) -> Generator:
    return Generator(Settings(), tables4)


def test_the_same_seed_gives_the_same_game_and_the_same_puzzles(generator: Generator) -> None:
    moves = generator.self_play(GAME_SEED)
    assert generator.self_play(GAME_SEED) == moves
    first = generator.game(Board(), moves, "g")
    again = generator.game(Board(), moves, "g")
    assert first.puzzles and first.puzzles == again.puzzles
    assert first.candidates >= len(first.puzzles)


def test_each_solver_move_of_a_found_puzzle_is_the_only_one_that_keeps_the_gain(
    generator: Generator,
) -> None:
    found = generator.game(Board(), generator.self_play(GAME_SEED), "g").puzzles
    for puzzle in found:
        start, line = replay(puzzle)  # legal move by move (R4-R15)
        assert len(puzzle.solution) % 2 == 1  # it ends on the solver's move
        assert verify(generator, puzzle) is None
        assert list(puzzle.themes) == sorted(
            set(tag(start, line))
            | ({"endgame_technique"} if "endgame_technique" in puzzle.themes else set())
        )
        assert puzzle.source == {"game": "g", "ply": puzzle.source["ply"]}  # type: ignore[index]
        assert 600 <= puzzle.rating <= 2600


def test_a_table_position_with_one_winning_move_is_an_exact_win_puzzle_R16(
    generator: Generator,
) -> None:
    # White's king must leave the corner on the one diagonal that stops Black's man
    board = Board("W:WK1,12:B25")
    puzzle = generator.puzzle(Candidate(board, 0, "t"))
    assert puzzle is not None
    assert puzzle.goal == "win" and puzzle.solution == ("1-15", "25-29", "15-4")
    assert "endgame_technique" in puzzle.themes
    values = generator.table_values(board)
    assert values is not None and list(values.values()).count("win") == 1


def test_a_first_move_with_an_equal_rival_is_no_puzzle(generator: Generator) -> None:
    # from the start every opening move keeps the balance: nothing is clearly best
    start = Puzzle("s", Board().fen(), ("11-15",), "material", 1500)
    problem = verify(generator, start)
    assert problem is not None and "move 1 11-15" in problem
    assert generator.puzzle(Candidate(Board(), 0, "t")) is None


def test_the_command_writes_resumes_and_checks_a_puzzle_file(tmp_path: Path) -> None:
    def generate(out: Path, games: int) -> int:
        return main(["puzzles", "generate", "--out", str(out), "--games", str(games),
                     "--jobs", "1", "--seed", "1", "--scan-nodes", "20000"])  # fmt: skip

    whole, parts = tmp_path / "whole.jsonl", tmp_path / "parts.jsonl"
    assert generate(whole, 3) == 0
    assert generate(parts, 2) == 0
    assert generate(parts, 3) == 0  # resumed: game 3 only
    assert parts.read_text() == whole.read_text()
    state = json.loads((tmp_path / "parts.jsonl.state.json").read_text())
    assert state["counts"]["next_game"] == 3
    assert main(["puzzles", "generate", "--out", str(parts), "--games", "3", "--seed", "2",
                 "--jobs", "1"]) == 2  # fmt: skip
    assert all(p.source for p in read_puzzles(whole))
    assert main(["puzzles", "check", str(whole), "--unique", "all"]) == 0


def test_check_keeps_the_puzzles_that_pass_and_names_the_others(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = shipped_puzzles()[:3]
    bad = Puzzle("broken", Board().fen(), ("1-6",), "material", 1500)  # 6 is taken (R6)
    checked = tmp_path / "set.jsonl.gz"
    write_puzzles(checked, [good[0], bad, *good[1:]])
    assert main(["puzzles", "check", str(checked), "--unique", "none", "--json",
                 "--keep", str(checked)]) == 1  # fmt: skip
    report = json.loads(capsys.readouterr().out)
    assert report["failed_ids"] == ["broken"] and len(report["rules_problems"]) == 1
    assert [p.id for p in read_puzzles(checked)] == [p.id for p in good]  # in their order
    assert main(["puzzles", "check", str(checked), "--unique", "none"]) == 0
    assert not list(tmp_path.glob(".*partial*"))


def test_the_games_of_a_pdn_file_are_read_and_named_by_their_game_id(
    tmp_path: Path, generator: Generator
) -> None:
    from poolcheckers.pdn import PdnGame

    moves = generator.self_play(GAME_SEED)
    text = PdnGame(tags={"GameId": "site123"}, moves=moves).to_pdn()
    source = tmp_path / "archive.pdn"
    source.write_text(text + "\n" + PdnGame(moves=moves[:10]).to_pdn(), encoding="utf-8")
    out = tmp_path / "from-pdn.jsonl"
    assert main(["puzzles", "generate", "--out", str(out), "--pdn", str(source),
                 "--jobs", "1"]) == 0  # fmt: skip
    found = list(read_puzzles(out))
    assert found and all(p.source and p.source["game"] == "site123" for p in found)


@pytest.mark.parametrize(
    "text", ["", "this is not PDN at all", '[Event "no moves"]\n*\n'], ids=["empty", "text", "tags"]
)
def test_a_pdn_file_without_a_game_to_read_is_refused_not_replaced_by_self_play(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str
) -> None:
    source = tmp_path / "nothing.pdn"
    source.write_text(text, encoding="utf-8")
    out = tmp_path / "out.jsonl"
    assert main(["puzzles", "generate", "--out", str(out), "--pdn", str(source),
                 "--games", "1", "--jobs", "1"]) == 2  # fmt: skip
    err = capsys.readouterr().err
    assert err.splitlines()[-1] == (
        f"poolcheckers puzzles: error: --pdn {source}: no game with a move to read"
    )
    assert not out.exists()
