"""benchmarks/ladder.py --merge: runs joined into one ladder, from synthetic run files.

No games are played: the run files are written here as ladder.py writes them.
"""

from __future__ import annotations

import importlib.util
import json
import math
import sys
from dataclasses import asdict
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from poolcheckers.engine import LEVELS

LADDER = Path(__file__).resolve().parent.parent / "benchmarks" / "ladder.py"
#: pair points with a spread (no perfect score), so every gap has a finite interval
POINTS = [2.0, 1.5, 1.0, 2.0, 0.5, 2.0, 1.5, 1.0]


@pytest.fixture(scope="module")
def ladder() -> ModuleType:
    spec = importlib.util.spec_from_file_location("ladder", LADDER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["ladder"] = module
    spec.loader.exec_module(module)
    return module


def _run(
    ladder: ModuleType, name: str, steps: list[tuple[int, int]], commit: str
) -> dict[str, Any]:
    """A finished run of ``steps`` as ladder.py writes it (without ``source``/``commit``
    in the steps, as the runs before they were recorded)."""
    records = []
    for upper, lower in steps:
        step = ladder.Step(upper, lower, 2 * len(POINTS), f"depth {upper}", list(POINTS))
        step.wins, step.draws, step.losses = 8, 4, 4
        step.reasons = {"R16": 12, "R18": 4}
        record = asdict(step)
        del record["source"], record["commit"]
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
        result = ladder.ladder_elo([ladder.Step(**s) for s in run["steps"]])
        return result

    total, sigma, bounded = elo(merged)[4]
    three, gap = elo(low)[3], elo(high)[4]
    assert total == pytest.approx(three[0] + gap[0]) and not bounded
    assert sigma == pytest.approx(math.hypot(three[1], gap[1]))
    table = (out / "merged.md").read_text()
    assert f"| {ladder._fmt(total)} ± {ladder.Z_95 * sigma:.0f} |" in table
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
