"""The Texel tuning pipeline end to end, as ``poolcheckers tune`` runs it.

Games (played by the engine against itself from the ballots, or loaded from a
file of games or from PDN), their quiet positions, the feature columns, the
fit of the weights (and of a pattern table), the error on held-out games, and
the files written: the weights, the pattern table.  The steps themselves are
:mod:`poolcheckers.tooling.tune`; this module strings them together from one
set of :class:`TuneOptions` and returns the lines that report the fit.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from tqdm import tqdm

from poolcheckers.engine import open_engine
from poolcheckers.errors import PdnError
from poolcheckers.tooling import ToolingError
from poolcheckers.tooling import tune as texel
from poolcheckers.tooling.openings import DEFAULT_BALLOTS, load_ballots


@dataclass(frozen=True)
class TuneOptions:
    """What ``poolcheckers tune`` takes (its options of the same names)."""

    output: Path
    games: int = 2000
    nodes: int = 5000
    random_plies: int = 4
    skip_plies: int = 10
    seed: int = 1
    steps: int = 3000
    concurrency: int = 1
    #: a JSON weights file to start from (None: the shipped weights)
    weights: str | None = None
    #: the weights to fit (None: :data:`~poolcheckers.tooling.tune.TUNED`; empty: none)
    names: tuple[str, ...] | None = None
    l2: float = 0.0
    quiet_both_sides: bool = False
    save_games: str | None = None
    load_games: str | None = None
    load_pdn: tuple[str, ...] = ()
    holdout: float = 0.0
    #: the window set of a pattern table to fit too (None: no table)
    patterns: str | None = None
    pattern_l2: float = 3000.0
    pattern_phases: int = 2
    pattern_output: Path | None = None
    ballots: str = str(DEFAULT_BALLOTS)


def run_tuning(o: TuneOptions) -> list[str]:
    """Play or load the games, fit, write the weights (and the pattern table);
    the lines that report it.  Progress bars go to standard error."""
    lines: list[str] = []
    left_out: dict[str, int] = {}
    if o.load_games:
        try:
            games = texel.load_games(o.load_games)
        except (OSError, ValueError, KeyError) as exc:
            raise ToolingError(f"--load-games {o.load_games}: {exc}") from None
    elif o.load_pdn:
        try:
            load = texel.games_from_pdn(list(o.load_pdn))
        except (OSError, PdnError) as exc:
            raise ToolingError(f"--load-pdn: {exc}") from None
        games, left_out = load.games, load.left_out
    else:
        openings = load_ballots(o.ballots)
        tasks = texel.game_tasks(openings, o.games, o.seed, o.nodes, o.random_plies)
        with tqdm(
            total=len(tasks), desc="games", unit="game", file=sys.stderr, disable=None
        ) as bar:

            def on_game(game: texel.SelfPlayGame) -> None:
                bar.update()

            games = texel.play_games(tasks, concurrency=o.concurrency, on_game=on_game)
    if o.save_games:
        texel.save_games(games, o.save_games)
    fit_games, held_games = texel.holdout_split(games, o.holdout, o.seed)
    positions = texel.quiet_positions(
        fit_games, skip_plies=o.skip_plies, both_sides=o.quiet_both_sides
    )
    held = texel.quiet_positions(held_games, skip_plies=o.skip_plies, both_sides=o.quiet_both_sides)
    if len(positions) < 100:
        raise ToolingError(f"only {len(positions)} quiet positions: play more games")
    boards = [b for b, _ in positions + held]
    results = np.array([r for _, r in positions], dtype=np.float64)
    held_results = np.array([r for _, r in held], dtype=np.float64)
    engine = open_engine(1, weights=o.weights, evaluation="pattern")  # the weights fitted
    start_weights = engine.weights
    names = texel.TUNED if o.names is None else o.names
    unknown = [n for n in names if n not in start_weights]
    if unknown:
        raise ToolingError(f"--names: unknown weight(s) {', '.join(unknown)}")
    if o.patterns:
        # the table is fitted from 0: the start is the evaluation without patterns
        engine.set_weights({"patterns": 0})
        start_weights = engine.weights
    with tqdm(total=len(names), desc="features", file=sys.stderr, disable=None) as bar:

        def on_column(name: str) -> None:
            bar.update()

        x_all, base = texel.feature_matrix(engine, boards, names, on_column=on_column)
    start = np.array([start_weights[n] for n in names], dtype=np.float64)
    offset_all = base - x_all @ start  # the part of the evaluation that is not tuned (the men)
    n_fit = len(positions)
    x, offset = x_all[:n_fit], offset_all[:n_fit]
    windows = texel.WINDOW_SETS[o.patterns] if o.patterns else ()
    size = len(windows) * texel.PATTERN_CONFIGS
    phases = o.pattern_phases
    plus, minus, coef = texel.phased(
        *texel.pattern_features(boards, windows), texel.piece_counts(boards), phases
    )
    size *= phases
    with tqdm(total=o.steps, desc="fit", file=sys.stderr, disable=None) as bar:

        def on_step(step: int, loss: float) -> None:
            bar.n = step
            bar.set_postfix_str(f"error {loss:.6f}")
            bar.refresh()

        if o.patterns:
            result: texel.FitResult | texel.PatternFit = texel.fit_patterns(
                x, results, offset, start, plus[:n_fit], minus[:n_fit], size,
                steps=o.steps, l2=o.l2, pattern_l2=o.pattern_l2,
                coef=None if coef is None else coef[:n_fit], on_step=on_step,
            )  # fmt: skip
        else:
            result = texel.fit(x, results, offset, start, steps=o.steps, l2=o.l2, on_step=on_step)
    table = result.table if isinstance(result, texel.PatternFit) else np.zeros(0)
    fitted = {n: int(v) for n, v in zip(names, result.weights, strict=True)}
    scores = [r for _, r in positions]
    if o.load_games:
        origin = f"from {o.load_games}"
    elif o.load_pdn:
        origin = f"from {len(o.load_pdn)} PDN file(s)"
        if left_out:
            reasons = ", ".join(f"{n} {why}" for why, n in sorted(left_out.items()))
            origin += f" ({reasons} left out)"
    else:
        origin = f"(seed {o.seed}, {o.nodes} nodes a move)"
    lines.append(
        f"{len(games)} games {origin}, {len(fit_games)} fitted on: "
        f"{len(positions)} quiet positions, mean result {sum(scores) / len(scores):.3f}",
    )
    lines.append(
        f"K = {result.k:.3f}; error {result.loss_before:.6f} -> {result.loss_after:.6f}",
    )
    held_text = ""
    if held:
        x_held, offset_held = x_all[n_fit:], offset_all[n_fit:]
        before = texel.mse(offset_held + x_held @ start, held_results, result.k)
        held_coef = None if coef is None else coef[n_fit:]
        held_patterns = texel.pattern_scores(table, plus[n_fit:], minus[n_fit:], held_coef)
        after = texel.mse(
            offset_held + x_held @ result.weights + held_patterns, held_results, result.k
        )
        held_text = (
            f"held out: {len(held_games)} games, {len(held)} quiet positions; "
            f"error {before:.6f} -> {after:.6f}"
        )
        lines.append(held_text)
    for name in names:
        lines.append(f"  {name:<14} {start_weights[name]:>5} -> {fitted[name]:>5}")
    if o.patterns:
        entries = table.reshape(phases, len(windows), texel.PATTERN_CONFIGS).sum(axis=0)
        lines.append(
            f"  patterns: {len(windows)} windows ({o.patterns}), {phases} phase(s), "
            f"{int(np.count_nonzero(table))} of {size} weights not 0, "
            f"largest {int(np.abs(table).max())}; by window: "
            + " ".join(
                f"{r},{k}:{int(np.abs(e).sum())}"
                for (r, k), e in zip(windows, entries, strict=True)
            ),
        )
        fitted["patterns"] = 100
        options = [
            f"--seed {o.seed}",
            f"--skip-plies {o.skip_plies}",
            f"--holdout {o.holdout:g}",
            *(["--quiet-both-sides"] if o.quiet_both_sides else []),
            f"--names {','.join(names) if names else 'none'}",
            f"--l2 {o.l2:g}",
            f"--steps {o.steps}",
            f"--patterns {o.patterns}",
            f"--pattern-phases {phases}",
            f"--pattern-l2 {o.pattern_l2:g}",
        ]
        about = (
            f"poolcheckers tune {' '.join(options)}: {len(positions)} positions {origin}; "
            f"K = {result.k:.3f}, error {result.loss_before:.6f} -> {result.loss_after:.6f}"
        )
        if held_text:
            about += f"; {held_text}"
        texel.save_pattern_table(str(o.pattern_output), windows, table, about, phases)
        lines.append(f"pattern table saved to {o.pattern_output}")
    o.output.write_text(json.dumps(fitted, indent=1) + "\n", encoding="utf-8")
    lines.append(f"weights saved to {o.output}")
    return lines
