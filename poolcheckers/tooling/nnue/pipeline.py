"""The steps of ``poolcheckers nnue`` with their progress bars and reports.

Each step yields the lines the command prints; the bars go to stderr (tqdm,
hidden when stderr is not a terminal).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from poolcheckers.tooling.nnue.train import TrainConfig


def _bar(total: int | None, desc: str, unit: str):  # type: ignore[no-untyped-def]
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit=unit, disable=None, file=sys.stderr, leave=False)


@dataclass(frozen=True)
class DataOptions:
    """What ``nnue data`` gathers (see :mod:`poolcheckers.commands.nnue`)."""

    output: Path
    games: int = 2000
    nodes: int = 3000
    random_plies: int = 6
    seed: int = 1
    concurrency: int = 1
    pdn: tuple[str, ...] = ()
    pdn_per_game: int = 8
    pdn_games: int | None = None
    tables: str | None = None
    table_positions: int = 20000
    ballots: str | None = None
    evaluation: str = "pattern"


def _count(records: np.ndarray, name: str, seconds: float) -> str:
    return f"{name}: {len(records)} positions in {seconds:.0f} s"


def gather(options: DataOptions) -> Iterator[str]:
    """Gather the positions of ``options``, write them, and say how many from where."""
    from poolcheckers.tooling.nnue import data
    from poolcheckers.tooling.openings import DEFAULT_BALLOTS, load_ballots

    parts = []
    next_game = 0
    if options.games:
        openings = load_ballots(options.ballots or DEFAULT_BALLOTS)
        tasks = data.selfplay_tasks(
            openings,
            options.games,
            options.seed,
            options.nodes,
            options.random_plies,
            options.evaluation,
        )
        start = time.perf_counter()
        with _bar(len(tasks), "self-play", "game") as bar:
            part = data.selfplay_records(
                tasks, concurrency=options.concurrency, on_game=lambda: bar.update(1)
            )
        parts.append(part)
        next_game += len(tasks)
        yield _count(part, f"self-play, {options.games} games", time.perf_counter() - start)
    if options.pdn:
        start = time.perf_counter()
        with _bar(None, "match games", "game") as bar:
            part, left_out = data.pdn_records(
                options.pdn,
                per_game=options.pdn_per_game,
                nodes=options.nodes,
                first_game=next_game,
                max_games=options.pdn_games,
                seed=options.seed,
                concurrency=options.concurrency,
                on_game=lambda: bar.update(1),
                on_total=lambda n: bar.reset(total=n),
                evaluation=options.evaluation,
            )
        parts.append(part)
        next_game += int(part["game"].max()) + 1 - next_game if len(part) else 0
        games = len(np.unique(part["game"])) if len(part) else 0
        left = ", ".join(f"{n} {why}" for why, n in sorted(left_out.items())) or "none"
        yield _count(part, f"match games, {games} games", time.perf_counter() - start)
        yield f"match games left out: {left}"
    if options.tables:
        from poolcheckers.engine.tables import open_tables

        tables = open_tables(options.tables)
        if tables is None:
            yield f"tables: none in {options.tables}, no table positions"
        else:
            start = time.perf_counter()
            with _bar(options.table_positions, "tables", "position") as bar:
                part = data.table_records(
                    tables,
                    options.table_positions,
                    options.seed,
                    next_game,
                    on_position=lambda: bar.update(1),
                )
            parts.append(part)
            yield _count(part, f"tables ({tables.max_pieces} pieces)", time.perf_counter() - start)
    records = np.concatenate(parts) if parts else data.to_records([])
    data.save_records(records, str(options.output))
    yield f"wrote {options.output}: {len(records)} positions"


@dataclass(frozen=True)
class TrainOptions:
    """What ``nnue train`` does (see :mod:`poolcheckers.commands.nnue`)."""

    data: tuple[str, ...]
    output: Path
    checkpoint: Path | None = None
    plot: Path | None = None
    config: TrainConfig = field(default_factory=TrainConfig)


def train_network(options: TrainOptions) -> Iterator[str]:
    """Train on the positions of ``options.data``, write the weights file (and the
    checkpoint and plot), and report the losses."""
    from poolcheckers.tooling.nnue import model
    from poolcheckers.tooling.nnue.data import load_records
    from poolcheckers.tooling.nnue.train import fit, plot_losses

    parts = [load_records(path) for path in options.data]
    offset = 0
    for part in parts:  # the game numbers of each file after the files before it
        part["game"] += offset
        offset = int(part["game"].max()) + 1 if len(part) else offset
    records = np.concatenate(parts)
    config = options.config
    yield f"positions: {len(records)} from {len(np.unique(records['game']))} games or table draws"
    start = time.perf_counter()
    cpu = time.process_time()
    steps = -(-int(len(records) * (1 - config.validation)) // config.batch) * config.epochs
    lines: list[str] = []
    with _bar(steps, "training", "batch") as bar:

        def on_epoch(epoch: int, train: float, validation: float) -> None:
            lines.append(f"epoch {epoch + 1:3d}: training {train:.5f}, validation {validation:.5f}")
            bar.write(lines[-1], file=sys.stderr)  # as it comes, above the bar

        result = fit(records, config, on_epoch=on_epoch, on_batch=lambda: bar.update(1))
    yield from lines
    yield (
        f"trained on {result.train_positions} positions, validated on "
        f"{result.validation_positions}, in {time.perf_counter() - start:.0f} s "
        f"({time.process_time() - cpu:.0f} s CPU)"
    )
    yield (
        f"validation loss: {result.validation_loss[-1]:.5f} float, "
        f"{result.quantised_loss:.5f} integer (the engine's), "
        f"{result.material_loss:.5f} material alone"
    )
    size = model.write_weights(result.params, options.output)
    yield f"wrote {options.output} ({size} bytes)"
    if options.checkpoint is not None:
        model.save_checkpoint(result.params, options.checkpoint)
        yield f"wrote {options.checkpoint}"
    if options.plot is not None:
        plot_losses(
            result,
            str(options.plot),
            f"nnue train: {len(records)} positions, (128 -> {config.hidden}) x 2 -> 16 -> 1, "
            f"seed {config.seed}",
        )
        yield f"wrote {options.plot}"
