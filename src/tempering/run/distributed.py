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
from tempering.run.checkpoint import Ledger, take_rows, write_run_file
from tempering.run.driver import Checkpointing, RunResult, finish_run, run_chains
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
    """On a worker: rebuild the model and sampler, continue from the group's checkpoint if a
    previous attempt left one, run the group's chains and return the ledger."""
    from tempering.run.checkpoint import read_ledger
    from tempering.run.driver import new_ledger

    model, algorithm = spec.build()
    path = Path(checkpoint)
    if path.is_file():
        template = new_ledger(algorithm, model, key=spec.key, chains=spec.chains, init=spec.init)
        resume = read_ledger(path, template.state, template.params)
    tell = None
    if queue_name is not None:
        queue = _import_distributed().Queue(queue_name)
        tell = lambda phase, count: queue.put((phase, count))
    writing = Checkpointing(lambda ledger, attrs: write_run_file(path, ledger, attrs),
                            every=checkpoint_every or None,
                            seconds=None if checkpoint_every else 60.0)
    result = run_chains(model, algorithm, key=spec.key, draws=spec.draws, chains=spec.chains,
                        warmup=spec.warmup, thin=spec.thin, init=spec.init,
                        chain_method="sequential", progress=False, checkpointing=writing,
                        resume=resume, chain_ids=chain_ids, on_progress=tell)
    assert result.ledger is not None
    return result.ledger


def _merge(ledgers: list[Ledger], groups: list[list[int]], draws: int) -> Ledger:
    """One ledger from the groups' (each filled only in its own rows)."""
    first = ledgers[0]
    for ledger, rows in zip(ledgers[1:], groups[1:], strict=True):
        first.done[rows] = ledger.done[rows]
        first.warmed[rows] = ledger.warmed[rows]
        first.put(rows, take_rows(ledger.state, rows), take_rows(ledger.params, rows))
        assert first.warm_cost is not None and ledger.warm_cost is not None
        first.warm_cost[rows] = ledger.warm_cost[rows]
        first.put_records(rows, 0, {k: v[rows] for k, v in ledger.record.items()}, draws)
        for name, seconds in ledger.seconds.items():  # groups run side by side: the longest
            first.seconds[name] = max(first.seconds.get(name, 0.0), seconds)
    return first


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
                progress: bool, resume: Ledger | None = None) -> RunResult:
    """Run the chains of ``spec`` (resolved: what the run file records) as group tasks on Dask,
    and finish the run on the client with ``model`` and ``algorithm`` (built from it)."""
    client, cluster = _client(workers, scheduler)
    scratch = out.parent / f".{out.name}.dask"
    scratch.mkdir(exist_ok=True)
    started = time.perf_counter()
    try:
        size = len(client.scheduler_info().get("workers", {})) or (workers or 1)
        groups = chain_groups(spec.chains, size)
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
    ledger = _merge(ledgers, groups, spec.draws)
    ledger.seconds["total"] = time.perf_counter() - started
    resume_attrs = spec.replace(chain_method="dask").to_attrs()
    idata = finish_run(model, algorithm, ledger, resume_attrs)
    shutil.rmtree(scratch, ignore_errors=True)
    if progress:
        print(done_line(idata["posterior"].attrs))
    return RunResult(idata, None, ledger.params, ledger, resume_attrs)


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
                shown.sampled(count, shown.done["sampling"] + count, time.perf_counter() - t0,
                              [])
        return client.gather(futures)

