"""The scale of the game review's expected-score curve, fitted to the engine's games.

The web analysis page's review (``poolcheckers/server/static/review.js``) turns
an evaluation ``s`` in centi-men (side to move's view) into an expected score
``1 / (1 + exp(-s / SCALE))`` and judges a move by the expected score it lost,
as lichess does for chess.  This script measures ``SCALE``: it plays games from
every balloted opening (``poolcheckers/data/ballots.txt``), each twice, both
sides the engine at a weaker level (``--level``, seeded: the games differ), and
evaluates every position after the opening with a full-strength search of
``--depth`` plies; then it fits ``SCALE`` by maximum likelihood of the games'
results (1 win, ½ draw, 0 loss for the side to move) over those evaluations.
Positions already decided by the rules or by a found win (``mate_in``) are left out.

With ``--pdn FILE ...`` it plays nothing: it reads the games of match PDN files
(``benchmarks/results/*.pdn``: games between full-strength engines, or between
the engine and another program) and fits ``SCALE`` to their results in the
same way, each position after the game's ballot evaluated by the judge.

Usage::

    .venv/bin/python benchmarks/expected_score_scale.py --games 308 --depth 10 \\
        --plot benchmarks/results/expected_score_scale.png \\
        --json benchmarks/results/expected_score_scale.json

    .venv/bin/python benchmarks/expected_score_scale.py --depth 8 \\
        --pdn benchmarks/results/strength_*.pdn benchmarks/results/sprt_final3_vs_baseline.pdn \\
        --plot benchmarks/results/expected_score_scale_pdn.png \\
        --json benchmarks/results/expected_score_scale_pdn.json

It prints the games' W/D/L, the number of positions, the fitted ``SCALE`` with a
95 % interval (bootstrap over games), and saves a plot of the results by
evaluation bin beside the fitted curve.
"""

from __future__ import annotations

import argparse
import json
import math
import random
from pathlib import Path

from tqdm import tqdm

from poolcheckers import Board, Color
from poolcheckers.engine import Engine, Limit
from poolcheckers.pdn import read_file

BALLOTS = Path(__file__).resolve().parents[1] / "poolcheckers" / "data" / "ballots.txt"
#: evaluations past this (centi-men) are left out: a search that far ahead has found
#: a decisive material gain, where the curve is flat and tells nothing
CLIP = 1500


def openings() -> list[list[str]]:
    out = []
    for raw in BALLOTS.read_text(encoding="utf-8").splitlines():
        line = raw.split("#", 1)[0].strip()
        if line:
            out.append(line.split())
    return out


def play(
    moves: list[str], player: Engine, judge: Engine, level: int, depth: int, max_plies: int
) -> tuple[list[tuple[int, Color]], float]:
    """One game: the evaluations (centi-men, side to move) with the side to move,
    and Black's result (1, 0.5, 0)."""
    board = Board()
    for m in moves:
        board.push_notation(m)
    samples: list[tuple[int, Color]] = []
    while board.outcome() is None and board.ply < max_plies:
        judged = judge.search(board, Limit(depth=depth))
        if judged.mate_in is None and abs(judged.score) <= CLIP:
            samples.append((judged.score, board.turn))
        chosen = player.search(board, Limit(depth=depth), level=level)
        board.push(chosen.move)
    outcome = board.outcome()
    if outcome is None or outcome.winner is None:
        return samples, 0.5
    return samples, 1.0 if outcome.winner is Color.BLACK else 0.0


def replay(path: Path, judge: Engine, depth: int) -> list[tuple[list[tuple[int, Color]], float]]:
    """The games of a PDN file: each one's evaluations after its ballot (as :func:`play`
    keeps them) and Black's result; unfinished games are left out."""
    out = []
    for game in read_file(path):
        if game.normalized_result not in ("2-0", "1-1", "0-2"):
            continue
        opening = len(game.tags.get("Ballot", "").split())
        samples: list[tuple[int, Color]] = []
        for board in game.boards()[opening:]:
            if board.outcome() is not None:
                break
            judged = judge.search(board, Limit(depth=depth))
            if judged.mate_in is None and abs(judged.score) <= CLIP:
                samples.append((judged.score, board.turn))
        black = {"2-0": 1.0, "1-1": 0.5, "0-2": 0.0}[game.normalized_result]
        out.append((samples, black))
    return out


def log_likelihood(counts: dict[tuple[int, float], int], scale: float) -> float:
    total = 0.0
    for (score, result), n in counts.items():
        p = 1.0 / (1.0 + math.exp(-score / scale))
        p = min(max(p, 1e-12), 1 - 1e-12)
        total += n * (result * math.log(p) + (1 - result) * math.log(1 - p))
    return total


