"""A material built in slices (one progress value, or part of one, at a time) and merged
gives the very bytes of the one-machine build, in this process and on a Dask cluster of 2
workers; a slice whose inputs are missing says which."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from poolcheckers.egdb import (
    Material,
    TablebaseError,
    build_slice,
    build_sliced,
    index_size,
    slice_plan,
    successors,
)
from poolcheckers.rules import RuleSet

from .conftest import Tables

#: 1M1K v 1M (13 progress values, 2 men; successors of 3 pieces) and 3K v 1M, whose crowning
#: leads to 3K v 1K (its B table under the loss option)
SLICED: tuple[Material, ...] = ((1, 1, 1, 0), (0, 3, 1, 0))
RULES = RuleSet.from_options(["king_only_move_limit=10", "three_kings_limit_result=loss"])


def _copy_tables(source: Path, target: Path) -> Path:
    target.mkdir()
    for path in source.glob("*.pcdb"):
        shutil.copy(path, target / path.name)
    return target


@pytest.fixture(scope="module")
def reference(tables: Tables) -> Path:
    """≤ 3 pieces, 3K v 1K and the sliced materials, each built whole."""
    return tables(3, RULES, ((0, 3, 0, 1), *SLICED))


@pytest.fixture
def base(tables: Tables, tmp_path: Path) -> Path:
    """A fresh directory with ≤ 3 pieces and 3K v 1K, the inputs of the sliced materials."""
    return _copy_tables(tables(3, RULES, ((0, 3, 0, 1),)), tmp_path / "sliced")


def _same(reference: Path, directory: Path, material: Material) -> None:
    name = "egdb_" + "".join(map(str, material)) + ".pcdb"
    assert (directory / name).read_bytes() == (reference / name).read_bytes(), name
    assert not list(directory.glob("*.slice")), "slice files left after the merge"


@pytest.mark.parametrize("max_states", [None, 2000])
def test_slices_merge_into_the_same_file(
    reference: Path, base: Path, max_states: int | None
) -> None:
    for material in SLICED:
        plan = slice_plan(material, max_states)
        slices = build_sliced(material, base, RULES, max_states=max_states, threads=2)
        assert slices == sum(len(group) for group in plan)
        if max_states is None:
            assert all(len(group) == 1 for group in plan)
        else:
            assert slices > len(plan)  # progress values cut in parts
            assert all(s.states <= max_states or s.count == 1 for group in plan for s in group)
        _same(reference, base, material)


def test_slice_plan_and_memory() -> None:
    plan = slice_plan((1, 1, 1, 0))
    assert [group[0].progress for group in plan] == list(range(12, -1, -1))
    assert plan[0][0].input_states == 0
    assert plan[1][0].input_states == plan[0][0].states
    valid = sum(s.states for group in plan for s in group)
    assert valid < index_size((1, 1, 1, 0))  # overlapping men are no configuration
    # crownings (0210, 1101) and captures of one or both pieces of a side
    assert {(0, 2, 1, 0), (1, 1, 0, 1), (1, 0, 1, 0), (0, 1, 0, 1)} <= set(successors((1, 1, 1, 0)))
    assert (1, 1, 1, 0) not in successors((1, 1, 1, 0))
    piece = plan[3][0]
    read = sum(index_size(m) for m in successors((1, 1, 1, 0)))
    assert piece.memory() >= 2 * piece.states + piece.input_states + read
    with pytest.raises(TablebaseError, match="no men"):
        slice_plan((0, 3, 0, 1))


def test_missing_slice_and_missing_table_are_named(base: Path) -> None:
    plan = slice_plan((1, 1, 1, 0))
    with pytest.raises(TablebaseError, match=r"slice missing: .* of progress 1 .*egdb_1110\.p1\."):
        build_slice(plan[-1][0], base, RULES)
    (base / "egdb_0210.pcdb").unlink()
    with pytest.raises(TablebaseError, match=r"egdb_0210\.pcdb\) is missing"):
        build_slice(plan[0][0], base, RULES)


def test_two_workers_build_slices(reference: Path, base: Path) -> None:
    distributed = pytest.importorskip("dask.distributed", reason="the 'distributed' extra")
    from poolcheckers.egdb.distributed import build_distributed, plan

    only = [(0, 3, 0, 1), *SLICED]
    (base / "egdb_0301.pcdb").unlink()  # built on the cluster, whole: kings only
    tasks = plan([only], slice_states=2000, slice_all=True)
    kinds = [[t.kind for step in chain for t in step] for chain in tasks[0]]
    assert kinds[0] == ["material"]
    assert kinds[1][-1] == "merge" and kinds[1].count("slice") > 13
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        ran = build_distributed(
            4, base, RULES, client, progress=False, slice_states=2000, slice_all=True, only=only
        )
        assert len(client.scheduler_info()["workers"]) == 2
    assert len(ran) == sum(len(k) for k in kinds)
    assert {r.name for r in ran} >= {"egdb_0301", "egdb_1110.merge", "egdb_0310.p6.0"}
    assert all(r.worker.startswith("tcp://") and r.cpu_seconds >= 0 for r in ran)
    for material in only:
        _same(reference, base, material)
