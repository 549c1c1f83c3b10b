"""Building the tables on a Dask distributed cluster (optional extra ``distributed``).

The build splits by material: every stored material is one task that reads
the tables it depends on from the shared directory and writes its own file.
Tasks of one dependency level (:func:`poolcheckers.egdb.dependency_levels`:
same number of pieces and of men) are independent and run at once; a level
starts when the one before it is written.

A material with men too large for one task (more states than
``slice_states``, or every one with ``slice_all``) is split further into
slices (:func:`poolcheckers.egdb.slice_plan`): the men configurations of one
progress value, cut into parts of at most ``slice_states`` states, each a task
that reads the slice files of the progress value before it; the slices of one
progress value run at once, and a last task merges the slice files into the
table file.  Kings-only materials have one configuration and stay whole.

The generator is deterministic, so the files are byte-identical to a
single-machine build.

    pip install 'poolcheckers[distributed]'
    dask scheduler &                      # on one machine
    dask worker tcp://HOST:8786 &         # on every machine, sharing the directory
    poolcheckers egdb build --pieces 7 --dir /shared/egdb --scheduler tcp://HOST:8786 \\
        --slice-states 400000000
"""

from __future__ import annotations

import importlib
import resource
import sys
import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from poolcheckers.egdb import (
    Material,
    Slice,
    TablebaseError,
    build,
    build_slice,
    canonical,
    dependency_levels,
    file_stem,
    index_size,
    merge_slices,
    slice_plan,
    successors,
)
from poolcheckers.rules import RuleSet


@dataclass(frozen=True)
class Task:
    """One unit of work for a worker, and the memory it needs."""

    kind: Literal["material", "slice", "merge"]
    material: Material
    piece: Slice | None
    #: bytes a worker holds for it (codes, counters, the tables it reads)
    memory: int

    @property
    def name(self) -> str:
        if self.piece is not None:
            return self.piece.name
        return file_stem(self.material) + (".merge" if self.kind == "merge" else "")


def _material_memory(material: Material) -> int:
    """A whole material in one task: its codes, the move counters of its largest progress
    value (the whole table when kings only), and its successor tables."""
    size = index_size(material)
    largest = size
    if material[0] + material[2]:
        largest = max(s.states for group in slice_plan(material) for s in group)
    return size + largest + sum(index_size(m) for m in successors(material))


