"""PNG plots of matches, SPRT runs and ladders (matplotlib, of the ``tooling`` extra).

Each function draws off screen (the Agg backend) and closes its figure, so a
long run that plots as it goes does not pile figures up.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from poolcheckers.tooling.ladder import Step, ladder_elo
from poolcheckers.tooling.match import MatchResult, SprtRun
from poolcheckers.tooling.sprt import Pentanomial, bounds, estimate
from poolcheckers.tooling.stats import Z_95, elo_estimate, logistic_score


def _pyplot() -> Any:
    """matplotlib's pyplot on the Agg backend (no display needed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_sprt(run: SprtRun, path: str | Path, title: str) -> None:
    """A PNG of A's running score (with its 95 % band, from pairs) and the LLR
    against its bounds, over the games."""
    plt = _pyplot()
    xs, scores, lows, highs = [], [], [], []
    for n in range(1, len(run.pair_points) + 1):
        e = estimate(Pentanomial.from_pairs(run.pair_points[:n]))
        se = (e.score - _score_of_elo(e.elo_low)) if n > 1 else 0.0
        xs.append(2 * n)
        scores.append(100 * e.score)
        lows.append(100 * max(0.0, e.score - se))
        highs.append(100 * min(1.0, e.score + se))
    if run.sprt is not None:
        fig, (top, bottom) = plt.subplots(2, 1, figsize=(8, 6.5), dpi=100, sharex=True)
    else:  # pairs without a test: the score only
        fig, top = plt.subplots(figsize=(8, 4.5), dpi=100)
        bottom = None
    top.fill_between(xs, lows, highs, color="tab:blue", alpha=0.2, label="95% interval")
    top.plot(xs, scores, color="tab:blue", label=f"score of {run.name_a}")
    top.axhline(50, color="grey", linewidth=0.8, linestyle="--")
    top.set_ylabel("score (%)")
    top.legend(loc="lower right")
    if run.sprt is not None and bottom is not None:
        lower, upper = bounds(run.sprt.alpha, run.sprt.beta)
        bottom.plot(xs, run.llrs, color="tab:green", label="LLR")
        bottom.axhline(upper, color="tab:green", linestyle="--", linewidth=0.8, label="accept H1")
        bottom.axhline(lower, color="tab:red", linestyle="--", linewidth=0.8, label="accept H0")
        bottom.set_xlabel("games")
        bottom.set_ylabel("log-likelihood ratio")
        bottom.legend(loc="upper left")
    else:
        top.set_xlabel("games")
    final = run.summary().splitlines()
    top.set_title(f"{title}\n{final[3].strip() if len(final) > 3 else ''}", fontsize=9)
    if run.sprt is not None and bottom is not None:
        bottom.set_title(final[-1].strip(), fontsize=9)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def _score_of_elo(elo: float) -> float:
    if math.isinf(elo):
        return 0.0 if elo < 0 else 1.0
    return logistic_score(elo)


def plot_match(match: MatchResult, path: str | Path, title: str) -> None:
    """A PNG of A's running score (%) over the games, with its 95 % band."""
    plt = _pyplot()
    from matplotlib.ticker import MaxNLocator

    xs: list[int] = []
    scores: list[float] = []
    lows: list[float] = []
    highs: list[float] = []
    w = d = lo = 0
    for n, game in enumerate(match.games, start=1):
        w += game.a_points == 1.0
        d += game.a_points == 0.5
        lo += game.a_points == 0.0
        e = elo_estimate(w, d, lo)
        xs.append(n)
        scores.append(100 * e.score)
        lows.append(max(0.0, 100 * (e.score - Z_95 * e.stderr)))
        highs.append(min(100.0, 100 * (e.score + Z_95 * e.stderr)))
    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=100)
    ax.fill_between(xs, lows, highs, color="tab:blue", alpha=0.2, label="95% interval")
    ax.plot(xs, scores, color="tab:blue", marker="." if len(xs) <= 60 else None,
            label=f"score of {match.name_a}")  # fmt: skip
    ax.axhline(50, color="grey", linewidth=0.8, linestyle="--")
    ax.set_ylim(-3, 103)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("games")
    ax.set_ylabel("score (%)")
    final = (
        f"+{match.wins} ={match.draws} -{match.losses}, {match.estimate().describe()}"
        if match.games
        else "no games"
    )
    ax.set_title(f"{title}\n{final}", fontsize=10)
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def plot_ladder(data: dict[str, Any], path: Path, compare: dict[str, Any] | None) -> None:
    """Ladder Elo per level with 95 % error bars (and another ladder's, dashed)."""
    plt = _pyplot()
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.5))
    for run, style in ((compare, "--"), (data, "-")):
        if run is None:
            continue
        chain = [Step(**s) for s in run["steps"]]
        chain = [s for s in chain if s.on_ladder and s.pair_points]
        cumulative = ladder_elo(chain)
        levels = sorted(cumulative)
        elo = [cumulative[v][0] for v in levels]
        err = [Z_95 * cumulative[v][1] for v in levels]
        left.errorbar(levels, elo, yerr=err, fmt="o" + style, capsize=3, label=run["name"])
        gaps = [s.elo() for s in chain]
        right.errorbar(
            [s.upper - 0.5 for s in chain],
            [g[0] if math.isfinite(g[0]) else g[1] for g in gaps],
            yerr=[
                [g[0] - g[1] if math.isfinite(g[0]) else 0.0 for g in gaps],
                [g[2] - g[0] if math.isfinite(g[2]) else 0.0 for g in gaps],
            ],
            fmt="s" + style,
            capsize=3,
            label=run["name"],
        )
    left.set_xlabel("level")
    left.set_ylabel("ladder Elo (level 1 = 0)")
    left.set_title("Elo of each level, 95 % interval")
    right.set_xlabel("step (between levels)")
    right.set_ylabel("Elo gap upper − lower")
    right.set_title("Elo gap of each step, 95 % interval")
    for ax in (left, right):
        ax.set_xticks(range(1, 11))
        ax.grid(alpha=0.3)
        ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
