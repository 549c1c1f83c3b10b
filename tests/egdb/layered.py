"""A full-state solver of every position of up to 4 pieces, by layers (NumPy).

Written from docs/RULES.md, like solver.py, and sharing no code with the
native generator: the moves come from the rules library
(:mod:`poolcheckers.movegen`), the positions from :func:`solver.positions`.
The state is the whole of what decides the game: the pieces, the side to
move, the R18 plies ``h`` and the R19 moves ``c``.  solver.py's memoised
minimax is too slow for every position of 4 pieces under 25 limits; this one
does the same backward induction a layer of states at a time:

- between zeroing plies (captures, man moves) only kings move, so the
  material and the men stay put: a *phase*.  A zeroing ply sets both counts
  to zero, so it leads to a position with fresh counts, solved before (a
  capture leads to fewer pieces, a crowning to fewer men, a man move without
  crowning to higher "progress" in the same material: the order of a man
  moving forward, R6, R15);
- inside a phase every king move adds one to ``h`` and, in 3 kings v 1 king,
  one to ``c`` when the three-king side made it (R19).  So the plies R18
  leaves, ``a18 = 2L - h``, and the plies R19 leaves (up to and including the
  three-king side's (13 - c)-th move), ``a19 = 2(13 - c) - [three-king side
  to move]``, both fall by exactly one a ply: the state (position, h, c)
  behaves as (position, the plies until the first count runs out, which
  count that is).  Layer ``r`` holds every position with ``r`` plies left;
  layer 0 is the end: R16 first (no legal move loses, R21), then R19 (c = 13:
  a draw, or with ``three_kings_limit_result=loss`` a loss for the three-king
  side; it is checked before R18 when both run out on one ply), then R18 (a
  draw).  Layer ``r + 1`` follows from layer ``r`` and the fresh values of
  the zeroing children by one minimax step;
- values for the side to move (1 win, 0 draw, -1 loss) and DTZ as
  docs/EGDB.md defines it: the winner's fastest move that keeps the win, the
  loser's slowest, a zeroing ply counting 1, a game end 0.

Layer ``r + 1`` is a function of layer ``r`` alone (for one limit, one
material, one way of ending), so two equal layers in a row mean every later
layer is equal too: the layers are computed until then and no further, and a
limit whose zeroing children have the same fresh values as the limit before
continues that limit's layers instead of starting again.  Neither shortcut
changes a value; they make 25 limits cost about what the longest phases need.
"""

from __future__ import annotations

import itertools
from array import array
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from poolcheckers import movegen
from poolcheckers.rules import RuleSet

from .solver import positions

Material = tuple[int, int, int, int]
I64 = npt.NDArray[np.int64]
I32 = npt.NDArray[np.int32]
U64 = npt.NDArray[np.uint64]
I8 = npt.NDArray[np.int8]
U8 = npt.NDArray[np.uint8]
BIG = 1 << 20
#: how a phase ends when its plies run out (layer 0 of a position with legal moves)
ENDS_BY_R18 = "R18"
ENDS_BY_R19 = "R19"


def mirror(material: Material) -> Material:
    """Colours swapped (and the board turned half a turn)."""
    bm, bk, wm, wk = material
    return (wm, wk, bm, bk)


def stored(material: Material) -> Material:
    """The orientation this solver keeps of a material and its mirror."""
    return max(material, mirror(material))


def all_materials(pieces: int) -> list[Material]:
    """Every material of up to ``pieces`` pieces (one orientation of each), in the order
    the phases depend on each other: pieces, then men."""
    out = set()
    for n in range(2, pieces + 1):
        for bm, bk, wm, wk in itertools.product(range(n + 1), repeat=4):
            if bm + bk + wm + wk == n and bm + bk and wm + wk:
                out.add(stored((bm, bk, wm, wk)))
    return sorted(out, key=lambda m: (sum(m), m[0] + m[2], m))


def strong_side(material: Material) -> int | None:
    """R19: the colour (0 Black, 1 White) with three kings and no men against a lone king."""
    if material == (0, 3, 0, 1):
        return 0
    if material == (0, 1, 0, 3):
        return 1
    return None


def _popcount(x: U64) -> I64:
    return np.bitwise_count(x).astype(np.int64)


def _reverse32(x: U64) -> U64:
    """Square s to square 33 - s (R2): bit i to bit 31 - i."""
    for shift, mask in ((1, 0x55555555), (2, 0x33333333), (4, 0x0F0F0F0F), (8, 0x00FF00FF)):
        m = np.uint64(mask)
        x = ((x >> np.uint64(shift)) & m) | ((x & m) << np.uint64(shift))
    return ((x >> np.uint64(16)) | (x << np.uint64(16))) & np.uint64(0xFFFFFFFF)