def plan(
    levels: Iterable[Iterable[Material]],
    *,
    slice_states: int | None = None,
    slice_all: bool = False,
) -> list[list[list[list[Task]]]]:
    """The tasks of a build: per dependency level, per material, its steps in order, each a
    list of tasks that can run at once (a whole material is one step of one task)."""
    out: list[list[list[list[Task]]]] = []
    for level in levels:
        chains: list[list[list[Task]]] = []
        for m in level:
            m = canonical(m)
            has_men = m[0] + m[2] > 0
            big = slice_states is not None and index_size(m) > slice_states
            if has_men and (slice_all or big):
                steps = [
                    [Task("slice", m, s, s.memory()) for s in group]
                    for group in slice_plan(m, slice_states)
                ]
                # the merge holds the whole table and its compressed blocks
                steps.append([Task("merge", m, None, index_size(m) * 5 // 4)])
                chains.append(steps)
            else:
                chains.append([[Task("material", m, None, _material_memory(m))]])
        out.append(chains)
    return out


@dataclass(frozen=True)
class TaskResult:
    """A task done: where, its wall time and the CPU time of its process meanwhile (the
    worker runs one task at a time: ``dask worker --nthreads 1``)."""

    name: str
    worker: str
    seconds: float
    cpu_seconds: float


def _cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime


def run_task(
    task: Task, directory: str, rules: dict[str, Any], threads: int, *after: Any
) -> TaskResult:
    """Run one task on a worker; ``after``: the results of the tasks it waits for."""
    start, cpu = time.perf_counter(), _cpu()
    ruleset = RuleSet.from_dict(rules)
    if task.kind == "slice":
        assert task.piece is not None
        build_slice(task.piece, directory, ruleset, threads=threads)
    elif task.kind == "merge":
        merge_slices(task.material, directory, ruleset, threads=threads)
    else:
        build(sum(task.material), directory, ruleset, threads=threads, only=[task.material])
    try:
        worker = str(importlib.import_module("dask.distributed").get_worker().address)
    except (ImportError, ValueError):  # not on a Dask worker
        worker = ""
    return TaskResult(task.name, worker, time.perf_counter() - start, _cpu() - cpu)


def build_material(
    material: Material, directory: str, rules: dict[str, Any], threads: int = 1
) -> str:
    """One task: solve ``material`` from the files in ``directory`` and write its file."""
    return run_task(Task("material", canonical(material), None, 0), directory, rules, threads).name


def build_distributed(
    pieces: int,
    directory: str | Path,
    rules: RuleSet,
    scheduler: Any,
    *,
    threads: int = 1,
    progress: bool = True,
    slice_states: int | None = None,
    slice_all: bool = False,
    only: Iterable[Material] | None = None,
) -> list[TaskResult]:
    """Build every material of up to ``pieces`` pieces (or those of ``only``, in dependency
    order, the others read from ``directory``) on the cluster at ``scheduler``; returns the
    tasks run.

    ``scheduler`` is an address (``tcp://host:8786``) or a ``distributed.Client``.
    ``directory`` must be the same path on every worker (a shared file system).  A task
    that needs more memory than the workers' limit is refused before anything runs.
    """
    try:
        dd = importlib.import_module("dask.distributed")
    except ImportError:
        raise TablebaseError(
            "--scheduler needs Dask distributed: pip install 'poolcheckers[distributed]'"
        ) from None
    levels = dependency_levels(pieces)
    if only is not None:
        wanted = {canonical(m) for m in only}
        levels = [kept for level in levels if (kept := [m for m in level if m in wanted])]
    tasks = plan(levels, slice_states=slice_states, slice_all=slice_all)
    Path(directory).mkdir(parents=True, exist_ok=True)
    client = scheduler if isinstance(scheduler, dd.Client) else dd.Client(scheduler)
    total = sum(len(step) for level in tasks for chain in level for step in chain)
    done: list[TaskResult] = []
    from tqdm import tqdm

    try:
        limits = [
            int(w.get("memory_limit") or 0) for w in client.scheduler_info()["workers"].values()
        ]
        limit = min((x for x in limits if x > 0), default=0)
        biggest = max(
            (t for level in tasks for chain in level for step in chain for t in step),
            key=lambda t: t.memory,
            default=None,
        )
        if limit and biggest is not None and biggest.memory > limit:
            raise TablebaseError(
                f"task {biggest.name} needs {biggest.memory / 2**30:.1f} GiB, the workers have "
                f"{limit / 2**30:.1f} GiB: pass a smaller --slice-states"
            )
        rules_dict = rules.to_dict()
        run = uuid.uuid4().hex[:8]  # keys of this build, readable on the dashboard
        with tqdm(
            total=total,
            desc=f"egdb build {pieces}",
            unit="task",
            file=sys.stderr,
            disable=None if progress else True,
        ) as bar:
            for level in tasks:
                futures = []
                for chain in level:
                    before: list[Any] = []
                    for step in chain:
                        # Dask starts a task once the futures among its arguments are done
                        submitted = [
                            client.submit(
                                run_task,
                                t,
                                str(directory),
                                rules_dict,
                                threads,
                                *before,
                                pure=False,
                                key=f"egdb-{t.name}-{run}",
                            )
                            for t in step
                        ]
                        futures += submitted
                        before = submitted
                for future in dd.as_completed(futures):
                    result = future.result()  # re-raises a task's error here
                    done.append(result)
                    bar.set_postfix_str(result.name, refresh=False)
                    bar.update(1)
    finally:
        if client is not scheduler:
            client.close()
    return done
