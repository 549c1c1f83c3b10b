"""The py-draughts ``SimpleEngine`` playing American Pool Checkers, over pipes.

Run with the Python of a throwaway virtualenv that has ``py-draughts==1.10.1``
(never a dependency of poolcheckers): ``/tmp/pdvenv/bin/python
benchmarks/pydraughts_peer.py``.  It reads one request a line on stdin and
answers one line on stdout:

    go <seconds> <position>   ->  move <path> <captured>   (or: error <message>)
    quit

``<position>`` is the Hub position string (side to move ``B``/``W``, then
``w``/``b``/``W``/``B``/``e`` for squares 1-32 in the order of docs/RULES.md R2).
``<path>`` is the visited squares joined by ``-`` and ``<captured>`` the
captured squares joined by ``,`` (``-`` for none), all numbered 1-32.

The pool board is py-draughts' Russian board (8x8, men capture backwards,
flying kings, free choice of capture) with the Brazilian move core, which does
not crown a man in the middle of a capture (R15) and does not force the
longest capture (``max_capture=False``, R12).  Its square index ``i`` is our
square ``i + 1``; its Black men start on 0-11 like ours on 1-12.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np
from draughts.boards._core import CORE_BRAZILIAN
from draughts.boards.russian import Board as RussianBoard
from draughts.engines.simple import SimpleEngine
from draughts.models import Color
from loguru import logger

#: Depth cap of the peer's iterative deepening (its time limit ends it first).
MAX_DEPTH = 64

_VALUES = {"b": 1, "B": 2, "w": -1, "W": -2, "e": 0}


class PoolBoard(RussianBoard):  # type: ignore[misc]  # py-draughts is Any: not installed for mypy
    """American Pool Checkers on py-draughts' 8x8 board."""

    @property
    def legal_moves(self) -> list[Any]:
        return self._legal_moves_from_core(CORE_BRAZILIAN, max_capture=False)  # type: ignore[no-any-return]


def board_from_position(text: str) -> PoolBoard:
    """The pool board of a Hub position string."""
    if len(text) != 33 or text[0] not in "BW" or any(c not in _VALUES for c in text[1:]):
        raise ValueError(f"bad position {text!r}")
    array = np.array([_VALUES[c] for c in text[1:]], dtype=np.int8)
    turn = Color.BLACK if text[0] == "B" else Color.WHITE
    return PoolBoard(starting_position=array, turn=turn)


def answer(line: str, engine: SimpleEngine) -> str:
    """The reply to one ``go`` request."""
    parts = line.split()
    if len(parts) != 3:
        return "error expected: go <seconds> <position>"
    engine.time_limit = float(parts[1])
    board = board_from_position(parts[2])
    if not board.legal_moves:
        return "error no legal move"
    move = engine.get_best_move(board)
    path = "-".join(str(s + 1) for s in move.square_list)
    captured = ",".join(str(s + 1) for s in sorted(move.captured_list)) or "-"
    return f"move {path} {captured}"


def main() -> int:
    logger.remove()  # py-draughts logs every board made; keep the pipe clean
    engine = SimpleEngine(depth_limit=MAX_DEPTH, time_limit=1.0)
    for raw in sys.stdin:
        line = raw.strip()
        if line == "quit":
            break
        if line.startswith("go "):
            try:
                reply = answer(line, engine)
            except Exception as exc:  # reported to the driver, which stops the game
                reply = f"error {type(exc).__name__}: {exc}"
        else:
            reply = f"error unknown request {line[:40]!r}"
        sys.stdout.write(reply + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