def _keys(black: U64, white: U64, kings: U64, turn: U64) -> U64:
    """One integer per position: the occupied squares, then colour and king of each piece
    in square order (2 bits each, at most 4 pieces), then the side to move."""
    occ = black | white
    rest = occ.copy()
    pattern = np.zeros_like(occ)
    for j in range(4):
        low = rest & (~rest + np.uint64(1))
        code = ((white & low) != 0).astype(np.uint64) * np.uint64(2) + ((kings & low) != 0)
        pattern |= code << np.uint64(2 * j)
        rest ^= low
    return (occ << np.uint64(9)) | (pattern << np.uint64(1)) | turn


def _progress(black: U64, white: U64, kings: U64) -> I64:
    """Rows the men have advanced (a man move, R6, adds exactly one)."""
    out = np.zeros(len(black), dtype=np.int64)
    for s in range(1, 33):
        bit = np.uint64(1 << (s - 1))
        row = (s - 1) // 4
        men = ~kings & bit
        out += np.where((black & men) != 0, row, 0) + np.where((white & men) != 0, 7 - row, 0)
    return out


@dataclass
class Phases:
    """Every position of one material (in falling progress), its moves and their children."""

    material: Material
    black: U64
    white: U64
    kings: U64
    turn: U64
    sorted_keys: U64
    order: I64  # positions by key: position order[i] has the i-th smallest key
    offsets: I64 = field(default_factory=lambda: np.zeros(1, dtype=np.int64))
    child: I32 = field(default_factory=lambda: np.zeros(0, dtype=np.int32))  # -1: zeroing
    zero_material: I8 = field(default_factory=lambda: np.zeros(0, dtype=np.int8))
    zero_index: I32 = field(default_factory=lambda: np.zeros(0, dtype=np.int32))
    #: (first position, end, first edge, end) of each group of equal progress
    groups: list[tuple[int, int, int, int]] = field(default_factory=list)

    #: index in zero_material / zero_index of each group's first zeroing move
    zero_starts: list[int] = field(default_factory=list)

    def index(self, keys: U64) -> I64:
        """The positions of these keys (each must be a position of the material)."""
        at = np.minimum(np.searchsorted(self.sorted_keys, keys), len(self.sorted_keys) - 1)
        assert (self.sorted_keys[at] == keys).all()
        return self.order[at]


def _enumerate(material: Material) -> Phases:
    rows = np.array(list(positions(material)), dtype=np.uint64).reshape(-1, 4)
    black, white, kings, turn = rows.T
    progress = _progress(black, white, kings)
    by_progress = np.argsort(-progress, kind="stable")
    black, white, kings, turn = (a[by_progress].copy() for a in (black, white, kings, turn))
    keys = _keys(black, white, kings, turn)
    order = np.argsort(keys)
    return Phases(material, black, white, kings, turn, keys[order], order)


def _moves(ph: Phases, rules: RuleSet) -> tuple[I64, U64, U64, U64, npt.NDArray[np.bool_]]:
    """Per position its number of legal moves, and per move the child's bitboards and
    whether the move is a zeroing ply (a capture or a man move)."""
    counts = np.zeros(len(ph.black), dtype=np.int64)
    cb, cw, ck, zf = array("Q"), array("Q"), array("Q"), array("b")
    for i, (b, w, k, t) in enumerate(
        zip(ph.black.tolist(), ph.white.tolist(), ph.kings.tolist(), ph.turn.tolist(), strict=True)
    ):
        own, opp = (b, w) if t == 0 else (w, b)
        moves = movegen.generate(own, opp, k, t, rules)
        counts[i] = len(moves)
        for move in moves:
            own2, opp2, kings2, _ = movegen.apply(own, opp, k, t, move)
            b2, w2 = (own2, opp2) if t == 0 else (opp2, own2)
            cb.append(b2)
            cw.append(w2)
            ck.append(kings2)
            zf.append(bool(move.captured) or not k & (1 << (move.origin - 1)))
    return (
        counts,
        np.frombuffer(cb, dtype=np.uint64),
        np.frombuffer(cw, dtype=np.uint64),
        np.frombuffer(ck, dtype=np.uint64),
        np.frombuffer(zf, dtype=np.int8).astype(bool),
    )


