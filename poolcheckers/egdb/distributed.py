"""Building the tables on a Dask distributed cluster (optional extra ``distributed``).

The build splits by material: every stored material is one task that reads
the tables it depends on from the shared directory and writes its own file.
Tasks of one dependency level (:func:`poolcheckers.egdb.dependency_levels`:
same number of pieces and of men) are independent and run at once; a level
starts when the one before it is written.  The generator is deterministic, so
the files are byte-identical to a single-machine build.

    pip install 'poolcheckers[distributed]'
    dask scheduler &                      # on one machine
    dask worker tcp://HOST:8786 &         # on every machine, sharing the directory
    poolcheckers egdb build --pieces 7 --dir /shared/egdb --scheduler tcp://HOST:8786
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any

from poolcheckers.egdb import Material, TablebaseError, build, dependency_levels
from poolcheckers.rules import RuleSet


def build_material(
    material: Material, directory: str, rules: dict[str, Any], threads: int = 1
) -> str:
    """One task: solve ``material`` from the files in ``directory`` and write its file."""
    build(sum(material), directory, RuleSet.from_dict(rules), threads=threads, only=[material])
    return "".join(str(n) for n in material)


def build_distributed(
    pieces: int,
    directory: str | Path,
    rules: RuleSet,
    scheduler: Any,
    *,
    threads: int = 1,
    progress: bool = True,
) -> None:
    """Build every material of up to ``pieces`` pieces on the cluster at ``scheduler``.

    ``scheduler`` is an address (``tcp://host:8786``) or a ``distributed.Client``.
    ``directory`` must be the same path on every worker (a shared file system).
    """
    try:
        dd = importlib.import_module("dask.distributed")
    except ImportError:
        raise TablebaseError(
            "--scheduler needs Dask distributed: pip install 'poolcheckers[distributed]'"
        ) from None
    Path(directory).mkdir(parents=True, exist_ok=True)
    client = scheduler if isinstance(scheduler, dd.Client) else dd.Client(scheduler)
    levels = dependency_levels(pieces)
    total = sum(len(level) for level in levels)
    from tqdm import tqdm

    try:
        with tqdm(
            total=total,
            desc=f"egdb build {pieces}",
            unit="table",
            file=sys.stderr,
            disable=None if progress else True,
        ) as bar:
            for level in levels:
                futures = [
                    client.submit(
                        build_material, m, str(directory), rules.to_dict(), threads, pure=False
                    )
                    for m in level
                ]
                for future in dd.as_completed(futures):
                    name = future.result()  # re-raises a task's error here
                    bar.set_postfix_str(name, refresh=False)
                    bar.update(1)
    finally:
        if client is not scheduler:
            client.close()
