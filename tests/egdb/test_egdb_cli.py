"""``poolcheckers egdb build|probe|verify|stats`` as a user runs them, and the Python API."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from poolcheckers import Board
from poolcheckers.egdb import (
    ProbeResult,
    Tablebase,
    TablebaseError,
    build,
    canonical,
    default_directory,
    dependency_levels,
    materials,
    probe_position,
    stats,
    verify,
)
from poolcheckers.rules import RuleSet

#: the console script's entry point, as the installed ``poolcheckers`` command runs it
_MAIN = "import sys; from poolcheckers.cli import main; sys.exit(main())"


def run(
    *args: str, stdin: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", _MAIN, "egdb", *args],
        capture_output=True,
        text=True,
        input=stdin,
        timeout=300,
        check=False,
        env=env,
    )


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("cli")
    result = run("build", "--pieces", "4", "--dir", str(directory))
    assert result.returncode == 0, result.stderr
    assert "built 23 tables of up to 4 pieces (apca)" in result.stdout
    return directory


def test_build_writes_every_stored_material(built: Path) -> None:
    stored = [m for level in dependency_levels(4) for m in level]
    assert len(stored) == 23
    for m in materials(4):  # both orientations of every material are covered
        assert (built / f"egdb_{''.join(map(str, canonical(m)))}.pcdb").exists()


def test_verify_on_four_pieces(built: Path) -> None:
    """Every stored state re-derived from its successors agrees."""
    result = run("verify", "--dir", str(built))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "verified 23 tables: 23 consistent, 0 not" in result.stdout
    assert all(r.bad == 0 for r in verify(built, pieces=4))


def test_verify_reports_a_table_of_other_rules(built: Path, tmp_path: Path) -> None:
    """A file built under other rules among the APCA ones counts as missing.

    (A table whose values do not follow from its successors is found by the C
    test of verify, native/test_egdb.c, which changes a stored value.)
    """
    for f in built.glob("*.pcdb"):
        (tmp_path / f.name).write_bytes(f.read_bytes())
    other = tmp_path / "other"
    from poolcheckers.egdb import build

    build(3, other, RuleSet.from_options(["king_only_move_limit=1"]))
    (tmp_path / "egdb_0201.pcdb").write_bytes((other / "egdb_0201.pcdb").read_bytes())
    result = run("verify", "--dir", str(tmp_path), "--pieces", "3")
    assert result.returncode == 1
    assert "2K v 1K: missing" in result.stdout


def test_probe_one_line_and_json(built: Path) -> None:
    fen = "W:WK3,K7,K10:BK32"
    result = run("probe", "--dir", str(built), "--fen", fen)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("tablebase: win, conversion in ")
    assert result.stdout.count("\n") == 1
    as_json = json.loads(run("probe", "--dir", str(built), "--fen", fen, "--json").stdout)
    assert as_json["value"] == as_json["fresh_value"] == "win"
    assert isinstance(as_json["dtz"], int) and as_json["dtz"] > 1


def test_probe_running_counts_spoil_a_win(built: Path) -> None:
    """R19: with the three-king side's count nearly run out a fresh win is a draw."""
    fen = "W:WK3,K7,K10:BK32"
    dtz = json.loads(run("probe", "--dir", str(built), "--fen", fen, "--json").stdout)["dtz"]
    late = json.loads(run("probe", "--dir", str(built), "--fen", fen + ":C12", "--json").stdout)
    assert dtz > 1
    assert late == {"value": "draw", "dtz": dtz, "fresh_value": "win"}


def test_probe_streams_fen_lines(built: Path) -> None:
    lines = ["W:W23:B18", "B:W5,6,7,8,9:B1", "not a fen", "B:WK32:BK1"]
    result = run("probe", "--dir", str(built), "--fen", "-", "--json", stdin="\n".join(lines))
    assert result.returncode == 0, result.stderr
    out = [json.loads(x) for x in result.stdout.splitlines()]
    assert len(out) == 4
    assert out[0] == {"value": "win", "dtz": 1, "fresh_value": "win"}
    assert out[1] is None  # 6 pieces: not covered
    assert "error" in out[2]
    assert out[3] == {"value": "draw", "dtz": None, "fresh_value": "draw"}