def build_phases(pieces: int, rules: RuleSet) -> dict[Material, Phases]:
    """Every position of up to ``pieces`` pieces with its moves (``rules``' crowning, R15)."""
    assert pieces <= 4  # _keys holds the colour and kind of at most 4 pieces
    mats = all_materials(pieces)
    out = {m: _enumerate(m) for m in mats}
    slot = {m: i for i, m in enumerate(mats)}
    for m in mats:
        ph = out[m]
        counts, cb, cw, ck, zero = _moves(ph, rules)
        ph.offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
        parent = np.repeat(np.arange(len(counts)), counts)
        ct = np.uint64(1) - ph.turn[parent]
        child = np.full(len(cb), -1, dtype=np.int32)
        quiet = ~zero
        child[quiet] = ph.index(_keys(cb[quiet], cw[quiet], ck[quiet], ct[quiet]))
        # king moves keep the men: the child is in the parent's group
        progress = _progress(ph.black, ph.white, ph.kings)
        assert (progress[child[quiet]] == progress[parent[quiet]]).all()
        zb, zw, zk, zt = cb[zero], cw[zero], ck[zero], ct[zero]
        mover_after = np.where(zt == 0, zw, zb)  # the side that moved
        assert (mover_after != 0).all()
        to_move = np.where(zt == 0, zb, zw)
        zmat = np.full(len(zb), -1, dtype=np.int8)  # -1: no piece left to move (R16)
        zidx = np.zeros(len(zb), dtype=np.int32)
        cm = np.stack(
            [_popcount(zb & ~zk), _popcount(zb & zk), _popcount(zw & ~zk), _popcount(zw & zk)], 1
        )
        for row in np.unique(cm[to_move != 0], axis=0).tolist():
            mat: Material = (row[0], row[1], row[2], row[3])
            sel = (to_move != 0) & (cm == np.array(mat)).all(1)
            b, w, k, t = zb[sel], zw[sel], zk[sel], zt[sel]
            if stored(mat) != mat:
                b, w, k, t = (
                    _reverse32(zw[sel]),
                    _reverse32(zb[sel]),
                    _reverse32(k),
                    np.uint64(1) - t,
                )
            zmat[sel] = slot[stored(mat)]
            zidx[sel] = out[stored(mat)].index(_keys(b, w, k, t))
        same = zmat == slot[m]
        if same.any():  # a man move: higher progress, solved first
            zero_parent = parent[zero]
            assert (progress[zidx[same]] > progress[zero_parent[same]]).all()
        ph.child, ph.zero_material, ph.zero_index = child, zmat, zidx
        edges = ph.offsets
        bounds = np.flatnonzero(np.diff(progress)) + 1
        starts = [0, *bounds.tolist()]
        ends = [*bounds.tolist(), len(progress)]
        ph.groups = [
            (p0, p1, int(edges[p0]), int(edges[p1])) for p0, p1 in zip(starts, ends, strict=True)
        ]
        zero_before = np.concatenate(([0], np.cumsum(zero)))
        ph.zero_starts = [int(zero_before[e0]) for _, _, e0, _ in ph.groups]
    return out


@dataclass
class _Layers:
    """The layers of one group of phases for one way of ending and one set of fresh values
    of the zeroing children: layer r is (value, DTZ) of each position with r plies left."""

    zero_value: I64
    values: list[I8]
    dtz: list[U8]
    settled: bool = False  # the last two layers are equal, so are all later ones


