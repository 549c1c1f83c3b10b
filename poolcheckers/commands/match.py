"""``poolcheckers match``: the engine against itself at two settings.

Two players (two strength levels, or two evaluation weight files) play every
balloted opening (``poolcheckers/data/ballots.txt`` by default: three plies
from the start, one line each) twice, once with each colour, at a fixed time
(or depth, or nodes) per move.  The command prints wins, draws and losses of player A,
its score and the Elo difference with a 95 % interval; it can save the games
as PDN and plot the running score.

How the Elo difference is computed (:mod:`poolcheckers.tooling.stats`): the score of A is
``p = (W + D/2) / N``; the Elo difference that a logistic model gives for it
is ``-400·log10(1/p - 1)``.  The standard error of ``p`` is ``sqrt(v / N)``,
where ``v`` is the variance of the per-game scores (1, ½, 0) about ``p``
(draws lower it); the 95 % interval of the Elo difference is the same
formula applied to ``p ± 1.96·SE`` (infinite when a bound reaches 0 % or 100 %).

SPRT mode (``--sprt ELO0 ELO1``), as fishtest tests a change: the games are
played in pairs (an opening with each colour; the openings are cycled), the
pairs are counted by A's points (pentanomial: 0, ½, 1, 1½, 2) and the match
stops as soon as the generalised log-likelihood ratio of H1 (``elo1``) over H0
(``elo0``) leaves Wald's bounds for ``--alpha`` and ``--beta`` (see
:mod:`poolcheckers.tooling.sprt`; ``--elo-model`` logistic or normalized).
Pairs run in ``--concurrency`` processes.

Game clock (``--clock SECONDS --increment SECONDS``, fishtest's ``10+0.1``)
instead of a bound per move: the match keeps each side's clock (the wall time
of each move, as the match measures it, is taken off, then the increment is
added); the engine budgets the clock it is given (``make_limit(clock=,
increment=)``, a Hub engine ``level time=<left> inc=<increment>``), and a
side whose clock runs out loses on time (PDN ``Termination`` "time forfeit:
…"; the summary counts the time losses and the clock left at the end).

The evaluation of each side (``--eval-a`` / ``--eval-b``): ``nnue`` (the
network shipped in the package, the default), ``pattern`` (the default with
``--weights``) or a network weights file of ``poolcheckers nnue train``; a
file the engine cannot use is refused, named with its problem, before the
first game.

A long match goes on where it stopped (``--pdn OUT.pdn --resume``): the
games are saved after every pair, so a match ended by Ctrl-C, SIGTERM or a
kill keeps the pairs it finished; given the same file and ``--resume``, it
counts them (in the result, the SPRT and the plot) and plays only the other
pairs.  The file's games must be this match's (the same players, bound per
move and test, named by its ``Event`` tag, on its openings), else the match
is refused before it starts.

Either player may be a Hub engine (``--hub-a`` / ``--hub-b``: a command line
that starts an engine speaking the Hub protocol on its standard input and
output, e.g. a frozen build).

Final results (``--held-out``): the match plays the held-out openings
(``poolcheckers/data/openings_heldout.txt``: five plies each, kept out of every
tuning, book and test of a change), and only then.  A ``--ballots`` file that
reaches one of them is refused otherwise.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import shlex
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, Final

from poolcheckers.cli import UsageError, add_rules_argument
from poolcheckers.commands.common import (
    MAX_LEVEL,
    EngineLike,
    add_engine_arguments,
    check_level_option,
    help_description,
    make_limit,
    open_engine,
    quiet_broken_pipe,
)
from poolcheckers.engine import EVALUATIONS, MAX_SECONDS
from poolcheckers.rules import RuleSet
from poolcheckers.tooling import ToolingError, require_extra
from poolcheckers.tooling.games import EnginePlayer, Player, TimeControl, pairings, time_control
from poolcheckers.tooling.match import (
    GameRecord,
    MatchResult,
    PdnFile,
    SprtRun,
    games_text,
    resume_pairs,
    run_match,
)
from poolcheckers.tooling.openings import DEFAULT_BALLOTS, HELDOUT_OPENINGS, load_ballots
from poolcheckers.tooling.pool import (
    PairGame,
    PlayerSpec,
    make_player,
    pair_records,
    run_pairs,
    set_evaluation,
)
from poolcheckers.tooling.sprt import ELO_MODELS, Sprt, SprtState

#: Seconds per move when neither --time, --depth, --nodes nor --clock is given.
DEFAULT_MOVE_TIME: Final = 0.1


def _per_move(args: argparse.Namespace) -> tuple[dict[str, Any], str]:
    """The per-move bound of the match (``make_limit`` keywords) and its
    description; with ``--clock``, the game clock (``clock``, ``increment``)."""
    if args.depth is not None and args.nodes is not None:
        raise UsageError("--depth and --nodes exclude each other: give one bound per move")
    if args.clock is not None:
        for option, given in (("--depth", args.depth), ("--nodes", args.nodes),
                              ("--time", args.time)):  # fmt: skip
            if given is not None:
                raise UsageError(
                    f"--clock and {option} exclude each other: a game clock or a bound per move"
                )
        for option, seconds in (("--clock", args.clock), ("--increment", args.increment)):
            if not math.isfinite(seconds) or seconds < 0 or seconds > MAX_SECONDS:
                raise UsageError(
                    f"{option} must be a number of seconds in 0..{MAX_SECONDS:g}, not {seconds}"
                )
        if not args.clock > 0:
            raise UsageError(f"--clock must be > 0 seconds, not {args.clock}")
        control = TimeControl(args.clock, args.increment)
        return {"clock": control.clock, "increment": control.increment}, control.describe()
    if args.increment:
        raise UsageError("--increment needs --clock (the seconds added after each move)")
    if args.depth is not None:
        if args.depth < 1:
            raise UsageError(f"--depth must be >= 1, not {args.depth}")
        return {"depth": args.depth}, f"depth {args.depth}"
    if args.nodes is not None:
        if args.nodes < 1:
            raise UsageError(f"--nodes must be >= 1, not {args.nodes}")
        return {"nodes": args.nodes}, f"{args.nodes} nodes/move"
    seconds = DEFAULT_MOVE_TIME if args.time is None else args.time
    if not seconds > 0:
        raise UsageError(f"--time must be > 0 seconds, not {seconds}")
    return {"time": seconds}, f"{seconds:g} s/move"


def _player_name(
    level: int,
    weights: str | None,
    hub: tuple[str, ...] | None = None,
    evaluation: str | None = None,
) -> str:
    if hub is not None:
        return f"hub {Path(hub[0]).name}"
    extras = [Path(weights).name] if weights else []
    if evaluation is not None:  # named when chosen, the default too
        extras.append(evaluation if evaluation in EVALUATIONS else f"nnue {Path(evaluation).name}")
    return f"poolcheckers L{level}" + (f" ({', '.join(extras)})" if extras else "")


def _evaluation(side: str, args: argparse.Namespace, hub: tuple[str, ...] | None) -> str | None:
    """The evaluation of player ``side`` (None: the engine's own choice, the network,
    or the pattern evaluation when ``--weights`` gives its weights), its weights
    file checked before any game."""
    evaluation: str | None = getattr(args, f"eval_{side}")
    option = f"--eval-{side}"
    if evaluation is None:
        return None
    if hub is not None:
        raise UsageError(f"{option} is for the engine itself: give a Hub engine its own options")
    if evaluation == "pattern":
        return evaluation
    from poolcheckers.engine.nnue import NetworkError, network_path, read_network

    path = network_path(evaluation)
    try:
        read_network(path if path is not None else evaluation)
    except NetworkError as exc:
        raise UsageError(f"{option}: {exc}") from None
    return evaluation


def _hub_command(option: str, text: str | None) -> tuple[str, ...] | None:
    if text is None:
        return None
    try:
        words = tuple(shlex.split(text))
    except ValueError as exc:
        raise UsageError(f"{option} {text!r}: {exc}") from None
    if not words:
        raise UsageError(f"{option} needs a command line")
    return words


def _run_sprt(
    args: argparse.Namespace,
    spec_a: PlayerSpec,
    spec_b: PlayerSpec,
    openings: Sequence[tuple[str, ...]],
    rules: RuleSet,
    limit_kwargs: dict[str, Any],
    out: Any,
    *,
    engine_factory: Callable[[int, RuleSet, str | None], EngineLike] | None,
    limit: Any,
    per_move: str,
) -> int:
    """Game pairs in processes (``--concurrency``), with ``--sprt`` until the LLR
    leaves its bounds, else for ``--games`` (default: every ballot twice)."""
    sprt: Sprt | None = None
    if args.sprt is not None:
        elo0, elo1 = args.sprt
        try:
            sprt = Sprt(elo0, elo1, args.alpha, args.beta, args.elo_model)
        except ValueError as exc:
            raise UsageError(f"--sprt: {exc}") from None
    default_games = 20_000 if sprt is not None else 2 * len(openings)
    max_games = args.games if args.games is not None else default_games
    pairs = max(1, max_games // 2)
    decision: SprtState | None = None
    run_state = SprtRun(sprt, spec_a.name, spec_b.name)
    match = MatchResult(spec_a.name, spec_b.name)
    run_state.match = match
    print(
        f"{spec_a.name} vs {spec_b.name}: {sprt.describe() if sprt else 'game pairs'}, "
        f"at most {games_text(2 * pairs)}, "
        f"{per_move}, concurrency {args.concurrency}, rules {rules.name}",
        file=out,
    )
    players: tuple[Player, Player] | None = None
    if engine_factory is not None:  # tests: engines made here, in this process
        players = (
            EnginePlayer(engine_factory(spec_a.hash_mb, rules, spec_a.weights), limit,
                         spec_a.level, spec_a.name),
            EnginePlayer(engine_factory(spec_b.hash_mb, rules, spec_b.weights), limit,
                         spec_b.level, spec_b.name),
        )  # fmt: skip

    event = _event(spec_a.name, spec_b.name, per_move, sprt)
    saver = PdnFile(args.pdn, event) if args.pdn else None
    done: set[int] = set()
    if args.resume:
        try:
            resumed = resume_pairs(args.pdn, event=event, name_a=spec_a.name,
                                   name_b=spec_b.name, openings=openings, pairs=pairs,
                                   rules=rules)  # fmt: skip
        except ToolingError as exc:
            raise UsageError(f"--resume: {exc}") from None
        match.games.extend(resumed.records)
        done = resumed.done
        for points in resumed.pair_points:
            state = run_state.add(points)
            if state is not None and state.decision is not None:
                decision = state  # every saved pair counts, as in the file
        if resumed.records:
            print(f"resumed: {games_text(len(resumed.records))} of {args.pdn} count", file=out)
    from tqdm import tqdm

    interrupted = False
    with tqdm(total=2 * pairs, initial=len(match.games), desc="sprt", unit="game",
              file=sys.stderr, disable=None) as bar:  # fmt: skip

        def on_pair(number: int, opening: tuple[str, ...], games: list[PairGame]) -> bool:
            nonlocal decision
            records = pair_records(games, opening, rules, spec_a.name, spec_b.name)
            match.games.extend(records)
            points = sum(record.a_points for record in records)
            state = run_state.add(points)
            if saver is not None:  # after every pair: a match killed outright keeps its games
                with contextlib.suppress(OSError):  # said once, at the end
                    saver.save(match)
            bar.update(len(games))
            record = f"+{match.wins} ={match.draws} -{match.losses}"
            if bar.disable and len(run_state.pair_points) % 25 == 0:  # no bar: a line now and then
                llr_text = f", LLR {state.llr:+.2f}" if state is not None else ""
                print(f"sprt: {len(match.games)} games, {record}{llr_text}", file=sys.stderr)
            if state is None:
                bar.set_postfix_str(record)
                return False
            bar.set_postfix_str(
                f"LLR {state.llr:+.2f} [{state.lower:+.2f},{state.upper:+.2f}] {record}"
            )
            if state.decision is not None:
                decision = state
                return True
            return False

        try:
            if decision is None:  # a resumed test may have ended already
                run_pairs(spec_a, spec_b, openings, pairs=pairs, rules=rules,
                          limit_kwargs=limit_kwargs, concurrency=args.concurrency,
                          on_pair=on_pair, players=players, done=done)  # fmt: skip
        except KeyboardInterrupt:
            interrupted = True
    if interrupted:
        print(f"interrupted: the {games_text(len(match.games))} finished so far count", file=out)
    elif decision is None and sprt is not None:
        print(f"undecided after {games_text(len(match.games))} (the --games bound)", file=out)
    print(run_state.summary(), file=out)
    status = 0
    if saver is not None and match.games:
        try:
            saver.save(match)
        except OSError as exc:
            print(f"poolcheckers match: error: cannot write {args.pdn}: {exc}", file=sys.stderr)
            status = 1
        else:
            print(f"games saved to {args.pdn}", file=out)
    if args.plot and run_state.pair_points:
        try:
            from poolcheckers.tooling.plots import plot_sprt

            plot_sprt(run_state, args.plot, event)
        except OSError as exc:
            print(f"poolcheckers match: error: cannot write {args.plot}: {exc}", file=sys.stderr)
            status = 1
        else:
            print(f"plot saved to {args.plot}", file=out)
    return 130 if interrupted else status


@contextlib.contextmanager
def _terminate_as_interrupt() -> Iterator[None]:
    """While the match runs, SIGTERM (``kill PID``) ends it as Ctrl-C does:
    the games finished so far are counted and saved (a match started in the
    background of a script ignores SIGINT)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@quiet_broken_pipe