def test_probe_refuses_other_rules(built: Path) -> None:
    result = run(
        "probe", "--dir", str(built), "--fen", "W:W23:B18", "--rules", "king_only_move_limit=15"
    )
    assert result.returncode == 2
    assert "built under apca" in result.stderr


def test_probe_without_tables_says_how_to_build(tmp_path: Path) -> None:
    result = run("probe", "--dir", str(tmp_path), "--fen", "W:W23:B18")
    assert result.returncode == 2
    assert "poolcheckers egdb build" in result.stderr


def test_stats_lists_every_material(built: Path) -> None:
    result = run("stats", "--dir", str(built), "--json")
    rows = json.loads(result.stdout)
    assert len(rows) == len(materials(4))
    kk = next(r for r in rows if r["material"] == "1K v 1K")
    assert kk["wins"] + kk["draws"] + kk["losses"] == 32 * 31


def test_api_probe_and_none(built: Path) -> None:
    tb = Tablebase(built)
    assert tb.max_pieces == 4
    assert tb.probe(Board("W:W23:B18")) == ProbeResult("win", 1, "win")
    assert tb.probe(Board("B:W5,6,7,8,9:B1")) is None  # not covered
    other = Board("W:W23:B18", rules=RuleSet.from_options(["crown_during_capture=stop"]))
    assert tb.probe(other) is None  # other rules than the files'
    # repetition_draw changes no value: the files answer for it too
    rep = Board("W:W23:B18", rules=RuleSet.from_options(["repetition_draw=true"]))
    assert tb.probe(rep) == ProbeResult("win", 1, "win")


def test_api_counts_follow_the_board(built: Path) -> None:
    board = Board("W:WK3,K7,K10:BK32")
    tb = Tablebase(built)
    fresh = tb.probe(board)
    assert fresh is not None and fresh.value == "win" and fresh.dtz is not None
    board.set_fen(f"W:WK3,K7,K10:BK32:H{2 * 25 - fresh.dtz + 1}")  # R18 leaves too few plies
    late = tb.probe(board)
    assert late == ProbeResult("draw", fresh.dtz, "win")


def test_stats_mirror_swaps_sides(built: Path) -> None:
    black, white = stats((0, 3, 0, 1), built)
    mb, mw = stats((0, 1, 0, 3), built)
    assert (black, white) == (mw, mb)
    assert black.losses == 0 and black.wins > black.draws


def test_missing_directory_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(TablebaseError, match="no endgame table files"):
        Tablebase(tmp_path)


