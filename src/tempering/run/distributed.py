"""Chains as tasks on Dask distributed (``--chain-method dask``).

The chains are split into groups, one task per group (as many groups as workers, never more than
chains). A task gets only the run's resolved :class:`~tempering.run.spec.RunSpec` — names,
options, seed, layout — and rebuilds the model and the sampler on its worker
(:meth:`RunSpec.build`), then runs its chains one after another
(:func:`~tempering.run.driver.run_chains` with ``chain_ids``). Chain c uses its own key
``fold_in(key, c)`` wherever it runs, so the draws are those of ``sequential`` (and ``vmap``) for
the same seed.

Each task writes a checkpoint of its chains to a file beside the run file (``.NAME.dask/``, every
``checkpoint_every`` draws or once a minute). When a worker dies, Dask runs its task again on
another worker, and the task continues its chains from that checkpoint: the final draws are the
same. So the directory of ``--out`` must be readable and writable by every worker (a shared file
system when the cluster spans machines), and so must any data file the model reads.

Workers report progress through a Dask ``Queue``; the client's bar totals all of them. Only
names, options and arrays travel between client and workers (Dask serialises them on the wire);
nothing is unpickled from a file.
"""

from __future__ import annotations

import os
import shutil
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from tempering.errors import UserInputError
from tempering.run.checkpoint import Ledger, commit, take_rows
from tempering.run.driver import (
    Checkpointing,
    RunResult,
    new_ledger,
    run_attrs,
    run_chains,
    traced_start,
)
from tempering.run.progress import done_line, run_progress
from tempering.run.spec import RunSpec


def _import_distributed():
    try:
        import distributed
    except ImportError:
        raise UserInputError("chain_method dask needs Dask distributed: pip install "
                             "'tempering[dask]'") from None
    return distributed


def chain_groups(chains: int, workers: int) -> list[list[int]]:
    """Chains 0 … chains−1 in ``min(workers, chains)`` contiguous groups of near-equal size."""
    groups = max(1, min(int(workers), chains))
    return [list(map(int, part)) for part in np.array_split(np.arange(chains), groups)]


def _group_task(spec: RunSpec, checkpoint_every: int | None, chain_ids: list[int],
                checkpoint: str, queue_name: str | None, resume: Ledger | None) -> Ledger:
    """On a worker: rebuild the model and sampler, continue from the group's run file if a
    previous attempt committed to it, run the group's chains into it and return the ledger
    (states only; the draws are in the group's file)."""
    from tempering.run.checkpoint import read_ledger
    from tempering.run.files import file_sink
    from tempering.run.runfile import has_commit

    model, algorithm = spec.build()
    path = Path(checkpoint)
    if has_commit(path):
        template = new_ledger(algorithm, model, key=spec.key, chains=spec.chains, init=spec.init)
        resume = read_ledger(path, template.state, template.params)
    tell = None
    if queue_name is not None:
        queue = _import_distributed().Queue(queue_name)
        tell = lambda phase, count: queue.put((phase, count))
    sink = file_sink(path, spec, model, algorithm, checkpoint_every=checkpoint_every,
                     fresh=not has_commit(path))
    writing = Checkpointing(every=checkpoint_every or None,
                            seconds=None if checkpoint_every else 60.0)
    result = run_chains(model, algorithm, key=spec.key, draws=spec.draws, chains=spec.chains,
                        warmup=spec.warmup, thin=spec.thin, init=spec.init,
                        chain_method="sequential", progress=False, checkpointing=writing,
                        sink=sink, resume=resume, chain_ids=chain_ids, on_progress=tell)
    assert result.ledger is not None
    return result.ledger


def _merge(out: Path, scratch: Path, ledgers: list[Ledger], groups: list[list[int]],
           into: Ledger) -> Ledger:
    """Copy each group's new draws from its file into ``out`` (a chunk of draws at a time) and
    gather the groups' states into ``into`` (the ledger the run started from; each group's
    ledger is filled only in its own rows)."""
    from tempering.run.runfile import RunFile, copy_draws, opened

    target = RunFile(out)
    try:
        for i, (ledger, rows) in enumerate(zip(ledgers, groups, strict=True)):
            start = int(into.done[rows].min())
            with opened(scratch / f"group-{i}.nc") as source:
                copy_draws(source, target.file, rows, start, int(ledger.done[rows].max()))
            into.done[rows] = ledger.done[rows]
            into.warmed[rows] = ledger.warmed[rows]
            into.put(rows, take_rows(ledger.state, rows), take_rows(ledger.params, rows))
            assert into.warm_cost is not None and ledger.warm_cost is not None
            into.warm_cost[rows] = ledger.warm_cost[rows]
            for name, seconds in ledger.seconds.items():  # groups run side by side: the longest
                into.seconds[name] = max(into.seconds.get(name, 0.0), seconds)
        commit(target, into)
    finally:
        target.close()
    return into


