"""The network in numpy: features, the float model trained, its quantisation, the
integer forward pass the engine computes, and the weights file.

The shape (``native/nnue.h``): 128 features per view (own man, own king, opponent's
man, opponent's king, times the 32 squares as that side sees them: Black as the
board is, White turned half round, square s as 33 - s), a feature transformer to
``hidden`` values shared by both views, clipped ReLU on [0, 1], the side to move's
values then the other side's into a dense layer of ``l2``, clipped ReLU, and one
output in men; plus a linear term per feature ("psqt": ``x_us·p - x_them·p``), so
that material is learnt at once.

Quantisation (what the engine computes, in integers): the transformer's weights and
biases times 127 (int16: an activation of 1.0 is 127), the dense layer's weights
times 64 (int8) and its biases times 127·64 (int32), the output weights times 64
(int8), the output bias and the linear weights times 127·64 (int32): the output is
in 1/8128 of a man.  The training keeps every weight inside what its integer can
hold (:data:`LIMITS`), and its last epochs see the weights rounded to their grid
(quantisation-aware training, the gradient passing straight through the rounding).

>>> params = init_params(np.random.default_rng(1), hidden=8, l2=4)
>>> q = quantise(params)
>>> boards = np.array([(0xFFF, 0xFFF00000, 0, 0)], dtype=[("black", "<u4"), ("white", "<u4"),
...                    ("kings", "<u4"), ("stm", "u1")])
>>> int(integer_forward(q, *features(boards))[0]) == int(integer_forward(q, *features(boards))[0])
True
"""

from __future__ import annotations

import io
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from poolcheckers.engine.nnue import HEADER, INPUTS, MAGIC, VERSION, file_size, fnv1a

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

#: Output units per man in the integer network (127 · 64).
OUT_DIV: Final = 127 * 64

#: The range of each float weight, so that its integer fits and the 16-bit
#: accumulators cannot overflow with a piece on every square (32 features and a bias).
LIMITS: Final = {
    "w1": 7.5,
    "b1": 7.5,
    "w2": 127 / 64,
    "b2": 1000.0,
    "w3": 127 / 64,
    "b3": 1000.0,
    "p": 1000.0,
}

#: The quantisation grid of each weight (integer = round(float · scale)).
SCALES: Final = {
    "w1": 127.0,
    "b1": 127.0,
    "w2": 64.0,
    "b2": 127.0 * 64.0,
    "w3": 64.0,
    "b3": float(OUT_DIV),
    "p": float(OUT_DIV),
}

Params = dict[str, FloatArray]


def init_params(rng: np.random.Generator, hidden: int, l2: int) -> Params:
    """A starting network: small random weights, and the linear term set to material
    (a man 1, a king 2, in men), so that training starts from a sensible evaluation."""
    p = np.zeros(INPUTS)
    p[0:32], p[32:64], p[64:96], p[96:128] = 0.5, 1.0, -0.5, -1.0
    return {
        "w1": rng.normal(0.0, 0.1, (INPUTS, hidden)),
        "b1": np.full(hidden, 0.25),
        "w2": rng.normal(0.0, 1.0 / np.sqrt(2 * hidden), (l2, 2 * hidden)),
        "b2": np.full(l2, 0.1),
        "w3": rng.normal(0.0, 0.5 / np.sqrt(l2), l2),
        "b3": np.zeros(1),
        "p": p,
    }


def clip_params(params: Params) -> None:
    """Keep every weight inside :data:`LIMITS` (in place)."""
    for name, limit in LIMITS.items():
        np.clip(params[name], -limit, limit, out=params[name])


def fake_quantised(params: Params) -> Params:
    """The weights rounded to their integer grid, as floats."""
    return {k: np.round(v * SCALES[k]) / SCALES[k] for k, v in params.items()}


# ---------------------------------------------------------------- features
def _bits(values: npt.NDArray[Any]) -> npt.NDArray[np.uint8]:
    """(N, 32): bit s-1 of each value as column s-1."""
    return ((values.astype(np.uint64)[:, None] >> np.arange(32, dtype=np.uint64)) & 1).astype(
        np.uint8
    )