def fit(data: list[tuple[int, float]]) -> float:
    """The maximum-likelihood scale (golden-section search over 10..2000 centi-men)."""
    counts: dict[tuple[int, float], int] = {}
    for item in data:
        counts[item] = counts.get(item, 0) + 1
    lo, hi = math.log(10.0), math.log(2000.0)
    g = (math.sqrt(5) - 1) / 2
    a, b = hi - g * (hi - lo), lo + g * (hi - lo)
    fa, fb = log_likelihood(counts, math.exp(a)), log_likelihood(counts, math.exp(b))
    for _ in range(60):
        if fa > fb:
            hi, b, fb = b, a, fa
            a = hi - g * (hi - lo)
            fa = log_likelihood(counts, math.exp(a))
        else:
            lo, a, fa = a, b, fb
            b = lo + g * (hi - lo)
            fb = log_likelihood(counts, math.exp(b))
    return math.exp((lo + hi) / 2)


def played(args: argparse.Namespace) -> list[tuple[list[tuple[int, Color]], float]]:
    lines = openings()
    out = []
    for i in tqdm(range(args.games), desc="games", unit="game"):
        player = Engine(hash_mb=16, seed=args.seed * 100003 + i)
        judge = Engine(hash_mb=16)
        moves = lines[(i // 2) % len(lines)]
        out.append(play(moves, player, judge, args.level, args.depth, args.max_plies))
    return out


def read(args: argparse.Namespace) -> list[tuple[list[tuple[int, Color]], float]]:
    judge = Engine(hash_mb=16)
    out = []
    for path in tqdm(args.pdn, desc="files", unit="file"):
        out.extend(replay(path, judge, args.depth))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=308, help="games (two per opening)")
    parser.add_argument("--level", type=int, default=8, help="the players' engine level")
    parser.add_argument("--depth", type=int, default=10, help="the judge's search depth")
    parser.add_argument("--max-plies", type=int, default=400)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--bootstrap", type=int, default=200)
    parser.add_argument("--plot", type=Path)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--pdn", type=Path, nargs="+", help="fit to these files' games instead")
    args = parser.parse_args()

    games: list[list[tuple[int, float]]] = []
    wdl = [0, 0, 0]
    for samples, black_result in played(args) if args.pdn is None else read(args):
        wdl[0 if black_result == 1.0 else 1 if black_result == 0.5 else 2] += 1
        games.append(
            [
                (score, black_result if turn is Color.BLACK else 1.0 - black_result)
                for score, turn in samples
            ]
        )
    data = [d for g in games for d in g]
    scale = fit(data)
    rng = random.Random(args.seed)
    boot = sorted(
        fit([d for g in (rng.choice(games) for _ in games) for d in g])
        for _ in tqdm(range(args.bootstrap), desc="bootstrap", unit="fit")
    )
    low, high = boot[int(0.025 * len(boot))], boot[int(0.975 * len(boot)) - 1]
    print(f"games: {len(games)} (Black won {wdl[0]}, drawn {wdl[1]}, White won {wdl[2]})")
    players = f"level {args.level} players" if args.pdn is None else f"{len(args.pdn)} PDN files"
    print(f"positions: {len(data)}; {players}, judge depth {args.depth}")
    print(f"SCALE = {scale:.0f} centi-men (95 % interval {low:.0f}..{high:.0f})")
    for s in (50, 100, 200, 300):
        print(f"  +{s / 100:.2f} men: expected score {1 / (1 + math.exp(-s / scale)):.3f}")
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "scale": round(scale, 1),
                    "interval": [round(low, 1), round(high, 1)],
                    "games": len(games),
                    "black_won": wdl[0],
                    "drawn": wdl[1],
                    "white_won": wdl[2],
                    "positions": len(data),
                    "level": args.level if args.pdn is None else None,
                    "pdn": [p.name for p in args.pdn or []],
                    "depth": args.depth,
                    "seed": args.seed,
                },
                indent=2,
            )
            + "\n"
        )
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        width = 50
        bins: dict[int, list[float]] = {}
        for score, result in data:
            bins.setdefault(round(score / width), []).append(result)
        xs = sorted(k for k, v in bins.items() if len(v) >= 20)
        fig, ax = plt.subplots(figsize=(7, 4.5))
        ax.plot(
            [k * width for k in xs],
            [sum(bins[k]) / len(bins[k]) for k in xs],
            "o",
            label="mean result in the bin (≥ 20 positions)",
        )
        curve = range(-CLIP, CLIP + 1, 10)
        ax.plot(
            list(curve),
            [1 / (1 + math.exp(-s / scale)) for s in curve],
            label=f"1 / (1 + exp(-s / {scale:.0f}))",
        )
        ax.set_xlabel("evaluation s (centi-men, side to move)")
        ax.set_ylabel("expected score of the side to move")
        ax.set_title(f"{len(games)} games, {players}, judge depth {args.depth}")
        ax.grid(alpha=0.3)
        ax.legend()
        fig.tight_layout()
        fig.savefig(args.plot, dpi=110)
        print(f"plot: {args.plot}")


if __name__ == "__main__":
    main()
