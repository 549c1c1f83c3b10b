"""Training the network: Adam over shuffled minibatches on the cross-entropy between
the predicted result and a blended label, reproducible bit for bit from a seed.

The label of a position (side to move's view) is ``blend · σ(score / scale) +
(1 - blend) · result``: the search's score turned into an expected result by the
same sigmoid the network's output goes through, mixed with the game's result
(Stockfish's "lambda").  A table position's value is exact and is the label alone.
The prediction is ``σ(100 · y / scale)`` for the network's output ``y`` in men.

Validation holds out whole games (their positions are correlated), chosen by the
seed.  The last quarter of the epochs sees the weights rounded to their integer
grid (the gradient passing straight through), so that the file the engine reads
loses little to quantisation; the loss of the integer network itself is reported.

>>> rng = np.random.default_rng(0)
>>> from poolcheckers.tooling.nnue.data import RECORD
>>> records = np.zeros(64, dtype=RECORD)
>>> records["black"], records["white"] = 0xFFF, 0xFFF00000
>>> records["result"], records["game"] = 0.5, np.arange(64)
>>> first = fit(records, TrainConfig(hidden=8, l2=4, epochs=2, batch=16, seed=3))
>>> again = fit(records, TrainConfig(hidden=8, l2=4, epochs=2, batch=16, seed=3))
>>> all(np.array_equal(first.params[k], again.params[k]) for k in first.params)
True
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from poolcheckers.tooling.nnue import model
from poolcheckers.tooling.nnue.data import Records


@dataclass(frozen=True)
class TrainConfig:
    """The training's parameters (``poolcheckers nnue train``)."""

    hidden: int = 64
    l2: int = 16
    epochs: int = 30
    batch: int = 1024
    learning_rate: float = 2e-3
    blend: float = 0.5
    scale: float = 200.0
    validation: float = 0.1
    seed: int = 1
    #: share of the epochs, at the end, trained on the rounded weights
    quantised_share: float = 0.25


@dataclass
class FitResult:
    """The trained float weights and the losses of each epoch."""

    params: model.Params
    train_loss: list[float] = field(default_factory=list)
    validation_loss: list[float] = field(default_factory=list)
    #: the integer network's validation loss (what the engine computes)
    quantised_loss: float = math.nan
    #: the validation loss of the material alone (a man 1, a king 2): the bar
    material_loss: float = math.nan
    train_positions: int = 0
    validation_positions: int = 0


def targets(records: Records, blend: float, scale: float) -> model.FloatArray:
    """The label of each record: the blend of its score's expected result and its
    result; a table position's (``exact``) is its result.

    >>> from poolcheckers.tooling.nnue.data import RECORD
    >>> r = np.zeros(2, dtype=RECORD)
    >>> r["score"], r["result"], r["exact"] = (0, 0), (1.0, 1.0), (0, 1)
    >>> targets(r, 0.5, 200.0).tolist()
    [0.75, 1.0]
    """
    from_score = model.sigmoid(records["score"].astype(np.float64) / scale)
    blended = blend * from_score + (1.0 - blend) * records["result"].astype(np.float64)
    out: model.FloatArray = np.where(records["exact"] == 1, records["result"], blended)
    return out


def split_games(records: Records, share: float, seed: int) -> tuple[Any, Any]:
    """Boolean masks ``(train, validation)``: about ``share`` of the games held out."""
    games = np.unique(records["game"])
    rng = np.random.default_rng([seed, 1])
    held = games[rng.permutation(len(games))[: round(share * len(games))]]
    validation = np.isin(records["game"], held)
    return ~validation, validation


class Adam:
    """Adam on a dict of arrays (in place)."""

    def __init__(self, params: model.Params, lr: float) -> None:
        self.lr = lr
        self.m = {k: np.zeros_like(v) for k, v in params.items()}
        self.v = {k: np.zeros_like(v) for k, v in params.items()}
        self.t = 0

    def step(self, params: model.Params, grads: model.Params, lr: float) -> None:
        self.t += 1
        b1, b2, eps = 0.9, 0.999, 1e-8
        for k, g in grads.items():
            self.m[k] = b1 * self.m[k] + (1 - b1) * g
            self.v[k] = b2 * self.v[k] + (1 - b2) * g * g
            m_hat = self.m[k] / (1 - b1**self.t)
            v_hat = self.v[k] / (1 - b2**self.t)
            params[k] -= lr * m_hat / (np.sqrt(v_hat) + eps)