def features(boards: npt.NDArray[Any]) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.uint8]]:
    """``(x_us, x_them)``: the 128 features (0/1) of each position as the side to move
    sees it and as the other side does (rows of ``boards``: ``black``, ``white``,
    ``kings``, ``stm``)."""
    black, white, kings = _bits(boards["black"]), _bits(boards["white"]), _bits(boards["kings"])
    men_b, kings_b = black & (1 - kings), black & kings
    men_w, kings_w = white & (1 - kings), white & kings
    # Black's view: squares as they are; White's: turned half round (33 - s), own = White.
    view_black = np.concatenate([men_b, kings_b, men_w, kings_w], axis=1)
    view_white = np.concatenate(
        [men_w[:, ::-1], kings_w[:, ::-1], men_b[:, ::-1], kings_b[:, ::-1]], axis=1
    )
    white_to_move = (boards["stm"] == 1)[:, None]
    x_us = np.where(white_to_move, view_white, view_black)
    x_them = np.where(white_to_move, view_black, view_white)
    return np.ascontiguousarray(x_us), np.ascontiguousarray(x_them)


# ---------------------------------------------------------------- float model
@dataclass
class Forward:
    """The float forward pass of a batch, kept for the backward pass."""

    x_us: FloatArray
    x_them: FloatArray
    acc_us: FloatArray
    acc_them: FloatArray
    a_us: FloatArray
    a_them: FloatArray
    z: FloatArray
    h: FloatArray
    y: FloatArray  # men, side to move's view


def forward(params: Params, x_us: FloatArray, x_them: FloatArray) -> Forward:
    """The float network on a batch of features."""
    hidden = params["w1"].shape[1]
    acc_us = x_us @ params["w1"] + params["b1"]
    acc_them = x_them @ params["w1"] + params["b1"]
    a_us, a_them = np.clip(acc_us, 0.0, 1.0), np.clip(acc_them, 0.0, 1.0)
    w2 = params["w2"]
    z = a_us @ w2[:, :hidden].T + a_them @ w2[:, hidden:].T + params["b2"]
    h = np.clip(z, 0.0, 1.0)
    y = h @ params["w3"] + params["b3"][0] + (x_us - x_them) @ params["p"]
    return Forward(x_us, x_them, acc_us, acc_them, a_us, a_them, z, h, y)


def backward(params: Params, f: Forward, dy: FloatArray) -> Params:
    """The gradients of the weights given d(loss)/dy for each position of the batch."""
    hidden = params["w1"].shape[1]
    w2 = params["w2"]
    grads: Params = {
        "w3": f.h.T @ dy,
        "b3": np.array([dy.sum()]),
        "p": (f.x_us - f.x_them).T @ dy,
    }
    dz = dy[:, None] * params["w3"][None, :] * ((f.z > 0.0) & (f.z < 1.0))
    grads["w2"] = np.concatenate([dz.T @ f.a_us, dz.T @ f.a_them], axis=1)
    grads["b2"] = dz.sum(axis=0)
    da_us = (dz @ w2[:, :hidden]) * ((f.acc_us > 0.0) & (f.acc_us < 1.0))
    da_them = (dz @ w2[:, hidden:]) * ((f.acc_them > 0.0) & (f.acc_them < 1.0))
    grads["w1"] = f.x_us.T @ da_us + f.x_them.T @ da_them
    grads["b1"] = da_us.sum(axis=0) + da_them.sum(axis=0)
    return grads


def sigmoid(x: FloatArray) -> FloatArray:
    """The logistic function, without overflow warnings for large |x|."""
    out: FloatArray = 0.5 * (1.0 + np.tanh(0.5 * x))
    return out


def bce(p: FloatArray, t: FloatArray) -> float:
    """Mean cross-entropy of predictions ``p`` against soft targets ``t``."""
    p = np.clip(p, 1e-7, 1.0 - 1e-7)
    return float(np.mean(-(t * np.log(p) + (1.0 - t) * np.log(1.0 - p))))


# ---------------------------------------------------------------- integers
@dataclass(frozen=True)
class Quantised:
    """The integer weights, as the weights file holds them."""

    ft_b: IntArray  # (hidden,) int16
    ft_w: IntArray  # (128, hidden) int16
    psqt: IntArray  # (128,) int32
    l1_b: IntArray  # (l2,) int32
    l1_w: IntArray  # (l2, 2 hidden) int8
    out_b: int
    out_w: IntArray  # (l2,) int8

    @property
    def hidden(self) -> int:
        return int(self.ft_b.shape[0])

    @property
    def l2(self) -> int:
        return int(self.l1_b.shape[0])


