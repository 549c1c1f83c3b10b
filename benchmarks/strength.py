"""Playing strength of the full engine, in matches over balloted openings.

(a) ``--part levels``: the full engine against its own lower levels;
(b) ``--part peer``: against py-draughts' ``SimpleEngine`` driving a pool
board (see ``benchmarks/pydraughts_peer.py``), which runs in a subprocess of
a throwaway virtualenv (``--peer-python``, default ``/tmp/pdvenv/bin/python``
with ``py-draughts==1.10.1``; py-draughts is never a dependency of poolcheckers).

Both sides get the same time per move (``--time``).  ``--openings N`` takes N
openings spread evenly over the ballot file, each played with both colours.
The script prints W/D/L of the full engine, its score and the Elo difference
with a 95 % interval (see ``poolcheckers.tooling.stats``), and saves a plot
of the running score (and the games as PDN with ``--pdn``).

Usage::

    .venv/bin/python benchmarks/strength.py --part peer --time 0.1 --openings 50 \\
        --plot strength_peer.png
    .venv/bin/python benchmarks/strength.py --part levels --levels 6 --openings 50

Goal: at least 90 % of the points against (b), with no loss, at 0.1 s a move.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from tqdm import tqdm

from poolcheckers import Board, Move
from poolcheckers.engine import Limit
from poolcheckers.hub import hub_position
from poolcheckers.pdn import read_games
from poolcheckers.rules import RuleSet
from poolcheckers.tooling.games import ClockReading, EnginePlayer, Player
from poolcheckers.tooling.match import GameRecord, MatchResult, run_match, write_pdn
from poolcheckers.tooling.openings import DEFAULT_BALLOTS, load_ballots
from poolcheckers.tooling.plots import plot_match
from poolcheckers.tooling.pool import open_weighted_engine as open_engine
from poolcheckers.tooling.stats import Z_95

PEER_SCRIPT = Path(__file__).resolve().parent / "pydraughts_peer.py"


class PeerPlayer:
    """py-draughts' SimpleEngine in a subprocess, speaking the peer's line protocol."""

    def __init__(self, python: str, seconds: float) -> None:
        self.name = f"py-draughts SimpleEngine ({seconds:g} s)"
        self.seconds = seconds
        #: moves the peer chose that our rules name differently (matched by origin/destination)
        self.mismatches = 0
        self._proc = subprocess.Popen(
            [python, str(PEER_SCRIPT)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )

    def choose(self, board: Board, clock: ClockReading | None = None) -> Move:
        """Send the position, read the peer's move and find it among our legal moves.

        The peer thinks a fixed ``seconds`` a move: a game clock is an error."""
        if clock is not None:
            raise ValueError(f"{self.name} plays a fixed time per move, not on a clock")
        assert self._proc.stdin is not None and self._proc.stdout is not None
        self._proc.stdin.write(f"go {self.seconds} {hub_position(board)}\n")
        self._proc.stdin.flush()
        reply = self._proc.stdout.readline().split()
        if len(reply) != 3 or reply[0] != "move":
            raise RuntimeError(f"peer answered {' '.join(reply)!r} in {board.fen()}")
        path = [int(s) for s in reply[1].split("-")]
        captured = (
            frozenset() if reply[2] == "-" else frozenset(int(s) for s in reply[2].split(","))
        )
        legal = board.legal_moves
        for move in legal:
            if (move.origin, move.destination, move.captured) == (path[0], path[-1], captured):
                return move
        same_ends = [m for m in legal if (m.origin, m.destination) == (path[0], path[-1])]
        if len(same_ends) == 1:
            self.mismatches += 1
            return same_ends[0]
        raise RuntimeError(f"peer move {reply[1]} x {reply[2]} is not legal in {board.fen()}")

    def close(self) -> None:
        """End the subprocess."""
        if self._proc.stdin is not None:
            self._proc.stdin.write("quit\n")
            self._proc.stdin.close()
        self._proc.wait(timeout=10)


def spread(openings: list[tuple[str, ...]], count: int) -> list[tuple[str, ...]]:
    """``count`` openings spread evenly over ``openings`` (all of them if fewer)."""
    if count >= len(openings):
        return openings
    return [openings[i * len(openings) // count] for i in range(count)]


def play(
    player_a: Player,
    player_b: Player,
    openings: list[tuple[str, ...]],
    label: str,
) -> MatchResult:
    """Run one match with a progress bar."""
    with tqdm(total=2 * len(openings), desc=label, unit="game", file=sys.stderr) as bar:

        def on_game(record: GameRecord, match: MatchResult) -> None:
            bar.update(1)
            bar.set_postfix_str(f"+{match.wins} ={match.draws} -{match.losses}")

        return run_match(player_a, player_b, openings, on_game=on_game)


def report(match: MatchResult, args: argparse.Namespace, stem: str) -> None:
    """Print the summary; save the plot (and PDN)."""
    print(match.summary())
    losses = [g for g in match.games if g.a_points == 0.0]
    for game in losses:
        print(
            f"  lost: ballot {' '.join(game.opening)} as {'Black' if game.a_is_black else 'White'}"
        )
    if args.plot:
        path = Path(args.plot)
        target = path.with_name(f"{path.stem}_{stem}{path.suffix}")
        plot_match(match, target, f"{match.name_a} vs {match.name_b}, {args.time:g} s/move")
        print(f"  plot: {target}")
    if args.pdn:
        path = Path(args.pdn)
        target = path.with_name(f"{path.stem}_{stem}{path.suffix}")
        write_pdn(match, target, f"strength: {match.name_a} vs {match.name_b}")
        print(f"  games: {target}")


def match_from_pdn(path: str, name_a: str) -> MatchResult:
    """The match saved by ``--pdn`` (games of ``name_a``), to report and plot again."""
    games = read_games(Path(path).read_text(encoding="utf-8"))
    other = {g.tags["White"] if g.tags["Black"] == name_a else g.tags["Black"] for g in games}
    result = MatchResult(name_a, " / ".join(sorted(other)))
    for game in games:
        a_black = game.tags["Black"] == name_a
        outcome = game.normalized_result
        points = 0.5 if outcome == "1-1" else float((outcome == "2-0") == a_black)
        opening = tuple(game.notations()[:3])
        result.games.append(
            GameRecord(
                opening,
                game.board(),
                game.tags["Black"],
                game.tags["White"],
                outcome,
                game.tags.get("Termination", ""),
                a_black,
                points,
                0.0,
            )
        )
    return result


def plot_summary(matches: list[MatchResult], path: Path, seconds: float) -> None:
    """One bar per opponent: the full engine's score (%) with its 95 % interval."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [m.name_b for m in matches]
    estimates = [m.estimate() for m in matches]
    scores = [100 * e.score for e in estimates]
    spans = [100 * Z_95 * e.stderr for e in estimates]
    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=100)
    bars = ax.bar(range(len(names)), scores, yerr=spans, capsize=6, color="tab:blue")
    for bar, m in zip(bars, matches, strict=True):
        label = f"+{m.wins} ={m.draws} -{m.losses}"
        ax.text(bar.get_x() + bar.get_width() / 2, 4, label, ha="center", color="white")
    ax.axhline(50, color="grey", linewidth=0.8, linestyle="--")
    ax.axhline(90, color="tab:green", linewidth=0.8, linestyle=":")
    ax.text(len(names) - 0.5, 91, "goal vs py-draughts: 90%", ha="right", color="tab:green")
    ax.set_xticks(range(len(names)), names, fontsize=8)
    ax.set_ylim(0, 105)
    ax.set_ylabel("score of poolcheckers (full), %")
    ax.set_title(f"Strength at {seconds:g} s per move, balloted openings x 2 colours (95% bars)")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--part", choices=("peer", "levels", "all"), default="all")
    parser.add_argument("--time", type=float, default=0.1, help="seconds per move, both sides")
    parser.add_argument("--openings", type=int, default=50, help="balloted openings used")
    parser.add_argument("--ballots", default=str(DEFAULT_BALLOTS))
    parser.add_argument("--levels", default="6", help="lower levels to play, e.g. 4,6,8")
    parser.add_argument("--peer-python", default="/tmp/pdvenv/bin/python")
    parser.add_argument("--hash", type=int, default=32, help="MiB per engine")
    parser.add_argument("--plot", default="strength.png", help="plot file stem ('' for none)")
    parser.add_argument("--pdn", default="", help="save games (file stem)")
    parser.add_argument(
        "--replot", nargs="+", metavar="GAMES.pdn", help="report and plot saved matches"
    )
    parser.add_argument("--summary-plot", default="", help="bar chart of every match's score")
    args = parser.parse_args()
    if args.replot:
        saved = [match_from_pdn(path, "poolcheckers (full)") for path in args.replot]
        for path, result in zip(args.replot, saved, strict=True):
            report(result, args, Path(path).stem)
        if args.summary_plot:
            plot_summary(saved, Path(args.summary_plot), args.time)
        return 0

    rules = RuleSet.apca()
    openings = spread(load_ballots(args.ballots, rules), args.openings)
    limit = Limit(time=args.time)
    full = EnginePlayer(open_engine(args.hash, rules), limit, None, "poolcheckers (full)")
    print(f"{len(openings)} openings x 2 colours, {args.time:g} s per move")
    played: list[MatchResult] = []
    if args.part in ("peer", "all"):
        peer = PeerPlayer(args.peer_python, args.time)
        try:
            match = play(full, peer, openings, "vs py-draughts")
        finally:
            peer.close()
        report(match, args, "peer")
        print(f"  peer moves matched by origin/destination only: {peer.mismatches}")
        played.append(match)
    if args.part in ("levels", "all"):
        for level in (int(x) for x in args.levels.split(",")):
            weak = EnginePlayer(
                open_engine(args.hash, rules), limit, level, f"poolcheckers L{level}"
            )
            result = play(full, weak, openings, f"vs level {level}")
            report(result, args, f"level{level}")
            played.append(result)
    if args.summary_plot and played:
        plot_summary(played, Path(args.summary_plot), args.time)
    return 0


if __name__ == "__main__":
    sys.exit(main())