def test_default_directory_is_beside_the_game_database(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("POOLCHECKERS_EGDB_DIR", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", "/data/x")
    assert default_directory() == Path("/data/x/poolcheckers/egdb")


def test_one_setting_finds_the_tables_for_the_commands_engine_and_site(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """``POOLCHECKERS_EGDB_DIR`` is the commands' default ``--dir`` as it is the
    engine's and the web app's folder."""
    from poolcheckers.engine import default_tables_directory

    monkeypatch.setenv("POOLCHECKERS_EGDB_DIR", str(tmp_path / "tables"))
    assert default_directory() == default_tables_directory() == tmp_path / "tables"
    build(2)  # no --dir: the setting's folder
    assert Tablebase().directory == tmp_path / "tables"
    assert Tablebase().probe(Board("B:WK32:BK1")) is not None


def _squares(mask: int, kings: int) -> list[str]:
    return [
        ("K" if kings >> (s - 1) & 1 else "") + str(s) for s in range(1, 33) if mask >> (s - 1) & 1
    ]


@st.composite
def _boards(draw: st.DrawFn) -> Board:
    """A random position of 2-4 pieces with running counts."""
    n = draw(st.integers(2, 4))
    squares = draw(st.lists(st.integers(1, 32), min_size=n, max_size=n, unique=True))
    black, white, kings = 0, 0, 0
    for i, s in enumerate(squares):
        bit = 1 << (s - 1)
        is_black = i == 0 or (i > 1 and draw(st.booleans()))
        king = draw(st.booleans()) or (s > 28 if is_black else s < 5)
        if is_black:
            black |= bit
        else:
            white |= bit
        if king:
            kings |= bit
    turn = draw(st.sampled_from("BW"))
    h = draw(st.integers(0, 49))
    c = draw(st.integers(0, 12))
    fen = f"{turn}:W{','.join(_squares(white, kings))}:B{','.join(_squares(black, kings))}"
    return Board(f"{fen}:H{h}:C{c}")


@settings(max_examples=300, deadline=None)
@given(board=_boards())
def test_mirror_positions_have_the_same_value(built: Path, board: Board) -> None:
    """Turning the board half a turn and swapping the colours (s -> 33 - s) changes nothing."""
    tb = Tablebase(built)

    def flip(mask: int) -> int:
        return sum(1 << (32 - s) for s in range(1, 33) if mask >> (s - 1) & 1)

    kings = flip(board.kings)
    mirror = Board(
        f"{'W' if board.turn == 0 else 'B'}:W{','.join(_squares(flip(board.black), kings))}"
        f":B{','.join(_squares(flip(board.white), kings))}"
        f":H{board.halfmove_clock}:C{board.three_kings_count}"
    )
    assert tb.probe(board) == tb.probe(mirror)


@settings(max_examples=150, deadline=None)
@given(board=_boards())
def test_value_follows_from_the_moves(built: Path, board: Board) -> None:
    """R16-R21: the value under the running counts is the best of the moves' values."""
    from poolcheckers.egdb.play import move_values

    tb = Tablebase(built)
    result = tb.probe(board)
    assert result is not None
    if board.outcome() is not None:  # the game is over: no move is made
        return
    values = move_values(tb, board)
    assert values is not None
    rank = {"loss": 0, "draw": 1, "win": 2}
    assert result.value == max((mv.value for mv in values), key=rank.__getitem__)


def test_bad_build_arguments_are_one_line_errors(tmp_path: Path) -> None:
    for args, text in [
        (["--pieces", "9"], "--pieces must be 2..8"),
        (["--pieces", "3", "--rules", "king_only_move_limit=100"], "limits up to 63 moves (R18"),
        (["--pieces", "3", "--rules", "crown_during_capture=maybe"], "crown_during_capture"),
        (["--pieces", "3", "--slice-states", "1000"], "cut the tasks of --scheduler"),
    ]:
        result = run("build", "--dir", str(tmp_path), *args)
        assert result.returncode == 2 and text in result.stderr, result.stderr
        assert "Traceback" not in result.stderr
    blocked = tmp_path / "file"
    blocked.write_text("")
    result = run("build", "--pieces", "2", "--dir", str(blocked / "sub"))
    assert result.returncode == 2 and "cannot create the directory" in result.stderr
    result = run("stats", "--dir", str(tmp_path))
    assert result.returncode == 2 and "no endgame table files" in result.stderr


@settings(max_examples=60, deadline=None)
@given(boards=st.lists(_boards(), min_size=1, max_size=12))
def test_probe_many_answers_as_probe_does(built: Path, boards: list[Board]) -> None:
    """The native probe of many positions at once gives each one's answer to the probe of
    one (R18 plies and R19 moves running), and -2 where no file covers the position."""
    import numpy as np

    probe = Tablebase(built)._probe
    boards = [*boards, Board("B:W5,6,7,8,9:B1:H3")]  # 6 pieces: not covered
    columns = zip(*(probe_position(b) for b in boards), strict=True)
    raw = probe.probe_many(*(np.array(values, dtype=np.uint32) for values in columns))
    rows = np.frombuffer(raw, dtype=np.int16).reshape(len(boards), 4).tolist()
    for board, row in zip(boards, rows, strict=True):
        one = probe.probe(*probe_position(board))
        assert tuple(row) == (one if one is not None else (-2, -2, -2, -2))


def test_probe_many_refuses_what_is_not_a_position(built: Path) -> None:
    """R2: bitboards of squares 1..32 that do not overlap; the columns of one length."""
    import numpy as np

    probe = Tablebase(built)._probe
    one = np.array([1], dtype=np.uint32)
    zero = np.array([0], dtype=np.uint32)
    with pytest.raises(ValueError, match="position 0 is not a position"):
        probe.probe_many(one, one, zero, zero, zero, zero)  # a square of both colours
    with pytest.raises(TypeError, match="4-byte integers of one length"):
        probe.probe_many(one, one << 1, zero, zero, zero, np.zeros(2, dtype=np.uint32))
    with pytest.raises(TypeError, match="4-byte integers"):
        probe.probe_many(one, one << 1, zero, zero, zero, np.zeros(1))
