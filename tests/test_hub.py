"""The Hub protocol (poolcheckers.hub): parsing, formatting, positions, moves and
whole sessions over in-memory streams, with a fake engine and, when it is
built, the real one."""

from __future__ import annotations

import io
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from commands.fake_engine import FakeEngine, FakeLimit
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from poolcheckers import Board, RuleSet
from poolcheckers.engine import native_available
from poolcheckers.hub import (
    DEFAULT_MOVE_TIME,
    HubSession,
    HubSyntaxError,
    board_from_hub,
    board_from_pos_command,
    format_line,
    hub_move,
    hub_position,
    parse_hub_move,
    parse_line,
)

START_POS = "B" + "b" * 12 + "e" * 8 + "w" * 12
ROOT = Path(__file__).resolve().parents[1]


# ----------------------------------------------------------------- syntax
def test_parse_line_values_flags_and_quotes() -> None:
    line = parse_line('  level  move-time=0.5 infinite  name="a = b" empty="" ')
    assert line.command == "level"
    assert line.args == {"move-time": "0.5", "infinite": "", "name": "a = b", "empty": ""}


@pytest.mark.parametrize(
    "text",
    ["", "   ", "pos=x", 'go think="', "go =x", 'set-param value="a"b', "level x=a=b"],
)
def test_parse_line_rejects_malformed(text: str) -> None:
    with pytest.raises(HubSyntaxError):
        parse_line(text)


def test_blanks_around_equals_are_allowed_as_in_scan() -> None:
    line = parse_line('pos pos = B%s moves = "11-15 22-18"' % ("e" * 32))
    assert line.args == {"pos": "B" + "e" * 32, "moves": "11-15 22-18"}
    with pytest.raises(HubSyntaxError, match="starts with a command"):
        parse_line("pos=x")


def test_a_stray_double_quote_is_named_in_words() -> None:
    with pytest.raises(HubSyntaxError, match="unexpected double quote at column 1"):
        parse_line('"')
    out = _run_script(['"'])
    assert out == ['error message="unexpected double quote at column 1"']


def test_format_line_round_trips() -> None:
    text = format_line("info", ("depth", "3"), ("pv", "11-15 22-18"), ("x", ""), ("f", None))
    assert text == 'info depth=3 pv="11-15 22-18" x="" f'
    assert parse_line(text).args == {"depth": "3", "pv": "11-15 22-18", "x": "", "f": ""}


# ----------------------------------------------------------------- positions, moves
def test_start_position_string_is_r2_order() -> None:
    assert hub_position(Board()) == START_POS
    assert board_from_hub(START_POS) == Board()


def test_position_with_kings_and_white_to_move() -> None:
    board = Board("W:WK5,18:B3,K30")
    text = hub_position(board)
    assert text[0] == "W" and text[3] == "b" and text[5] == "W" and text[18] == "w"
    assert text[30] == "B" and text.count("e") == 28
    assert board_from_hub(text) == board


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("B" + "e" * 31, "33 characters"),
        ("X" + "e" * 32, "side to move"),
        ("B" + "e" * 31 + "q", "square 32"),
    ],
)
def test_bad_position_strings(text: str, message: str) -> None:
    with pytest.raises(HubSyntaxError, match=message):
        board_from_hub(text)


def test_hub_moves_name_captured_squares() -> None:
    king = Board("W:WK32:B27,18")
    capture = next(m for m in king.legal_moves if m.captured == frozenset({27, 18}))
    assert hub_move(capture) == f"32x{capture.destination}x18x27"
    assert parse_hub_move(king, f"32x{capture.destination}x27x18") == capture
    plain = Board().parse_move("11-15")
    assert hub_move(plain) == "11-15"
    assert parse_hub_move(Board(), "11-15") == plain


def test_parse_hub_move_errors() -> None:
    with pytest.raises(ValueError, match="not a Hub move"):
        parse_hub_move(Board(), "11/15")
    with pytest.raises(ValueError, match="not a Hub move"):
        parse_hub_move(Board(), "1\u00b2-15")  # str.isdigit() is true for "²", int() fails
    with pytest.raises(ValueError, match="not legal here"):
        parse_hub_move(Board(), "12-15")
    with pytest.raises(ValueError, match="1-32"):
        parse_hub_move(Board(), "0-4")


