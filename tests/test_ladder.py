"""benchmarks/ladder.py --merge and --resume, from synthetic run files.

No games are played: the run files are written here as ladder.py writes them, and
the --resume tests replace the player of a step and the engine's git identity.
"""

from __future__ import annotations

import json
import math
import shutil
import subprocess
from dataclasses import asdict, replace
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from benchmark_script import load_benchmark

from poolcheckers.engine import LEVELS
from poolcheckers.tooling.ladder import Step, ladder_elo
from poolcheckers.tooling.stats import Z_95, format_elo

#: pair points with a spread (no perfect score), so every gap has a finite interval
POINTS = [2.0, 1.5, 1.0, 2.0, 0.5, 2.0, 1.5, 1.0]


@pytest.fixture(scope="module")
def ladder() -> ModuleType:
    return load_benchmark("ladder")


def _run(
    ladder: ModuleType, name: str, steps: list[tuple[int, int]], commit: str
) -> dict[str, Any]:
    """A finished run of ``steps`` as ladder.py writes it (without ``source``, ``commit``
    and ``engine_tree`` in the steps, as the runs before they were recorded)."""
    records = []
    for upper, lower in steps:
        step = Step(upper, lower, 2 * len(POINTS), f"depth {upper}", list(POINTS))
        step.wins, step.draws, step.losses = 8, 4, 4
        step.reasons = {"R16": 12, "R18": 4}
        record = asdict(step)
        del record["source"], record["commit"], record["engine_tree"]
        records.append(record)
    return {
        "name": name,
        "command": f"benchmarks/ladder.py --name {name}",
        "started": "2026-12-02 03:00",
        "cpus": 2,
        "commit": commit,
        "load_start": 1.0,
        "levels": {str(k): asdict(v) for k, v in LEVELS.items()},
        "table": None,
        "steps": records,
        "load_end": 1.5,
        "finished": "2026-12-02 03:10",
    }


def _write(path: Path, data: Any) -> str:
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


def _merge(ladder: ModuleType, tmp_path: Path, *files: str) -> int:
    out = str(tmp_path / "out")
    return int(ladder.main(["--merge", *files, "--name", "merged", "--results", out]))