def quantise(params: Params) -> Quantised:
    """The integer network of ``params`` (rounded to nearest, clipped to each type)."""
    q = {k: np.round(v * SCALES[k]).astype(np.int64) for k, v in params.items()}
    return Quantised(
        ft_b=np.clip(q["b1"], -32767, 32767),
        ft_w=np.clip(q["w1"], -32767, 32767),
        psqt=q["p"],
        l1_b=q["b2"],
        l1_w=np.clip(q["w2"], -127, 127),
        out_b=int(q["b3"][0]),
        out_w=np.clip(q["w3"], -127, 127),
    )


def accumulators(q: Quantised, x: npt.NDArray[np.uint8]) -> tuple[IntArray, IntArray]:
    """The feature transformer's int16 sums and the linear term of each row of ``x``."""
    acc = x.astype(np.int64) @ q.ft_w + q.ft_b
    return acc, x.astype(np.int64) @ q.psqt


def integer_forward(
    q: Quantised, x_us: npt.NDArray[np.uint8], x_them: npt.NDArray[np.uint8]
) -> IntArray:
    """What ``native/nnue.c`` computes (1/8128 of a man, side to move's view), exactly."""
    acc_us, p_us = accumulators(q, x_us)
    acc_them, p_them = accumulators(q, x_them)
    inputs = np.concatenate([np.clip(acc_us, 0, 127), np.clip(acc_them, 0, 127)], axis=1)
    s = inputs @ q.l1_w.T + q.l1_b
    x = np.clip(np.where(s <= 0, 0, s >> 6), 0, 127)
    out: IntArray = q.out_b + x @ q.out_w + p_us - p_them
    return out


def centi_men(out: IntArray) -> IntArray:
    """The engine's conversion of the output to centi-men: ``out · 100 / 8128``
    truncated towards zero (C division).

    >>> centi_men(np.array([8128, -8128, 81, -81, 160, -160])).tolist()
    [100, -100, 0, 0, 1, -1]
    """
    scaled = out * 100
    result: IntArray = np.sign(scaled) * (np.abs(scaled) // OUT_DIV)
    return result


# ---------------------------------------------------------------- files
def weights_bytes(q: Quantised) -> bytes:
    """The weights file of ``q`` (``native/nnue.c``'s layout)."""
    payload = io.BytesIO()
    payload.write(q.ft_b.astype("<i2").tobytes())
    payload.write(q.ft_w.astype("<i2").tobytes())
    payload.write(q.psqt.astype("<i4").tobytes())
    payload.write(q.l1_b.astype("<i4").tobytes())
    payload.write(q.l1_w.astype("i1").tobytes())
    payload.write(struct.pack("<i", q.out_b))
    payload.write(q.out_w.astype("i1").tobytes())
    body = payload.getvalue()
    header = HEADER.pack(MAGIC, VERSION, INPUTS, q.hidden, q.l2, fnv1a(body))
    data = header + body
    assert len(data) == file_size(q.hidden, q.l2)
    return data


def write_weights(params: Params, path: str | Path) -> int:
    """Quantise ``params`` and write the weights file; returns its size in bytes."""
    data = weights_bytes(quantise(params))
    Path(path).write_bytes(data)
    return len(data)


def read_quantised(data: bytes) -> Quantised:
    """The integer weights of a weights file's bytes (header checked)."""
    from poolcheckers.engine.nnue import check_header

    hidden, l2 = check_header(data)
    offset = HEADER.size

    def take(dtype: str, count: int) -> IntArray:
        nonlocal offset
        arr = np.frombuffer(data, dtype=dtype, count=count, offset=offset).astype(np.int64)
        offset += count * np.dtype(dtype).itemsize
        return arr

    ft_b = take("<i2", hidden)
    ft_w = take("<i2", INPUTS * hidden).reshape(INPUTS, hidden)
    psqt = take("<i4", INPUTS)
    l1_b = take("<i4", l2)
    l1_w = take("i1", l2 * 2 * hidden).reshape(l2, 2 * hidden)
    out_b = int(take("<i4", 1)[0])
    out_w = take("i1", l2)
    return Quantised(ft_b, ft_w, psqt, l1_b, l1_w, out_b, out_w)


def save_checkpoint(params: Params, path: str | Path) -> None:
    """The float weights as ``.npz`` (no pickle)."""
    with open(path, "wb") as handle:
        np.savez(handle, **params)  # type: ignore[arg-type]


def load_checkpoint(path: str | Path) -> Params:
    """Float weights written by :func:`save_checkpoint`."""
    with np.load(path, allow_pickle=False) as data:
        params = {k: np.array(data[k], dtype=np.float64) for k in LIMITS}
    return params