def test_pos_command_with_moves() -> None:
    board = board_from_pos_command({"pos": START_POS, "moves": "11-15 22-18 15x22x18"}, RuleSet())
    assert board.ply == 3 and board.piece_at(22) is not None and board.piece_at(18) is None
    assert board_from_pos_command({"start": ""}, RuleSet()) == Board()
    with pytest.raises(HubSyntaxError, match="move 22-18"):
        board_from_pos_command({"moves": "22-18"}, RuleSet())


# ----------------------------------------------------------------- sessions
class _Lines:
    """A blocking input stream fed line by line from the test."""

    def __init__(self) -> None:
        self._queue: queue.Queue[str] = queue.Queue()

    def send(self, line: str) -> None:
        self._queue.put(line + "\n")

    def close_input(self) -> None:
        self._queue.put("")

    def readline(self) -> str:
        return self._queue.get(timeout=10)


class _Output:
    """Collects written lines; :meth:`expect` waits for a line with a prefix."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self._queue: queue.Queue[str] = queue.Queue()
        self._partial = ""

    def write(self, text: str) -> int:
        self._partial += text
        while "\n" in self._partial:
            line, self._partial = self._partial.split("\n", 1)
            self.lines.append(line)
            self._queue.put(line)
        return len(text)

    def flush(self) -> None:
        pass

    def expect(self, prefix: str, timeout: float = 10.0) -> list[str]:
        """Lines up to and including the next one starting with ``prefix``."""
        seen: list[str] = []
        while True:
            line = self._queue.get(timeout=timeout)
            seen.append(line)
            if line.startswith(prefix):
                return seen


def _session(engine: FakeEngine) -> tuple[_Lines, _Output, threading.Thread, list[int]]:
    stdin, stdout = _Lines(), _Output()
    session = HubSession(lambda mb, rules: engine, stdin, stdout, limit_factory=FakeLimit)
    status: list[int] = []
    thread = threading.Thread(target=lambda: status.append(session.run()), daemon=True)
    thread.start()
    return stdin, stdout, thread, status


def _run_script(lines: list[str], engine: FakeEngine | None = None) -> list[str]:
    stdout = _Output()
    engine = engine or FakeEngine()
    text = "\n".join(lines) + "\n"
    session = HubSession(
        lambda mb, rules: engine, io.StringIO(text), stdout, limit_factory=FakeLimit
    )
    assert session.run() == 0
    return stdout.lines


def _run_waiting(lines: list[str], engine: FakeEngine) -> list[str]:
    """Feed ``lines`` as a GUI does: after each ``go`` wait for its ``done``.

    (Sent all at once, a ``level`` could arrive while the search of the
    ``go`` before it still runs, and be refused as busy: on a loaded machine
    the script's searches would then depend on the scheduler.)
    """
    stdout = _Output()
    session = HubSession(lambda mb, rules: engine, io.StringIO(""), stdout, limit_factory=FakeLimit)
    for line in lines:
        session.handle(line + "\n")
        if line.split()[0] == "go":
            assert session.wait(timeout=30), f"no done after {line!r}"
    assert session.run() == 0
    assert not any(line.startswith("error") for line in stdout.lines), stdout.lines
    return stdout.lines


def test_init_handshake() -> None:
    out = _run_script(["hub", "set-param name=level value=7", "init", "quit"])
    assert out[0].startswith("id name=poolcheckers version=")
    params = [parse_line(line).args for line in out if line.startswith("param ")]
    assert {p["name"] for p in params} >= {"level", "hash", "crown_during_capture"}
    assert out[-2:] == ["wait", "ready"] and len(out) == len(params) + 3


def test_go_think_returns_a_legal_move_and_ponder() -> None:
    engine = FakeEngine(prefer="11-15")
    # quit stops a running search: wait for done first, as a GUI does
    out = _run_waiting(
        ["hub", "init", "new-game", f"pos pos={START_POS}", "level depth=4", "go think", "quit"],
        engine,
    )
    infos = [parse_line(line).args for line in out if line.startswith("info")]
    assert [i["depth"] for i in infos] == ["1", "2", "3", "4"]
    assert infos[0]["score"] == "0.00" and infos[0]["pv"] == "11-15 21-17"
    done = parse_line(out[-1])
    assert done.command == "done"
    assert parse_hub_move(Board(), done.args["move"]) in Board().legal_moves
    assert done.args == {"move": "11-15", "ponder": "21-17"}
    assert engine.searches[0][1] == FakeLimit(depth=4)


def test_level_forms_become_limits() -> None:
    engine = FakeEngine()
    _run_waiting(
        [
            "pos start",
            "go",
            "level move-time=0.25",
            "go think",
            "level time=60 inc=1",
            "go think",
            "level moves=10 time=30 inc=0.5",
            "go think",
            "level nodes=5000",
            "go think",
        ],
        engine,
    )
    limits = [limit for _fen, limit, _level in engine.searches]
    assert limits == [
        FakeLimit(time=DEFAULT_MOVE_TIME),
        FakeLimit(time=0.25),
        FakeLimit(clock=60.0, increment=1.0),
        FakeLimit(time=3.5),
        FakeLimit(nodes=5000),
    ]


def test_level_resets_after_pos_and_level_param_reaches_the_engine() -> None:
    engine = FakeEngine()
    _run_script(
        ["set-param name=level value=3", "level depth=2", "pos start moves=11-15", "go think"],
        engine,
    )
    fen, limit, level = engine.searches[0]
    assert limit == FakeLimit(time=DEFAULT_MOVE_TIME) and level == 3
    assert fen.startswith("W:")


def test_ping_and_stop_during_analyze() -> None:
    engine = FakeEngine(step=0.005)
    stdin, stdout, thread, status = _session(engine)
    stdin.send("pos start")
    stdin.send("go analyze")
    stdout.expect("info depth=2")
    stdin.send("ping")
    before_pong = stdout.expect("pong")
    assert not any(line.startswith("done") for line in before_pong)
    stdout.expect("info")  # still searching after the pong
    stdin.send("go think")  # refused while searching
    assert any(line.startswith("error") for line in stdout.expect("error"))
    stdin.send("stop")
    done = stdout.expect("done")[-1]
    assert parse_line(done).args["move"] == "10-14"
    stdin.send("ping")
    stdout.expect("pong")
    stdin.send("quit")
    thread.join(10)
    assert status == [0]


def test_stop_before_the_search_starts_still_stops_it() -> None:
    engine = FakeEngine(step=0.005)
    stdin, stdout, thread, _status = _session(engine)
    stdin.send("go analyze")
    stdin.send("stop")
    assert stdout.expect("done")
    stdin.close_input()
    thread.join(10)
    assert not thread.is_alive()


def test_ponder_hit_stops_after_the_move_time() -> None:
    engine = FakeEngine(step=0.005)
    stdin, stdout, thread, _status = _session(engine)
    stdin.send("level move-time=0.05")
    stdin.send("go ponder")
    stdout.expect("info depth=3")
    stdin.send("ponder-hit")
    assert stdout.expect("done", timeout=5)[-1].startswith("done move=")
    stdin.send("quit")
    thread.join(10)
    assert engine.searches[0][1] == FakeLimit()


def test_quit_during_a_search_ends_it_with_done() -> None:
    engine = FakeEngine(step=0.005)
    stdin, stdout, thread, status = _session(engine)
    stdin.send("go analyze")
    stdout.expect("info")
    stdin.send("quit")
    thread.join(10)
    assert status == [0] and stdout.lines[-1].startswith("done move=")


def test_malformed_lines_get_errors_and_the_loop_goes_on() -> None:
    out = _run_script(
        [
            "",
            "frobnicate",
            'go "think',
            "level depth=x",
            "level move-time=-1",
            "level bogus=1 ponder",
            "pos pos=Bxyz",
            "pos moves=22-18",
            "set-param name=nope value=1",
            "set-param name=hash value=0",
            "set-param name=crown_during_capture value=maybe",
            "set-param value=3",
            "ping",
        ]
    )
    errors = [line for line in out if line.startswith("error message=")]
    assert len(errors) == 11  # not the level line: unknown arguments are ignored
    assert out[-1] == "pong"
    assert "unknown command 'frobnicate'" in errors[1]
    assert "22-18" in errors[6]


def test_go_on_a_finished_game_reports_it() -> None:
    out = _run_script(["pos pos=W" + "b" + "e" * 31, "go think"])
    assert out[0].startswith("error") and "cannot move" in out[0] and out[1] == "done"


def test_an_engine_that_cannot_start_is_reported_and_go_still_answers() -> None:
    def broken(hash_mb: int, rules: RuleSet) -> FakeEngine:
        raise RuntimeError("no native core")

    stdout = _Output()
    session = HubSession(
        broken, io.StringIO("init\ngo think\nping\n"), stdout, limit_factory=FakeLimit
    )
    assert session.run() == 0
    assert stdout.lines[0] == 'error message="the engine cannot start: no native core"'
    assert stdout.lines[1].startswith("error") and stdout.lines[2:] == ["done", "pong"]


def test_rule_parameters_change_the_board_rules() -> None:
    engine = FakeEngine()
    seen: list[RuleSet] = []

    def factory(hash_mb: int, rules: RuleSet) -> FakeEngine:
        seen.append(rules)
        return engine

    session = HubSession(
        factory,
        io.StringIO("set-param name=king_only_move_limit value=15\ninit\nquit\n"),
        _Output(),
        limit_factory=FakeLimit,
    )
    session.run()
    assert seen == [RuleSet(king_only_move_limit=15)]


# ----------------------------------------------------------------- the real thing
@pytest.mark.skipif(not native_available(), reason="the engine's native core is not built")
def test_cli_hub_with_the_real_engine() -> None:
    script = "\n".join(
        ["hub", "init", f"pos pos={START_POS} moves=11-15", "level depth=4", "go think", "quit"]
    )
    proc = subprocess.run(
        [sys.executable, "-m", "poolcheckers.cli", "hub"],
        input=script + "\n",
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert "ready" in lines
    done = parse_line(lines[-1])
    board = Board()
    board.push_notation("11-15")
    assert done.command == "done"
    assert parse_hub_move(board, done.args["move"]) in board.legal_moves


def test_analyze_searches_at_full_strength_and_think_at_the_level() -> None:
    engine = FakeEngine()
    _run_script(["set-param name=level value=2", "go think", "level depth=2", "go analyze"], engine)
    assert [level for _fen, _limit, level in engine.searches] == [2, None]


def test_numbers_must_be_ascii() -> None:
    out = _run_script(["level depth=\u0661\u0662", "level move-time=1_0", "pos moves=1\u00b2-15"])
    assert len(out) == 3 and all(line.startswith("error message=") for line in out)


# ----------------------------------------------------------------- fuzzing
#: What the engine may write (Hub version 2).
_ANSWERS = {"id", "param", "wait", "ready", "info", "done", "pong", "error"}
_COMMANDS = ["hub", "init", "set-param", "new-game", "pos", "level", "go", "stop"]
_COMMANDS += ["ponder-hit", "ping"]
_NAMES = ["name", "value", "pos", "moves", "start", "depth", "nodes", "move-time", "time"]
_NAMES += ["inc", "infinite", "think", "ponder", "analyze", "level", "hash"]
_VALUES = ["", "0", "1", "3", "-1", "0.05", "nan", "1e999", "x", "11-15", "15x22x18"]
_VALUES += ["11-15 22-18", "11-15 22-18 15x22x18", "22-18", START_POS, START_POS[:20]]
_VALUES += ["W" + "e" * 4 + "B" + "e" * 27, "level", "crown_during_capture", "stop", "true"]

_junk = st.text(st.characters(exclude_characters="\n", exclude_categories=["Cs"]))
_value = st.one_of(st.sampled_from(_VALUES), _junk)
_pair = st.tuples(st.one_of(st.sampled_from(_NAMES), _junk), st.none() | _value, st.booleans())


def _render(command: str, pairs: list[tuple[str, str | None, bool]]) -> str:
    parts = [command]
    for name, value, quoted in pairs:
        if value is None:
            parts.append(name)
        else:
            parts.append(f'{name}="{value}"' if quoted else f"{name}={value}")
    return " ".join(parts)


#: Lines near the grammar (known commands, known and unknown arguments, odd
#: values, quotes in the wrong places) and lines of any text at all.
hub_lines = st.one_of(
    st.builds(_render, st.sampled_from(_COMMANDS), st.lists(_pair, max_size=4)),
    st.builds(_render, _junk, st.lists(_pair, max_size=2)),
    _junk,
)


def _check_answers(lines: list[str]) -> None:
    for line in lines:
        parsed = parse_line(line)  # every answer is itself a well-formed Hub line
        assert parsed.command in _ANSWERS, line
        assert "internal error" not in line, line


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(hub_lines, min_size=1, max_size=25))
def test_fuzz_lines_one_at_a_time(lines: list[str]) -> None:
    """Any line: an answer of well-formed Hub lines; a malformed line or an
    unknown command gets exactly one ``error``; every go gets one ``done``."""
    stdout = _Output()
    session = HubSession(
        lambda mb, rules: FakeEngine(hash_mb=mb, rules=rules),
        io.StringIO(""),
        stdout,
        limit_factory=lambda **kwargs: FakeLimit(depth=2),  # every search ends by itself
    )
    for text in lines:
        before = len(stdout.lines)
        session.handle(text)
        assert session.wait(10)
        answer = stdout.lines[before:]
        _check_answers(answer)
        try:
            command = parse_line(text).command
        except HubSyntaxError:
            assert len(answer) == 1 and answer[0].startswith("error message="), (text, answer)
            continue
        if command not in [*_COMMANDS, "quit"]:
            assert len(answer) == 1 and answer[0].startswith("error message="), (text, answer)
        elif command == "go":
            assert [line for line in answer if line.startswith("done")] == [answer[-1]]
        elif command == "ping":
            assert answer == ["pong"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(hub_lines, st.sampled_from(["go analyze", "stop", "ping"])), max_size=30))
def test_fuzz_whole_streams_never_end_the_loop(lines: list[str]) -> None:
    """Fed through ``run`` (searches in the background, ``stop`` and ``ping``
    while they run): the loop ends only at ``quit`` or the end of input, with
    status 0, and every go that was not refused as busy is answered by ``done``."""
    stdout = _Output()
    engine = FakeEngine(step=0.001)
    text = "".join(line + "\n" for line in lines)
    session = HubSession(
        lambda mb, rules: engine, io.StringIO(text), stdout, limit_factory=FakeLimit
    )
    assert session.run() == 0
    _check_answers(stdout.lines)
    gos = 0
    for line in lines:
        try:
            parsed = parse_line(line)
        except HubSyntaxError:
            continue
        if parsed.command == "quit":
            break
        gos += parsed.command == "go"
    busy = sum('message="busy searching: go ' in line for line in stdout.lines)
    assert sum(line.startswith("done") for line in stdout.lines) == gos - busy


def test_ponder_hit_with_a_game_clock_stops_after_a_share_of_it() -> None:
    engine = FakeEngine(step=0.005)
    stdin, stdout, thread, _status = _session(engine)
    stdin.send("level time=1 inc=0")  # a share of the clock: 1/20 s with the fake limit
    stdin.send("go ponder")
    stdout.expect("info depth=3")
    stdin.send("ponder-hit")
    assert stdout.expect("done", timeout=5)[-1].startswith("done move=")
    stdin.send("quit")
    thread.join(10)


def test_huge_bounds_are_clamped_to_what_the_engine_takes() -> None:
    engine = FakeEngine()
    _run_waiting(
        [
            "level depth=1000",
            "go",
            "level nodes=99999999999999999999999",
            "go",
            "level move-time=1e300",
            "go",
            "level time=1e300 inc=1e300",
            "go",
        ],
        engine,
    )
    limits = [limit for _fen, limit, _level in engine.searches]
    assert limits == [
        FakeLimit(depth=100),
        FakeLimit(nodes=2**62),
        FakeLimit(time=1e6),
        FakeLimit(clock=1e6, increment=1e6),
    ]


def test_a_limit_the_engine_refuses_is_an_error_and_go_still_answers_done() -> None:
    def refusing(**bounds: object) -> FakeLimit:
        raise ValueError("Limit.depth must be at most 50")

    stdout = _Output()
    session = HubSession(
        lambda mb, rules: FakeEngine(), io.StringIO("level depth=60\ngo think\nping\n"),
        stdout, limit_factory=refusing,
    )  # fmt: skip
    assert session.run() == 0
    assert stdout.lines == [
        'error message="go: bad level: Limit.depth must be at most 50"',
        "done",
        "pong",
    ]


@pytest.mark.skipif(not native_available(), reason="the engine's native core is not built")
def test_real_engine_with_huge_bounds_answers_a_legal_move() -> None:
    from poolcheckers.engine import open_engine

    stdout = _Output()
    script = "level depth=1000 move-time=1e300\ngo think\n"
    session = HubSession(lambda mb, rules: open_engine(4, rules), io.StringIO(script), stdout)
    threading.Timer(0.5, session.handle, ("stop",)).start()
    assert session.run() == 0
    assert not [line for line in stdout.lines if line.startswith("error")]
    assert parse_hub_move(Board(), parse_line(stdout.lines[-1]).args["move"]) in Board().legal_moves


def test_bytes_that_are_not_utf8_get_an_error_not_a_crash() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "poolcheckers.cli", "hub"],
        input=b"ping\n\xff\xfe\nping\n",
        capture_output=True,
        timeout=60,
        cwd=ROOT,
        env={**os.environ, "PYTHONIOENCODING": "utf-8:strict"},  # as in a en_US.UTF-8 locale
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.decode("utf-8").splitlines()
    assert lines[0] == "pong" and lines[1].startswith("error message=") and lines[2] == "pong"


class _ClosedOutput(_Output):
    """An output whose reader goes away after ``keep`` lines."""

    def __init__(self, keep: int) -> None:
        super().__init__()
        self.keep = keep

    def write(self, text: str) -> int:
        if len(self.lines) >= self.keep:
            raise BrokenPipeError(32, "Broken pipe")
        return super().write(text)


def test_a_gui_that_closes_its_end_ends_the_session_and_the_search() -> None:
    engine = FakeEngine(step=0.005)  # analyze: searches until stopped
    stdin, stdout = _Lines(), _ClosedOutput(keep=2)
    session = HubSession(lambda mb, rules: engine, stdin, stdout, limit_factory=FakeLimit)
    status: list[int] = []
    thread = threading.Thread(target=lambda: status.append(session.run()), daemon=True)
    thread.start()
    stdin.send("go analyze")
    stdout.expect("info depth=2")
    assert session.wait(10)  # the search stopped by itself once nobody read its lines
    assert session.output_closed and len(stdout.lines) == 2
    stdin.send("ping")  # the loop notices and ends
    thread.join(10)
    assert status == [0]


# ----------------------------------------------------------------- control bytes, win-in
#: Characters that must never reach the GUI raw: C0 controls, DEL, C1 controls, separators.
_CONTROL = {chr(c) for c in [*range(0x20), *range(0x7F, 0xA0), 0x2028, 0x2029]}


def _clean(lines: list[str]) -> bool:
    return all(not (_CONTROL & set(line)) for line in lines)


def _byte_lines() -> st.SearchStrategy[str]:
    """A line a GUI might send: random bytes (also controls and bad UTF-8) around
    a real command, read as ``poolcheckers hub`` reads stdin (undecodable: U+FFFD)."""
    commands = st.sampled_from(
        ["pos pos=", "pos moves=", "go ", "level depth=", "set-param name=", "", "ping ", "x"]
    )
    noise = st.binary(max_size=24)
    return st.builds(
        lambda c, b: (c.encode() + b).decode("utf-8", errors="replace").replace("\n", ""),
        commands,
        noise,
    )


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_byte_lines(), min_size=1, max_size=6))
def test_control_bytes_are_escaped_in_every_reply(lines: list[str]) -> None:
    out = _run_script(lines)
    assert _clean(out), out


def test_bad_tokens_are_echoed_escaped() -> None:
    out = _run_script(["pos moves=11-15\x01", "go\x00 think", "level depth=3\x7f", "b\x1bad"])
    errors = [line for line in out if line.startswith("error")]
    assert len(errors) == 4 and _clean(out)
    assert "11-15\\x01" in errors[0]
    assert "\\x1b" in errors[3]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_byte_lines(), min_size=1, max_size=4))
def test_control_bytes_are_escaped_while_searching(lines: list[str]) -> None:
    engine = FakeEngine(step=0.002)
    stdin, stdout, thread, _status = _session(engine)
    stdin.send("go analyze")  # until stop: every line below comes during the search
    stdout.expect("info depth=1")
    for line in lines:
        stdin.send(line)
    stdin.send("stop")
    stdout.expect("done")
    stdin.send("quit")
    thread.join(10)
    assert _clean(stdout.lines), stdout.lines


def test_win_in_counts_the_winners_moves() -> None:
    # the engine reports 3 plies (Black, White, Black): Black's 2nd move wins
    out = _run_script(["level depth=1", "go think"], FakeEngine(score=29_997, mate_in=3))
    assert "win-in=2" in next(line for line in out if line.startswith("info"))
    out = _run_script(["level depth=1", "go think"], FakeEngine(score=-29_996, mate_in=-4))
    assert "win-in=-2" in next(line for line in out if line.startswith("info"))


@pytest.mark.skipif(not native_available(), reason="the engine's native core is not built")
def test_multipv_and_threads_parameters_with_the_real_engine() -> None:
    from poolcheckers.engine import Engine, open_engine

    stdout = _Output()
    script = (
        "set-param name=multipv value=3\nset-param name=threads value=2\ninit\n"
        "level depth=4\ngo analyze\n"
    )
    engines: list[Engine] = []

    def factory(mb: int, rules: RuleSet) -> Engine:
        engines.append(open_engine(4, rules))
        return engines[-1]

    session = HubSession(factory, io.StringIO(""), stdout)
    for line in script.splitlines():
        session.handle(line)
    assert session.wait(60)  # the search ends by itself at depth 4
    assert engines[0].threads == 2
    infos = [parse_line(line) for line in stdout.lines if line.startswith("info")]
    last = [i for i in infos if i.args["depth"] == "4"]
    assert [i.args["multipv"] for i in last] == ["1", "2", "3"]
    firsts = {i.args["pv"].split()[0] for i in last}
    assert len(firsts) == 3  # three different first moves
    scores = [float(i.args["score"]) for i in last]
    assert scores == sorted(scores, reverse=True)
    assert stdout.lines[-1].startswith("done move=")


@pytest.mark.skipif(not native_available(), reason="the engine's native core is not built")
def test_the_evaluation_parameter_switches_the_engine_to_the_network_and_back() -> None:
    from poolcheckers.engine import Engine, open_engine

    stdout = _Output()
    engines: list[Engine] = []

    def factory(mb: int, rules: RuleSet) -> Engine:
        engines.append(open_engine(4, rules))
        return engines[-1]

    session = HubSession(factory, io.StringIO(""), stdout)
    for line in ("set-param name=evaluation value=nnue", "init"):
        session.handle(line)
    assert engines[0].evaluation == "nnue"
    session.handle("set-param name=evaluation value=pattern")
    assert engines[0].evaluation == "pattern"
    session.handle("set-param name=evaluation value=scan")
    assert any("evaluation must be one of pattern, nnue" in line for line in stdout.lines)
    assert engines[0].evaluation == "pattern"