def test_merge_is_the_union_of_the_steps_with_the_sums(
    ladder: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    low = _run(ladder, "low", [(2, 1), (3, 2), (3, 1)], "aaaaaaa")
    high = _run(ladder, "high", [(4, 3), (1, 0)], "bbbbbbb")
    a, b = _write(tmp_path / "low.json", low), _write(tmp_path / "high.json", high)
    assert _merge(ladder, tmp_path, b, a) == 0
    out = tmp_path / "out"
    merged = json.loads((out / "merged.json").read_text())
    # as a run has them: the ladder from the lowest step up, then the others in order
    steps = [(s["upper"], s["lower"], s["source"], s["commit"]) for s in merged["steps"]]
    assert steps == [
        (2, 1, a, "aaaaaaa"),
        (3, 2, a, "aaaaaaa"),
        (4, 3, b, "bbbbbbb"),
        (1, 0, b, "bbbbbbb"),
        (3, 1, a, "aaaaaaa"),
    ]
    assert [s["file"] for s in merged["sources"]] == [b, a]
    assert [s["commit"] for s in merged["sources"]] == ["bbbbbbb", "aaaaaaa"]
    assert "started" not in merged and "commit" not in merged
    assert merged["levels"] == low["levels"]  # the same table in both runs: kept once

    def elo(run: dict[str, Any]) -> dict[int, tuple[float, float, bool]]:
        result: dict[int, tuple[float, float, bool]]
        result = ladder_elo([Step(**s) for s in run["steps"]])
        return result

    total, sigma, bounded = elo(merged)[4]
    three, gap = elo(low)[3], elo(high)[4]
    assert total == pytest.approx(three[0] + gap[0]) and not bounded
    assert sigma == pytest.approx(math.hypot(three[1], gap[1]))
    table = (out / "merged.md").read_text()
    assert f"| {format_elo(total)} ± {Z_95 * sigma:.0f} |" in table
    assert "Merged from 2 runs" in table and f"`{a}` (low, commit aaaaaaa)" in table
    assert "Cross-checks" in table and "| 1 v random |" in table
    assert (out / "merged.png").stat().st_size > 0
    assert capsys.readouterr().out == table + "\n"

    # a merged file counts as its runs, and --replot redoes its table
    again = tmp_path / "again"
    assert (
        ladder.main(["--merge", str(out / "merged.json"), "--name", "x", "--results", str(again)])
        == 0
    )
    remerged = json.loads((again / "x.json").read_text())
    assert remerged["sources"] == merged["sources"] and remerged["steps"] == merged["steps"]
    (out / "merged.md").unlink()
    assert ladder.main(["--replot", str(out / "merged.json")]) == 0
    assert (out / "merged.md").read_text() == table


def test_merge_keeps_each_runs_levels_when_they_differ(
    ladder: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    low = _run(ladder, "low", [(2, 1)], "aaaaaaa")
    high = _run(ladder, "high", [(3, 2)], "bbbbbbb")
    high["levels"]["2"]["noise"] += 5
    a, b = _write(tmp_path / "low.json", low), _write(tmp_path / "high.json", high)
    assert _merge(ladder, tmp_path, a, b) == 0
    merged = json.loads((tmp_path / "out" / "merged.json").read_text())
    assert "levels" not in merged
    assert [s["levels"] for s in merged["sources"]] == [low["levels"], high["levels"]]
    table = (tmp_path / "out" / "merged.md").read_text()
    assert f"The levels of the run `{a}`" in table and f"The levels of the run `{b}`" in table


def test_merge_refuses_a_step_in_two_runs(
    ladder: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = _write(tmp_path / "a.json", _run(ladder, "a", [(2, 1), (3, 2)], "aaaaaaa"))
    b = _write(tmp_path / "b.json", _run(ladder, "b", [(3, 2), (4, 3)], "bbbbbbb"))
    with pytest.raises(SystemExit) as exit_:
        _merge(ladder, tmp_path, a, b)
    assert exit_.value.code == 2
    assert f"error: step 3 v 2 is in {a} and {b}" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_merge_refuses_a_gap_in_the_ladder(
    ladder: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = _write(tmp_path / "a.json", _run(ladder, "a", [(2, 1)], "aaaaaaa"))
    b = _write(tmp_path / "b.json", _run(ladder, "b", [(5, 4)], "bbbbbbb"))
    with pytest.raises(SystemExit) as exit_:
        _merge(ladder, tmp_path, a, b)
    assert exit_.value.code == 2
    assert "error: the merged ladder has a gap: no step 3 v 2, 4 v 3" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("content", "complaint"),
    [
        (None, "cannot read it as JSON"),  # no such file
        ("not json", "cannot read it as JSON"),
        ('["a list"]', "not a ladder run (not a JSON object)"),
        ('{"2": {"noise": 40}}', "not a ladder run (no name, command, started"),
        ("STEP", "not a ladder run (step 1: "),
    ],
)
def test_merge_refuses_a_file_that_is_not_a_ladder_run(
    ladder: ModuleType,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    content: str | None,
    complaint: str,
) -> None:
    good = _write(tmp_path / "good.json", _run(ladder, "good", [(2, 1)], "aaaaaaa"))
    bad = tmp_path / "bad.json"
    if content == "STEP":
        run = _run(ladder, "bad", [(3, 2)], "bbbbbbb")
        run["steps"][0]["colour"] = "white"  # not a field of a step
        _write(bad, run)
    elif content is not None:
        bad.write_text(content, encoding="utf-8")
    with pytest.raises(SystemExit) as exit_:
        _merge(ladder, tmp_path, good, str(bad))
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert f"error: {bad}: {complaint}" in err and "Traceback" not in err


def test_merge_needs_a_name_and_never_writes_over_its_runs(
    ladder: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = _write(tmp_path / "a.json", _run(ladder, "a", [(2, 1)], "aaaaaaa"))
    b = _write(tmp_path / "b.json", _run(ladder, "b", [(3, 2)], "bbbbbbb"))
    with pytest.raises(SystemExit):
        ladder.main(["--merge", a, b, "--results", str(tmp_path)])
    assert "--merge: give the merged run a --name" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        ladder.main(["--merge", a, b, "--name", "a", "--results", str(tmp_path)])
    assert "is one of the runs to merge" in capsys.readouterr().err
    assert json.loads(Path(a).read_text())["name"] == "a"


#: an engine's :func:`_engine_tree` (the trees of poolcheckers/ and native/, setup.py)
TREE = f"poolcheckers:{'1' * 40} native:{'2' * 40} setup.py:{'4' * 40}"
OTHER_TREE = f"poolcheckers:{'1' * 40} native:{'3' * 40} setup.py:{'4' * 40}"


def _play(
    ladder: ModuleType,
    monkeypatch: pytest.MonkeyPatch,
    results: Path,
    commit: str,
    tree: str,
    resume: bool = True,
) -> tuple[list[str], dict[str, Any]]:
    """Run ladder.py (steps 2 v 1 and 3 v 2) as the engine of ``commit`` and ``tree``,
    with a step player that plays no games: the steps played and the run file."""
    played: list[str] = []

    def play_step(step: Any, *args: Any, **kwargs: Any) -> None:
        played.append(step.title)
        step.pair_points = list(POINTS)
        step.wins, step.draws, step.losses = 8, 4, 4
        step.when, step.load = f"2026-12-02 0{len(played)}:00", [1.0, 1.5]

    monkeypatch.setattr(ladder, "play_step", play_step)
    monkeypatch.setattr(ladder, "plot", lambda *args: None)
    monkeypatch.setattr(ladder, "_commit", lambda: commit)
    monkeypatch.setattr(ladder, "_engine_tree", lambda: tree)
    argv = ["--low", "2", "--high", "3", "--games-low", str(2 * len(POINTS))]
    argv += ["--name", "run", "--results", str(results), *(["--resume"] if resume else [])]
    assert ladder.main(argv) == 0
    return played, json.loads((results / "run.json").read_text())


def test_resume_keeps_the_steps_of_the_same_trees_under_another_commit(
    ladder: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    played, first = _play(ladder, monkeypatch, tmp_path, "aaaaaaa", TREE, resume=False)
    assert played == ["2 v 1", "3 v 2"]
    assert first["commit"] == "aaaaaaa" and first["engine_tree"] == TREE
    assert [(s["commit"], s["engine_tree"]) for s in first["steps"]] == [("aaaaaaa", TREE)] * 2
    # the same engine rebased: another commit, the same trees
    played, again = _play(ladder, monkeypatch, tmp_path, "bbbbbbb", TREE)
    assert played == []
    assert again["commit"] == "bbbbbbb" and again["engine_tree"] == TREE
    assert again["steps"] == first["steps"]  # each keeps the commit that played it
    assert again["resumed"].startswith("steps of the same engine and levels kept")


def test_resume_replays_the_steps_of_other_trees_or_levels(
    ladder: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _play(ladder, monkeypatch, tmp_path, "aaaaaaa", TREE, resume=False)
    played, again = _play(ladder, monkeypatch, tmp_path, "bbbbbbb", OTHER_TREE)
    assert played == ["2 v 1", "3 v 2"]
    assert [(s["commit"], s["engine_tree"]) for s in again["steps"]] == [
        ("bbbbbbb", OTHER_TREE)
    ] * 2
    # the same trees, but level 3 plays otherwise: only the step with level 3 again
    monkeypatch.setitem(ladder.LEVELS, 3, replace(ladder.LEVELS[3], noise=99))
    played, _ = _play(ladder, monkeypatch, tmp_path, "bbbbbbb", OTHER_TREE)
    assert played == ["3 v 2"]


@pytest.mark.parametrize(
    ("before", "now"),
    [
        (TREE + "+", TREE + "+"),  # the same trees with changes: perhaps other changes
        (TREE + "+", TREE),
        (TREE, TREE + "+"),
        ("unknown", "unknown"),  # outside git
    ],
)
def test_resume_never_trusts_a_tree_with_changes(
    ladder: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, before: str, now: str
) -> None:
    commit = "aaaaaaa" + "+" * before.endswith("+")
    _play(ladder, monkeypatch, tmp_path, commit, before, resume=False)
    played, _ = _play(ladder, monkeypatch, tmp_path, "aaaaaaa" + "+" * now.endswith("+"), now)
    assert played == ["2 v 1", "3 v 2"]


@pytest.mark.parametrize(
    ("old_commit", "commit", "kept"),
    [
        ("aaaaaaa", "aaaaaaa", True),
        ("aaaaaaa", "bbbbbbb", False),
        ("aaaaaaa+", "aaaaaaa+", False),  # a tree with changes, as above
    ],
)
def test_resume_of_a_file_without_trees_compares_the_commits(
    ladder: ModuleType,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    old_commit: str,
    commit: str,
    kept: bool,
) -> None:
    _, old = _play(ladder, monkeypatch, tmp_path, old_commit, "", resume=False)
    # as the files before the trees were recorded: the first step also without its
    # commit (as before the --merge work), so that its run's commit is compared
    del old["engine_tree"], old["steps"][0]["commit"]
    for step in old["steps"]:
        del step["engine_tree"]
    _write(tmp_path / "run.json", old)
    played, again = _play(ladder, monkeypatch, tmp_path, commit, TREE + "+" * commit.endswith("+"))
    assert played == ([] if kept else ["2 v 1", "3 v 2"])
    if kept:  # played by this engine: the steps get the commit and trees they lacked
        assert [(s["commit"], s["engine_tree"]) for s in again["steps"]] == [(commit, TREE)] * 2


def test_engine_tree_is_the_ids_of_the_engine_paths(
    ladder: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if shutil.which("git") is None:
        pytest.skip("no git")
    repo = tmp_path / "repo"

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.org",
             "-c", "commit.gpgsign=false", *args],
            capture_output=True, text=True, check=True,
        ).stdout.strip()  # fmt: skip

    for name in ("poolcheckers/search.py", "native/search.c", "setup.py", "docs/ENGINE.md"):
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text("1\n", encoding="utf-8")
    git("init", "-q")
    git("add", ".")
    git("commit", "-q", "-m", "engine")
    monkeypatch.setattr(ladder, "ROOT", repo)
    tree = ladder._engine_tree()
    trees = git("rev-parse", "HEAD:poolcheckers", "HEAD:native", "HEAD:setup.py").split()
    assert tree == f"poolcheckers:{trees[0]} native:{trees[1]} setup.py:{trees[2]}"
    commit = ladder._commit()
    assert commit == git("rev-parse", "--short", "HEAD")
    # a rebase (here an amended message) and a change elsewhere: the same engine
    git("commit", "-q", "--amend", "-m", "engine, rebased")
    (repo / "docs/ENGINE.md").write_text("2\n", encoding="utf-8")
    git("commit", "-q", "-am", "docs")
    assert ladder._commit() != commit and ladder._engine_tree() == tree
    # changes under the engine's directories, committed or not (untracked files too)
    (repo / "native/new.c").write_text("1\n", encoding="utf-8")
    assert ladder._engine_tree() == tree + "+" and ladder._commit().endswith("+")
    git("add", ".")
    git("commit", "-q", "-m", "native")
    assert ladder._engine_tree() not in (tree, tree + "+")
    # the compiler's flags are part of the engine too
    tree = ladder._engine_tree()
    (repo / "setup.py").write_text("2\n", encoding="utf-8")
    assert ladder._engine_tree() == tree + "+"
    git("commit", "-q", "-am", "flags")
    assert ladder._engine_tree() not in (tree, tree + "+")
    monkeypatch.setattr(ladder, "ROOT", tmp_path / "nowhere")
    assert ladder._engine_tree() == "unknown" == ladder._commit()


def test_a_table_for_the_full_engine_is_refused_before_any_game(
    ladder: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table = tmp_path / "table.json"
    table.write_text(json.dumps({"10": {"depth": 3}}), encoding="utf-8")
    with pytest.raises(SystemExit) as exit_info:
        ladder.main(["--table", str(table), "--results", str(tmp_path / "out")])
    assert exit_info.value.code == 2
    assert "--table: level 10 is not one of 1..9" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_the_levels_table_names_each_levels_evaluation(
    ladder: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = _run(ladder, "run", [(2, 1)], "aaaaaaa")
    run["levels"]["1"]["network"] = False
    run["levels"]["2"]["network"] = True
    del run["levels"]["3"]["network"]  # a run from before levels named their evaluation
    path = _write(tmp_path / "run.json", run)
    assert ladder.main(["--replot", path]) == 0
    rows = {
        line.split("|")[1].strip(): line.split("|")[6].strip()
        for line in (tmp_path / "run.md").read_text().splitlines()
        if line.startswith("| ") and line.split("|")[1].strip().isdigit()
    }
    assert rows["1"] == "pattern" and rows["3"] == "pattern"
    assert rows["2"] == "network"
    assert rows["10"] == "the engine's"