@contextmanager
def dask_client(workers: int | None = None, scheduler: str | None = None) -> Iterator[Any]:
    """A Dask client for the block: of the cluster at ``scheduler``, or of a new loopback
    ``LocalCluster`` with ``workers`` single-threaded processes (default: the core count),
    closed at the end."""
    client, cluster = _client(workers, scheduler)
    try:
        yield client
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def _client(workers: int | None, scheduler: str | None):
    """A client of the cluster at ``scheduler``, or of a new loopback ``LocalCluster`` with
    ``workers`` single-threaded worker processes; and the cluster to close (or ``None``)."""
    if workers is not None and workers < 1:
        raise UserInputError(f"workers must be at least 1 (got {workers})")
    distributed = _import_distributed()
    if scheduler:
        try:
            return distributed.Client(scheduler, timeout=10), None
        except (OSError, TimeoutError, ValueError) as err:
            raise UserInputError(f"--scheduler {scheduler}: cannot connect ({err})") from None
    cluster = distributed.LocalCluster(n_workers=workers or os.cpu_count() or 1,
                                       threads_per_worker=1, processes=True, host="127.0.0.1",
                                       dashboard_address=None)
    return distributed.Client(cluster), cluster


def run_on_dask(spec: RunSpec, model: Any, algorithm: Any, *, out: Path,
                checkpoint_every: int | None, workers: int | None, scheduler: str | None,
                progress: bool, resume: Ledger | None = None, continued: bool = False
                ) -> RunResult:
    """Run the chains of ``spec`` (resolved: what the run file records) as group tasks on Dask,
    and finish the run on the client with ``model`` and ``algorithm`` (built from it).

    A new run's client makes ``out`` first, with its groups recorded and nothing committed, so
    that ``tempering resume`` can go on with a run whose client died (``continued``): the tasks
    then continue from their groups' files. ``resume`` is the ledger the run starts from (a
    finished run being extended, ``out`` grown for the new draws, or a resumed one)."""
    from tempering.run.files import file_sink
    from tempering.run.runfile import checkpoint_attrs

    scratch = out.parent / f".{out.name}.dask"
    spec = spec.replace(chain_method="dask")
    sink = file_sink(out, spec, model, algorithm, checkpoint_every=checkpoint_every,
                     fresh=not continued)
    client, cluster = _client(workers, scheduler)
    started = time.perf_counter()
    try:
        if continued:
            groups = checkpoint_attrs(out)["dask_groups"]
            start = resume if resume is not None else new_ledger(
                algorithm, model, key=spec.key, chains=spec.chains, init=spec.init)
        else:
            size = len(client.scheduler_info().get("workers", {})) or (workers or 1)
            groups = chain_groups(spec.chains, size)
            sink.checkpoint_attrs["dask_groups"] = groups
            start, record = traced_start(model, algorithm, key=spec.key, chains=spec.chains,
                                         init=spec.init, thin=spec.thin)
            sink.make(out, spec.draws, start, record)
            shutil.rmtree(scratch, ignore_errors=True)
        scratch.mkdir(exist_ok=True)
        queue_name = f"tempering-{uuid.uuid4().hex}" if progress else None
        futures = [client.submit(_group_task, spec, checkpoint_every, group,
                                 str(scratch / f"group-{i}.nc"), queue_name, resume,
                                 pure=False, retries=3)
                   for i, group in enumerate(groups)]
        ledgers = _gather(client, futures, algorithm, spec, queue_name, progress)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    ledger = _merge(out, scratch, ledgers, groups, start)
    ledger.seconds["total"] = ledger.seconds.get("total", 0.0) + time.perf_counter() - started
    attrs = run_attrs(model, algorithm, ledger, spec.to_attrs(), None, sink.cost_total(ledger))
    sink.finish(ledger, attrs)
    shutil.rmtree(scratch, ignore_errors=True)
    if progress:
        print(done_line(attrs))
    return RunResult(None, None, ledger.params, ledger,  # type: ignore[arg-type]
                     spec.to_attrs(), attrs)


def _gather(client: Any, futures: list, algorithm: Any, spec: RunSpec,
            queue_name: str | None, progress: bool) -> list[Ledger]:
    """Wait for the group tasks, moving the client's bar on with the workers' reports."""
    distributed = _import_distributed()
    with run_progress(progress, algorithm.headline, spec.warmup * spec.chains,
                      spec.draws * spec.chains) as shown:
        queue = None if queue_name is None else distributed.Queue(queue_name, client=client)
        t0 = time.perf_counter()
        shown.warming()
        sampling = False
        while not all(f.done() for f in futures):
            time.sleep(0.2)
            for phase, count in ([] if queue is None else queue.get(batch=True)):
                if phase == "warmup":
                    shown.warmed(count, time.perf_counter() - t0)
                    continue
                if not sampling:
                    shown.sampling()
                    sampling, t0 = True, time.perf_counter()
                shown.sampled(count, shown.done["sampling"] + count, time.perf_counter() - t0)
        return client.gather(futures)