def _loss(params: model.Params, xu: Any, xt: Any, t: model.FloatArray, scale: float) -> float:
    total, n = 0.0, len(t)
    for start in range(0, n, 8192):
        f = model.forward(
            params,
            xu[start : start + 8192].astype(np.float64),
            xt[start : start + 8192].astype(np.float64),
        )
        total += model.bce(model.sigmoid(100.0 * f.y / scale), t[start : start + 8192]) * len(f.y)
    return total / max(n, 1)


def material_params(params: model.Params) -> model.Params:
    """The network reduced to its starting linear term: material alone."""
    out = {k: np.zeros_like(v) for k, v in params.items()}
    out["p"] = model.init_params(np.random.default_rng(0), 8, 1)["p"]
    return out


def fit(
    records: Records,
    config: TrainConfig,
    on_epoch: Callable[[int, float, float], None] | None = None,
    on_batch: Callable[[], None] | None = None,
) -> FitResult:
    """Train a network on ``records`` with ``config``."""
    rng = np.random.default_rng(config.seed)
    x_us, x_them = model.features(records)
    t = targets(records, config.blend, config.scale)
    train, validation = split_games(records, config.validation, config.seed)
    tx_us, tx_them, tt = x_us[train], x_them[train], t[train]
    vx_us, vx_them, vt = x_us[validation], x_them[validation], t[validation]
    params = model.init_params(rng, config.hidden, config.l2)
    adam = Adam(params, config.learning_rate)
    result = FitResult(params, train_positions=len(tt), validation_positions=len(vt))
    result.material_loss = _loss(material_params(params), vx_us, vx_them, vt, config.scale)
    n = len(tt)
    quantised_from = config.epochs - round(config.quantised_share * config.epochs)
    for epoch in range(config.epochs):
        # cosine decay of the learning rate down to a twentieth
        lr = config.learning_rate * (
            0.05 + 0.95 * 0.5 * (1 + math.cos(math.pi * epoch / config.epochs))
        )
        order = rng.permutation(n)
        total = 0.0
        for start in range(0, n, config.batch):
            idx = order[start : start + config.batch]
            used = model.fake_quantised(params) if epoch >= quantised_from else params
            f = model.forward(used, tx_us[idx].astype(np.float64), tx_them[idx].astype(np.float64))
            p = model.sigmoid(100.0 * f.y / config.scale)
            total += model.bce(p, tt[idx]) * len(idx)
            dy = (p - tt[idx]) * (100.0 / config.scale) / len(idx)
            adam.step(params, model.backward(used, f, dy), lr)
            model.clip_params(params)
            if on_batch is not None:
                on_batch()
        result.train_loss.append(total / max(n, 1))
        result.validation_loss.append(_loss(params, vx_us, vx_them, vt, config.scale))
        if on_epoch is not None:
            on_epoch(epoch, result.train_loss[-1], result.validation_loss[-1])
    q = model.quantise(params)
    if len(vt):
        out = model.integer_forward(q, vx_us, vx_them)
        result.quantised_loss = model.bce(
            model.sigmoid(100.0 * out / model.OUT_DIV / config.scale), vt
        )
    return result


def plot_losses(result: FitResult, path: str, title: str) -> None:
    """Training and validation loss per epoch, with the integer network's and the
    material's validation loss as lines."""
    from poolcheckers.tooling.plots import _pyplot

    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.5))
    epochs = np.arange(1, len(result.train_loss) + 1)
    ax.plot(epochs, result.train_loss, label="training")
    ax.plot(epochs, result.validation_loss, label="validation")
    if not math.isnan(result.quantised_loss):
        ax.axhline(
            result.quantised_loss, color="C2", linestyle="--", label="validation, integer network"
        )
    if not math.isnan(result.material_loss):
        ax.axhline(
            result.material_loss, color="C3", linestyle=":", label="validation, material alone"
        )
    ax.set_xlabel("epoch")
    ax.set_ylabel("cross-entropy")
    ax.set_title(title)
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