class LayeredSolver:
    """Fresh values and values under running counts, for one R19 option and one crowning
    option, limit by limit (call :meth:`solve` with rising limits to reuse layers)."""

    def __init__(self, phases: dict[Material, Phases], three_kings_loss: bool) -> None:
        self.phases = phases
        self.mats = list(phases)
        self.loss = three_kings_loss
        self.limit = 0
        self.fresh: dict[Material, tuple[I8, U8]] = {}
        self._layers: dict[tuple[Material, int, str], _Layers] = {}
        self._zero_values: dict[tuple[Material, int], I64] = {}

    def solve(self, limit: int) -> None:
        """Solve every material under ``king_only_move_limit=limit`` (R18: 2L plies)."""
        self.limit = limit
        self.fresh = {}
        self._zero_values = {}
        for m in self.mats:
            ph = self.phases[m]
            value = np.zeros(len(ph.black), dtype=np.int8)
            dtz = np.zeros(len(ph.black), dtype=np.uint8)
            self.fresh[m] = (value, dtz)  # filled group by group (man moves read earlier ones)
            for g in range(len(ph.groups)):
                p0, p1, _, _ = ph.groups[g]
                rows = np.arange(p0, p1)
                v, d = self.values(
                    m, rows, np.zeros(len(rows), dtype=np.int64), np.zeros_like(rows)
                )
                value[p0:p1], dtz[p0:p1] = v, d

    def values(self, material: Material, rows: I64, h: I64, c: I64) -> tuple[I8, U8]:
        """(value, DTZ) of positions ``rows`` of ``material`` (all in one group, or any
        once the material is solved) with R18 plies ``h`` and R19 moves ``c``."""
        ph = self.phases[material]
        strong = strong_side(material)
        a18 = np.maximum(2 * self.limit - h, 0)
        if strong is None:
            budget, ends = a18, np.zeros(len(rows), dtype=bool)
        else:
            a19 = np.maximum(2 * (13 - c) - (ph.turn[rows] == strong), 0)
            ends = a19 <= a18  # R19 runs out first, or with R18 (R19 is checked first)
            budget = np.minimum(a18, a19)
        value = np.zeros(len(rows), dtype=np.int8)
        dtz = np.zeros(len(rows), dtype=np.uint8)
        starts = np.array([g[0] for g in ph.groups])
        group = np.searchsorted(starts, rows, side="right") - 1
        for g in np.unique(group).tolist():
            for by_r19 in (False, True):
                sel = (group == g) & (ends == by_r19)
                if not sel.any():
                    continue
                kind = ENDS_BY_R19 if by_r19 and self.loss else ENDS_BY_R18
                layers = self._group_layers(material, g, kind)
                local = rows[sel] - ph.groups[g][0]
                for r in np.unique(budget[sel]).tolist():
                    at = budget[sel] == r
                    v, d = self._layer(layers, material, g, kind, r)
                    value[np.flatnonzero(sel)[at]] = v[local[at]]
                    dtz[np.flatnonzero(sel)[at]] = d[local[at]]
        return value, dtz

    def _zero_value(self, material: Material, g: int) -> I64:
        """The mover's value after each zeroing move of group g (the child's fresh value)."""
        known = self._zero_values.get((material, g))
        if known is not None:
            return known
        ph = self.phases[material]
        first = ph.zero_starts[g]
        end = ph.zero_starts[g + 1] if g + 1 < len(ph.groups) else len(ph.zero_material)
        zmat, zidx = ph.zero_material[first:end], ph.zero_index[first:end]
        out = np.ones(len(zmat), dtype=np.int64)  # nothing left to move: a win (R16)
        for s in np.unique(zmat[zmat >= 0]).tolist():
            here = zmat == s
            out[here] = -self.fresh[self.mats[s]][0][zidx[here]].astype(np.int64)
        self._zero_values[(material, g)] = out
        return out

    def _group_layers(self, material: Material, g: int, kind: str) -> _Layers:
        ph = self.phases[material]
        zv = self._zero_value(material, g)
        key = (material, g, kind)
        known = self._layers.get(key)
        if known is None or not np.array_equal(known.zero_value, zv):
            p0, p1, _, _ = ph.groups[g]
            has_moves = np.diff(ph.offsets[p0 : p1 + 1]) > 0
            end = np.zeros(p1 - p0, dtype=np.int8)
            if kind == ENDS_BY_R19:  # three_kings_limit_result=loss: the three-king side loses
                strong = strong_side(material)
                end = np.where(ph.turn[p0:p1] == strong, -1, 1).astype(np.int8)
            first = np.where(has_moves, end, -1).astype(np.int8)  # R16 first (R21)
            known = _Layers(zv, [first], [np.zeros(p1 - p0, dtype=np.uint8)])
            self._layers[key] = known
        return known

    def _layer(
        self, layers: _Layers, material: Material, g: int, kind: str, r: int
    ) -> tuple[I8, U8]:
        ph = self.phases[material]
        p0, p1, e0, e1 = ph.groups[g]
        while len(layers.values) <= r and not layers.settled:
            value, dtz = layers.values[-1], layers.dtz[-1]
            child = ph.child[e0:e1]
            zero = child < 0
            local = np.where(zero, 0, child - p0)
            v = np.zeros(e1 - e0, dtype=np.int64)
            v[zero] = layers.zero_value
            v[~zero] = -value[local[~zero]]
            plies = np.where(zero, 1, 1 + dtz[local].astype(np.int64))
            counts = np.diff(ph.offsets[p0 : p1 + 1])
            has = counts > 0
            starts = (ph.offsets[p0:p1] - e0)[has]
            new_v = np.full(p1 - p0, -1, dtype=np.int64)  # no legal move: a loss (R16)
            new_d = np.zeros(p1 - p0, dtype=np.int64)
            if len(starts):
                best = np.maximum.reduceat(v, starts)
                fastest = np.minimum.reduceat(np.where(v == 1, plies, BIG), starts)
                slowest = np.maximum.reduceat(plies, starts)
                new_v[has] = best
                new_d[has] = np.where(best == 1, fastest, np.where(best == -1, slowest, 0))
            nv, nd = new_v.astype(np.int8), new_d.astype(np.uint8)
            assert new_d.max(initial=0) < 256
            if np.array_equal(nv, value) and np.array_equal(nd, dtz):
                layers.settled = True
            else:
                layers.values.append(nv)
                layers.dtz.append(nd)
        r = min(r, len(layers.values) - 1)
        return layers.values[r], layers.dtz[r]