def run(
    args: argparse.Namespace,
    *,
    engine_factory: Callable[[int, RuleSet, str | None], EngineLike] | None = None,
    limit: Any = None,
    out: Any = None,
) -> int:
    """Play the match of ``args``; print the result (and save PDN / plot).
    Ctrl-C or SIGTERM ends it early, the finished games counted (status 130)."""
    with _terminate_as_interrupt():
        return _run(args, engine_factory=engine_factory, limit=limit, out=out)


def _event(name_a: str, name_b: str, per_move: str, sprt: Sprt | None) -> str:
    """The PDN ``Event`` of a match: its players, bound per move and test, by which
    ``--resume`` knows the file's games are this match's."""
    test = f" ({sprt.describe()})" if sprt else ""
    return f"poolcheckers match {name_a} vs {name_b}, {per_move}{test}"


def _run(
    args: argparse.Namespace,
    *,
    engine_factory: Callable[[int, RuleSet, str | None], EngineLike] | None,
    limit: Any,
    out: Any,
) -> int:
    out = out if out is not None else sys.stdout
    rules = RuleSet.from_options(args.rules)
    level_a = check_level_option("--level-a", args.level_a)
    level_b = check_level_option("--level-b", args.level_b)
    if args.games is not None and args.games < 1:
        raise UsageError(f"--games must be >= 1, not {args.games}")
    if args.held_out and args.ballots is not None:
        raise UsageError("--held-out plays the held-out openings: give it no --ballots")
    ballots = HELDOUT_OPENINGS if args.held_out else (args.ballots or DEFAULT_BALLOTS)
    openings = load_ballots(ballots, rules, final=args.held_out)
    for option, path in (("--pdn", args.pdn), ("--plot", args.plot)):
        if path:
            _check_writable(option, path)  # before the games, not after them
    if args.plot:
        require_extra("matplotlib", purpose="--plot")
    factory = engine_factory or open_engine
    limit_kwargs, per_move = _per_move(args)  # parsed and checked once
    limit = limit if limit is not None else make_limit(**limit_kwargs)
    hub_a, hub_b = _hub_command("--hub-a", args.hub_a), _hub_command("--hub-b", args.hub_b)
    name_a = args.name_a or _player_name(level_a, args.weights_a, hub_a, args.eval_a)
    name_b = args.name_b or _player_name(level_b, args.weights_b, hub_b, args.eval_b)
    if name_a == name_b:
        name_a, name_b = f"{name_a} (A)", f"{name_b} (B)"
    for option, threads in (("--threads-a", args.threads_a), ("--threads-b", args.threads_b)):
        if not 1 <= threads <= 64:
            raise UsageError(f"{option} must be 1..64, not {threads}")
    only = args.hub_position_only
    eval_a, eval_b = _evaluation("a", args, hub_a), _evaluation("b", args, hub_b)
    spec_a = PlayerSpec(
        name_a, level_a, args.weights_a, args.hash, args.threads_a, hub_a, only, eval_a
    )
    spec_b = PlayerSpec(
        name_b, level_b, args.weights_b, args.hash, args.threads_b, hub_b, only, eval_b
    )
    if args.concurrency < 1:
        raise UsageError(f"--concurrency must be >= 1, not {args.concurrency}")
    if args.resume and not args.pdn:
        raise UsageError("--resume goes on with the games of the --pdn file: give --pdn")
    if args.sprt is not None or args.concurrency > 1 or args.resume:
        return _run_sprt(args, spec_a, spec_b, openings, rules, limit_kwargs, out,
                         engine_factory=engine_factory, limit=limit,
                         per_move=per_move)  # fmt: skip

    def player(spec: PlayerSpec) -> Player:
        if spec.hub is not None:
            return make_player(spec, rules, limit_kwargs)
        engine = factory(spec.hash_mb, rules, spec.weights)
        if spec.threads != 1:
            engine.threads = spec.threads  # type: ignore[attr-defined]
        try:
            set_evaluation(engine, spec.evaluation)
        except ToolingError as exc:
            raise UsageError(str(exc)) from None
        return EnginePlayer(engine, limit, spec.level, spec.name)

    player_a, player_b = player(spec_a), player(spec_b)
    total = len(pairings(openings, args.games))
    print(f"{name_a} vs {name_b}: {games_text(total)}, {per_move}, rules {rules.name}", file=out)

    from tqdm import tqdm

    event = _event(name_a, name_b, per_move, None)
    saver = PdnFile(args.pdn, event) if args.pdn else None
    so_far = MatchResult(name_a, name_b)  # the games finished, kept if Ctrl-C comes
    interrupted = False
    with tqdm(total=total, desc="match", unit="game", file=sys.stderr, disable=None) as bar:

        def on_game(record: GameRecord, match: MatchResult) -> None:
            nonlocal so_far
            so_far = match
            if saver is not None and len(match.games) % 2 == 0:  # a pair, as in pairs mode
                with contextlib.suppress(OSError):  # said once, at the end
                    saver.save(match)
            bar.update(1)
            bar.set_postfix_str(f"+{match.wins} ={match.draws} -{match.losses}")

        try:
            match = run_match(
                player_a, player_b, openings, games=args.games, rules=rules, on_game=on_game,
                control=time_control(limit_kwargs),
            )  # fmt: skip
        except KeyboardInterrupt:
            match, interrupted = so_far, True
    if interrupted and not match.games:
        print("interrupted before the first game ended: nothing to count", file=out)
        return 130
    if interrupted:
        print(f"interrupted: the {games_text(len(match.games))} finished so far count", file=out)
    print(match.summary(), file=out)
    print(
        "  (Elo from the score p: -400*log10(1/p - 1); interval from p ± 1.96 standard "
        "errors of the per-game scores)",
        file=out,
    )
    status = 0
    from poolcheckers.tooling.plots import plot_match

    writes: list[tuple[str, Callable[[], None], str]] = []
    if saver is not None:
        writes.append((args.pdn, lambda: saver.save(match), "games"))
    if args.plot:
        writes.append((args.plot, lambda: plot_match(match, args.plot, event), "plot"))
    for path, write, what in writes:
        try:
            write()
        except OSError as exc:
            print(f"poolcheckers match: error: cannot write {path}: {exc}", file=sys.stderr)
            status = 1
        else:
            print(f"{what} saved to {path}", file=out)
    return 130 if interrupted else status


