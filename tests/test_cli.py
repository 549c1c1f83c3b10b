"""The ``poolcheckers moves`` and ``poolcheckers perft`` commands, run as a user runs them."""

from __future__ import annotations

import argparse
import io
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from poolcheckers.cli import build_parser
from poolcheckers.rules import RuleSet

# The independently worked positions of the rule book, kept with the tests.
ROOT = Path(__file__).resolve().parents[1]
EXAMPLES_PATH = Path(__file__).parent / "data" / "rule-examples.json"
PASSING_FEN = "W:W11,21,25:B6,K7,K14,15,16,23"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "poolcheckers.cli", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_moves_from_the_start() -> None:
    result = run("moves")
    assert result.returncode == 0, result.stderr
    assert sorted(result.stdout.split()) == sorted(
        ["9-13", "9-14", "10-14", "10-15", "11-15", "11-16", "12-16"]
    )
    assert result.stdout.endswith("\n")


def test_moves_of_every_rule_example() -> None:
    examples = json.loads(EXAMPLES_PATH.read_text())["examples"]
    assert examples, EXAMPLES_PATH
    examples.append(
        {
            "fen": PASSING_FEN,
            "legal_moves": ["11x18x27", "11x20", "11x2x9x18x11x20", "11x2x9x18x27"],
        }
    )
    for example in examples:
        result = run("moves", "--fen", example["fen"])
        assert result.returncode == 0, result.stderr
        assert sorted(result.stdout.split()) == example["legal_moves"]
        if "legal_moves_with_crown_during_capture_stop" in example:
            result = run("moves", "--fen", example["fen"], "--rules", "crown_during_capture=stop")
            assert result.returncode == 0, result.stderr
            assert (
                sorted(result.stdout.split())
                == (example["legal_moves_with_crown_during_capture_stop"])
            )


def test_moves_with_no_legal_move_prints_nothing() -> None:
    result = run("moves", "--fen", "W:W29:B25,22")
    assert result.returncode == 0
    assert result.stdout == ""


@pytest.mark.parametrize("generator", [[], ["--python"]])
def test_perft(generator: list[str]) -> None:
    result = run("perft", "--depth", "5", *generator)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "7482"
    assert "perft 5: 7482 leaves" in result.stderr


@pytest.mark.parametrize("generator", [[], ["--python"]])
def test_perft_divide(generator: list[str]) -> None:
    result = run("perft", "--depth", "3", "--divide", *generator)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.strip().splitlines()
    rows = dict(line.split(": ") for line in lines[:-1])
    assert sorted(rows) == sorted(["9-13", "9-14", "10-14", "10-15", "11-15", "11-16", "12-16"])
    assert lines[-1] == "total: 302"
    assert sum(int(n) for n in rows.values()) == 302
    assert rows["9-13"] == "48" and rows["12-16"] == "47"


@pytest.mark.parametrize("generator", [[], ["--python"]])
def test_perft_with_rules(generator: list[str]) -> None:
    passing = run("perft", "--fen", PASSING_FEN, "--depth", "4", *generator)
    stopping = run(
        "perft",
        "--fen",
        PASSING_FEN,
        "--depth",
        "4",
        "--rules",
        "crown_during_capture=stop",
        *generator,
    )
    assert passing.returncode == stopping.returncode == 0, passing.stderr + stopping.stderr
    assert (passing.stdout.strip(), stopping.stdout.strip()) == ("291", "651")


def test_perft_divide_with_rules_full_paths() -> None:
    result = run(
        "perft", "--fen", PASSING_FEN, "--depth", "2", "--divide",
        "--rules", "crown_during_capture=stop",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    rows = dict(line.split(": ") for line in result.stdout.strip().splitlines())
    assert rows == {"11x18x9x2": "9", "11x2": "15", "11x20": "16", "11x27": "1", "total": "41"}


def test_perft_depth_zero() -> None:
    result = run("perft", "--depth", "0")
    assert result.returncode == 0
    assert result.stdout.strip() == "1"


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["moves", "--fen", "B:W33:B1"], "33"),
        (["moves", "--fen", "B:W21:B21"], "21"),
        (["moves", "--fen", ""], "empty"),
        (["moves", "--rules", "crown_during_capture=maybe"], "crown_during_capture"),
        (["perft", "--depth", "3", "--rules", "no_such=1"], "no_such"),
        (["perft", "--depth", "3", "--rules", "king_only_move_limit=x"], "king_only_move_limit"),
        (["perft", "--depth", "-1"], "depth"),
        (["perft", "--depth", "0", "--divide"], "divide"),
        (["perft", "--depth", "2", "--fen", "B:W1-13:B30"], "FEN"),
    ],
)
def test_bad_input_one_clear_line(args: list[str], words: str) -> None:
    result = run(*args)
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert words in lines[0]
    assert lines[0].startswith(f"poolcheckers {args[0]}: error:")
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["perft"],  # --depth missing
        ["perft", "--depth", "abc"],
        ["moves", "--bogus"],
        ["no-such-command"],
    ],
)
def test_bad_command_line_exits_non_zero(args: list[str]) -> None:
    result = run(*args)
    assert result.returncode == 2
    assert "error" in result.stderr.strip().splitlines()[-1]
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("args", [["perft", "--depth", "abc"], ["perft"]])
def test_bad_arguments_one_line(args: list[str]) -> None:
    result = run(*args)
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr


