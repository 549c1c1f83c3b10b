"""The build split by material on a Dask cluster of 2 workers gives the very same files."""

from __future__ import annotations

from pathlib import Path

import pytest

from poolcheckers.egdb import build, dependency_levels
from poolcheckers.rules import RuleSet

distributed = pytest.importorskip("dask.distributed", reason="the 'distributed' extra")


def test_two_workers_write_byte_identical_files(tmp_path: Path) -> None:
    from poolcheckers.egdb.distributed import build_distributed

    rules = RuleSet.from_options(["king_only_move_limit=10"])
    single, cluster_dir = tmp_path / "single", tmp_path / "cluster"
    build(3, single, rules)
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        build_distributed(3, cluster_dir, rules, client, progress=False)
        workers = {w for w in client.scheduler_info()["workers"]}
    assert len(workers) == 2
    names = sorted(p.name for p in single.glob("*.pcdb"))
    assert names == sorted(p.name for p in cluster_dir.glob("*.pcdb"))
    assert len(names) == sum(len(level) for level in dependency_levels(3))
    for name in names:
        assert (single / name).read_bytes() == (cluster_dir / name).read_bytes(), name
