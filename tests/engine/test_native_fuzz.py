"""Garbage in never crashes the native module: it raises ValueError/TypeError."""

from __future__ import annotations

import poolcheckers._core as core
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from poolcheckers import Board, FenError
from poolcheckers.engine import Engine, Limit, native_legal_moves, perft_native

ints = st.one_of(
    st.integers(-(2**70), 2**70),
    st.integers(0, 2**32 - 1),
    st.sampled_from([0, 1, -1, 2**32, 2**64, 0xFFFFFFFF]),
)
junk = st.one_of(ints, st.none(), st.text(max_size=5), st.floats(), st.booleans())


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(black=junk, white=junk, kings=junk, turn=junk)
def test_legal_moves_with_garbage(
    black: object, white: object, kings: object, turn: object
) -> None:
    try:
        moves = core.legal_moves(black, white, kings, turn)
    except (ValueError, TypeError):
        return
    for origin, destination, captured in moves:
        assert 1 <= origin <= 32 and 1 <= destination <= 32 and 0 <= captured < 2**32


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    black=st.integers(0, 2**32 - 1),
    white=st.integers(0, 2**32 - 1),
    kings=st.integers(0, 2**32 - 1),
    turn=st.integers(0, 1),
)
def test_any_bitboards_are_handled(black: int, white: int, kings: int, turn: int) -> None:
    """Overlapping or oversized piece sets: a clear ValueError, or a normal answer."""
    try:
        moves = core.legal_moves(black, white, kings, turn)
        n1 = core.perft(black, white, kings, turn, 1)
        n2 = core.perft(black, white, kings, turn, 2)
    except ValueError as exc:
        assert "R2" in str(exc) or "1024" in str(exc)
        return
    assert n1 == len(moves)
    assert n2 >= 0
    if not moves:
        assert n2 == 0


def test_invalid_position_messages() -> None:
    with pytest.raises(ValueError, match=r"both a black and a white piece \(R2\)"):
        core.legal_moves(1, 1, 0, 0)
    with pytest.raises(ValueError, match="king bit"):
        core.legal_moves(1, 2, 4, 0)
    with pytest.raises(ValueError, match="turn"):
        core.legal_moves(1, 2, 0, 2)
    with pytest.raises(ValueError, match="32-bit"):
        core.legal_moves(2**32, 0, 0, 0)
    with pytest.raises(TypeError, match="black"):
        core.legal_moves("1", 0, 0, 0)
    with pytest.raises(ValueError, match=r"rules|R18"):
        core.perft(1, 2, 0, 0, 1, rules=(False, False, 0, False))
    with pytest.raises(TypeError, match="rules"):
        core.perft(1, 2, 0, 0, 1, rules=(1, 2))


def test_searcher_rejects_garbage() -> None:
    searcher = core.Searcher(1)
    with pytest.raises(ValueError):
        searcher.search(1, 1, 0, 0, 0, 0)
    with pytest.raises(TypeError):
        searcher.search(0xFFF, 0xFFF00000, 0, 0, 0, 0, history=[(1, 2)])
    with pytest.raises(ValueError, match=r"history|R2"):
        searcher.search(0xFFF, 0xFFF00000, 0, 0, 0, 0, history=[(1, 1, 0, 0)])
    with pytest.raises(ValueError, match="halfmove"):
        searcher.search(0xFFF, 0xFFF00000, 0, 0, -1, 0)
    with pytest.raises(ValueError, match="limits"):
        searcher.search(0xFFF, 0xFFF00000, 0, 0, 0, 0, depth=-3)
    with pytest.raises(TypeError, match="callback"):
        searcher.search(0xFFF, 0xFFF00000, 0, 0, 0, 0, depth=1, callback=5)
    with pytest.raises(ValueError, match="hash_mb"):
        core.Searcher(0)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.text(alphabet="BWK:,0123456789- HCx.", max_size=40))
def test_fen_derived_inputs(text: str) -> None:
    """FEN-like strings: the library rejects them with FenError, or the engine copes."""
    try:
        board = Board(text)
    except FenError:
        return
    moves = native_legal_moves(board)
    assert len(moves) == len(board.legal_moves)
    assert perft_native(board, 2) >= 0
    if moves:
        result = Engine(hash_mb=1).search(board, Limit(depth=2))
        assert result.move in board.legal_moves