def _check_writable(option: str, path: str) -> None:
    """Raise :class:`UsageError` when ``path`` cannot be written (a missing
    folder, a folder in its place, no permission)."""
    target = Path(path)
    folder = target.parent
    if not folder.is_dir():
        raise UsageError(f"{option} {path}: the folder {folder} does not exist")
    if target.is_dir():
        raise UsageError(f"{option} {path} is a folder")
    if not os.access(target if target.exists() else folder, os.W_OK):
        raise UsageError(f"{option} {path}: no permission to write there")


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--level-a", type=int, default=MAX_LEVEL, help="level of A (1-10)")
    parser.add_argument("--level-b", type=int, default=MAX_LEVEL, help="level of B (1-10)")
    parser.add_argument("--weights-a", metavar="FILE.json", help="evaluation weights of A")
    parser.add_argument("--weights-b", metavar="FILE.json", help="evaluation weights of B")
    for side in ("a", "b"):
        parser.add_argument(
            f"--eval-{side}",
            default=None,
            metavar="EVAL",
            help=f"evaluation of {side.upper()}: nnue (the shipped network, the default), "
            "pattern (the default with --weights) or a network weights file "
            "(poolcheckers nnue train)",
        )
    parser.add_argument(
        "--ballots",
        metavar="FILE",
        help="openings, one line of moves each (default: the shipped 3-move ballots)",
    )
    parser.add_argument(
        "--held-out",
        action="store_true",
        help="a final result: play the held-out openings, which no tuning, book or test "
        "of a change may use",
    )
    parser.add_argument(
        "--time", type=float, help=f"seconds per move (default {DEFAULT_MOVE_TIME:g})"
    )
    parser.add_argument(
        "--clock",
        type=float,
        metavar="SECONDS",
        help="a game clock instead of a bound per move: each side's seconds for the game "
        "(a side whose clock runs out loses on time)",
    )
    parser.add_argument(
        "--increment",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="with --clock: seconds added after each move (--clock 6 --increment 0.06 is 6+0.06)",
    )
    parser.add_argument("--depth", type=int, help="fixed depth per move instead of --time")
    parser.add_argument(
        "--nodes",
        type=int,
        help="fixed nodes per move instead of --time (results independent of the machine's load)",
    )
    parser.add_argument(
        "--games", type=int, help="stop after this many games (SPRT: at most; default 20000)"
    )
    parser.add_argument(
        "--sprt",
        nargs=2,
        type=float,
        metavar=("ELO0", "ELO1"),
        help="SPRT mode: game pairs until H0 (elo0) or H1 (elo1) is accepted",
    )
    parser.add_argument("--alpha", type=float, default=0.05, help="SPRT false positive rate")
    parser.add_argument("--beta", type=float, default=0.05, help="SPRT false negative rate")
    parser.add_argument(
        "--elo-model",
        choices=ELO_MODELS,
        default="logistic",
        help="Elo of the SPRT hypotheses: logistic (default) or normalized (fishtest)",
    )
    parser.add_argument(
        "--concurrency", type=int, default=1, help="game pairs played at once (SPRT mode)"
    )
    parser.add_argument("--hub-a", metavar="COMMAND", help="A is the Hub engine this starts")
    parser.add_argument("--hub-b", metavar="COMMAND", help="B is the Hub engine this starts")
    parser.add_argument(
        "--hub-position-only",
        action="store_true",
        help="send Hub engines the position alone, not the game's moves (as some GUIs do: "
        "the engines then see no repetition)",
    )
    parser.add_argument("--name-a", help="A's name in the results and PDN")
    parser.add_argument("--name-b", help="B's name in the results and PDN")
    parser.add_argument("--threads-a", type=int, default=1, help="search threads of A")
    parser.add_argument("--threads-b", type=int, default=1, help="search threads of B")
    parser.add_argument("--pdn", metavar="OUT.pdn", help="save the games as PDN")
    parser.add_argument(
        "--resume",
        action="store_true",
        help="go on with a match stopped early: the pairs already saved in the --pdn "
        "file count and are not played again (the same players, bound per move and "
        "test; game pairs are played, as with --sprt)",
    )
    parser.add_argument("--plot", metavar="OUT.png", help="plot the running score")
    add_rules_argument(parser, "rule options of docs/RULES.md §9")
    add_engine_arguments(parser)


def register(subparsers: Any) -> None:
    """Add the ``match`` sub-command."""
    parser = subparsers.add_parser(
        "match",
        help="engine against engine over balloted openings: W/D/L, Elo, PDN, plot",
        description=help_description(__doc__),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_arguments(parser)
    parser.set_defaults(func=run)