def test_perft_depth_beyond_the_limit_is_one_line() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "poolcheckers.cli", "perft", "--depth", "31"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "poolcheckers perft: error: --depth must be in 0..30, not 31"
    ]


def test_output_into_a_closed_pipe_is_quiet() -> None:
    command = [sys.executable, "-m", "poolcheckers.cli", "perft", "--depth", "4", "--divide"]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader goes away before the first line
    err = proc.stderr.read().decode()
    proc.wait(timeout=60)
    assert "Traceback" not in err


@pytest.mark.parametrize(
    "argv", [["bench"], ["analyse", "--depth", "2"], ["play"], ["match", "--games", "2"]]
)
def test_without_the_native_engine_engine_commands_exit_3_and_say_why(
    argv: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from poolcheckers.cli import EXIT_ENGINE_UNAVAILABLE, main
    from poolcheckers.engine import core

    monkeypatch.setattr(core, "_CORE", None)
    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    assert main(argv) == EXIT_ENGINE_UNAVAILABLE == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith(f"poolcheckers {argv[0]}: the native engine is not built (")


def test_without_the_native_engine_perft_uses_the_library(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from poolcheckers.cli import main
    from poolcheckers.engine import core

    monkeypatch.setattr(core, "_CORE", None)
    assert main(["perft", "--depth", "3", "--divide"]) == 0
    captured = capsys.readouterr()
    assert captured.out.splitlines()[-1] == "total: 302" and "(python)" in captured.err


def test_a_command_usage_error_under_python_m_is_one_line_with_status_2() -> None:
    """``python -m poolcheckers.cli`` runs cli.py as ``__main__``; a command's
    UsageError (raised as ``poolcheckers.cli.UsageError``) is still caught."""
    result = run("match", "--level-a", "0")
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert result.stderr.strip() == "poolcheckers match: error: --level-a must be 1..10, not 0"


def test_a_bare_command_prints_its_usage_and_version_prints_the_version() -> None:
    from importlib.metadata import version

    bare = run()
    assert bare.returncode == 0 and bare.stdout.startswith("usage: poolcheckers")
    assert "moves" in bare.stdout and "puzzles" in bare.stdout
    shown = run("--version")
    assert (
        shown.returncode == 0 and shown.stdout.strip() == f"poolcheckers {version('poolcheckers')}"
    )


def test_the_licence_file_matches_the_package_metadata() -> None:
    from importlib.metadata import metadata

    licence = (Path(__file__).resolve().parents[1] / "LICENSE").read_text(encoding="utf-8")
    assert "GNU GENERAL PUBLIC LICENSE" in licence and "Version 3, 29 June 2007" in licence
    assert metadata("poolcheckers")["License-Expression"] == "GPL-3.0-or-later"


def test_the_build_names_a_missing_system_package_before_building() -> None:
    """``make setup`` checks the system first (scripts/build-deps.sh): a missing zlib
    header is named with its Debian package, not hidden in a quiet pip build."""
    script = Path(__file__).resolve().parents[1] / "scripts" / "build-deps.sh"
    env = {"PATH": "/usr/bin:/bin", "BUILD_DEPS_DRY_RUN": "1", "ZLIB_HEADER": "/nonexistent/zlib.h"}
    done = subprocess.run(
        ["bash", str(script), sys.executable], capture_output=True, text=True, env=env, check=False
    )
    assert done.returncode == 1
    assert "missing: zlib1g-dev — zlib's headers (zlib.h)" in done.stderr
    fine = subprocess.run(
        ["bash", str(script), sys.executable], capture_output=True, text=True,
        env={**env, "ZLIB_HEADER": "/usr/include/zlib.h"}, check=False,
    )  # fmt: skip
    assert fine.returncode == 0, fine.stderr


def test_make_run_installs_the_site_without_the_test_and_cluster_extras() -> None:
    root = Path(__file__).resolve().parents[1]
    plan = subprocess.run(
        ["make", "-n", "-B", "run", "VENV=/nonexistent/venv"], cwd=root, capture_output=True,
        text=True, check=False,
    )  # fmt: skip
    assert plan.returncode == 0, plan.stderr
    installs = [
        line for line in plan.stdout.splitlines() if "pip install" in line and " -e " in line
    ]
    # the site's extra alone: not the test, tooling and cluster ones
    assert installs and all(line.rstrip().endswith("-e '.[web]'") for line in installs), installs
    full = subprocess.run(
        ["make", "-n", "-B", "setup", "VENV=/nonexistent/venv"], cwd=root, capture_output=True,
        text=True, check=False,
    )  # fmt: skip
    assert "[web,dev,distributed,tooling]" in full.stdout


def _parsers_with_rules(parser: argparse.ArgumentParser, path: str) -> Iterator[tuple[str, Any]]:
    """Every (sub-)command of ``parser`` that takes ``--rules``, with that option."""
    for action in parser._actions:
        if "--rules" in action.option_strings:
            yield path, action
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _parsers_with_rules(sub, f"{path} {name}")


def test_every_command_taking_rules_adds_up_a_repeated_rules_option() -> None:
    """``--rules a=1 --rules b=2`` is both options, for every command, not b alone."""
    found = dict(_parsers_with_rules(build_parser(), "poolcheckers"))
    assert {"poolcheckers moves", "poolcheckers egdb build", "poolcheckers match",
            "poolcheckers bot", "poolcheckers play"} <= set(found)  # fmt: skip
    for command, action in found.items():
        namespace = argparse.Namespace(rules=[])
        action(argparse.ArgumentParser(), namespace, ["king_only_move_limit=10"], "--rules")
        action(argparse.ArgumentParser(), namespace, ["repetition_draw=false"], "--rules")
        assert namespace.rules == ["king_only_move_limit=10", "repetition_draw=false"], command
    args = build_parser().parse_args(["egdb", "build", "--pieces", "3",
                                      "--rules", "king_only_move_limit=10",
                                      "--rules", "repetition_draw=false"])  # fmt: skip
    rules = RuleSet.from_options(args.rules)
    assert (rules.king_only_move_limit, rules.repetition_draw) == (10, False)


def test_one_rule_option_given_twice_with_two_values_is_refused() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "poolcheckers.cli", "moves", "--rules", "king_only_move_limit=10",
         "--rules", "king_only_move_limit=12"], capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr == (
        "poolcheckers moves: error: rule option king_only_move_limit is given twice: 10 and 12\n"
    )


def _commands() -> list[str]:
    """Every sub-command of ``poolcheckers`` by its name (an alias, ``analyze``, left out)."""
    names: dict[int, str] = {}
    for action in build_parser()._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                names.setdefault(id(sub), name)
    return sorted(names.values())


def test_commands_md_has_a_section_for_every_command() -> None:
    text = (ROOT / "docs" / "COMMANDS.md").read_text(encoding="utf-8")
    headed = {
        name
        for line in text.splitlines()
        if line.startswith("## ")
        for name in line[3:].split(" — ")[0].replace(",", " ").split()
    }
    assert "nnue" in _commands()
    assert [c for c in _commands() if c not in headed] == []


def test_the_readme_names_every_command_and_every_document() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    commands = text.split("## The command line", 1)[1].split("\n## ", 1)[0]
    assert [c for c in _commands() if f"poolcheckers {c} " not in commands] == []
    layout = text.split("## Layout", 1)[1].split("\n## ", 1)[0]
    listed = layout.split("\ndocs/", 1)[1].split("\n```", 1)[0]
    documents = sorted(p.name for p in (ROOT / "docs").glob("*.md"))
    assert [d for d in documents if d not in listed] == []
    # what make test needs, beside the two commands
    two = text.split("## The two commands", 1)[1].split("\n## ", 1)[0]
    for words in ("root rights or sudo", "`chromium`", "`postgresql`", "`caddy`", "`nodejs`"):
        assert words in two, words
    assert re.search(r"`make test` takes about \d+ minutes on two CPUs", two), "its time"
