"""Run files end to end: :func:`run_spec` samples a :class:`~tempering.run.spec.RunSpec` and
writes its run file (what ``tempering sample`` does), on any chain layout, Dask included;
:func:`rerun` rebuilds a run from its file (``tempering rerun``).

A run file records its resolved spec (:meth:`RunSpec.to_attrs`): the model's name and validated
options, the sampler's name and resolved options (``sampler_options``; derived facts such as the
β ladder are kept apart in ``sampler_facts``), the seed or key, chains, draws, warmup, thinning,
chain layout and any explicit initial positions. :func:`rerun` reads it back
(:meth:`RunSpec.from_attrs`); with the same package versions the posterior is bit for bit the
same.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tempering.errors import UserInputError
from tempering.run.checkpoint import Ledger, write_run_file
from tempering.run.driver import ChainMethod, Checkpointing, RunResult, run_chains
from tempering.run.output import check_output_path, load_run, run_attr
from tempering.run.progress import done_line, pilot_phase
from tempering.run.spec import REBUILD_ATTRS, RunSpec

#: With no ``checkpoint_every``, a checkpoint is written once this many seconds have passed since
#: the last one (so runs shorter than this write none before the end).
CHECKPOINT_SECONDS = 60.0


def checkpointing_to(out: Path, every: int | None) -> Checkpointing | None:
    """The checkpoint policy of ``--checkpoint-every``: every ``every`` draws; ``None`` — every
    :data:`CHECKPOINT_SECONDS`; 0 — none (the finished file still holds the final state)."""
    if every is not None and every < 0:
        raise UserInputError(f"checkpoint_every must be at least 0 (got {every})")
    if every == 0:
        return None
    write = lambda ledger, attrs: write_run_file(out, ledger, {**attrs,
                                                               "checkpoint_every": every})
    return Checkpointing(write, every=every, seconds=None if every else CHECKPOINT_SECONDS)


def save_finished(result: RunResult, out: Path, checkpoint_every: int | None) -> Path:
    """Write a finished run: its InferenceData beside its ledger (so it can be extended)."""
    assert result.ledger is not None and result.resume_attrs is not None
    attrs = {**result.resume_attrs, "checkpoint_every": checkpoint_every}
    return write_run_file(out, result.ledger, attrs, idata=result.idata)


def run_spec(spec: RunSpec, *, out: str | Path, progress: bool = False,
             on_done: Callable[[str], Any] | None = None, checkpoint_every: int | None = 0,
             resume: Ledger | None = None, workers: int | None = None,
             scheduler: str | None = None) -> Path:
    """Sample ``spec`` and write its run file atomically; returns its path.

    Nothing is written when any input is bad. ``on_done``, when given, is called with the
    end-of-run line (total wall time, compilation apart: :func:`~tempering.run.progress.done_line`)
    once the file is written. ``checkpoint_every`` (draws; ``None``: every
    :data:`CHECKPOINT_SECONDS`; 0: none) writes checkpoints into ``out`` while the run goes on
    (:mod:`tempering.run.checkpoint`); ``resume`` continues a ledger read from one. With
    ``chain_method="dask"`` the chains run as tasks on a Dask cluster
    (:mod:`tempering.run.distributed`): a new loopback cluster of ``workers`` processes, or the
    one at ``scheduler``.
    """
    out = Path(out)
    check_output_path(out)
    checkpointing = checkpointing_to(out, checkpoint_every)
    with pilot_phase(progress) as pilot_done:
        model, algorithm = spec.build()
        pilot_done(algorithm)
    if spec.chain_method == ChainMethod.DASK:
        from tempering.run.distributed import run_on_dask

        result = run_on_dask(spec.resolved(model, algorithm), model, algorithm, out=out,
                             checkpoint_every=checkpoint_every, workers=workers,
                             scheduler=scheduler, progress=progress, resume=resume)
    else:
        result = run_chains(model, algorithm, key=spec.key, draws=spec.draws, chains=spec.chains,
                            warmup=spec.warmup, thin=spec.thin, init=spec.init,
                            chain_method=spec.chain_method, progress=progress,
                            checkpointing=checkpointing, resume=resume)
    path = save_finished(result, out, checkpoint_every)
    if on_done is not None:
        on_done(done_line(result.idata["posterior"].attrs))
    return path


def run_and_save(model_name: str, sampler_name: str, config: dict, *, chains: int, draws: int,
                 warmup: int, seed: Any, chain_method: str, thin: int, out: Path,
                 progress: bool, init: Any = None, **run_options: Any) -> Path:
    """:func:`run_spec` of the spec these arguments make (``config`` holds the ``model`` and
    ``sampler`` tables of options); ``run_options`` are :func:`run_spec`'s (``on_done``,
    ``checkpoint_every``, ``resume``, ``workers``, ``scheduler``)."""
    spec = RunSpec(model=model_name, sampler=sampler_name, model_options=config["model"],
                   sampler_options=config["sampler"], seed=seed, chains=chains, draws=draws,
                   warmup=warmup, thin=thin, chain_method=chain_method, init=init)
    return run_spec(spec, out=out, progress=progress, **run_options)


def recorded_spec(path: str | Path) -> RunSpec:
    """The spec of the run in ``path``.

    Raises
    ------
    UserInputError
        The file is not a run file, or lacks what a rebuild needs (a run of an algorithm built by
        hand, not from the sampler registry, records no sampler options).
    """
    idata = load_run(path)
    return RunSpec.from_attrs({name: run_attr(idata, name) for name in (*REBUILD_ATTRS, "init")},
                              source=str(path))


def rerun(path: str | Path, out: str | Path, progress: bool = False) -> Path:
    """Rebuild the run in ``path`` — same model, sampler, options, seed and layout — and write it
    to ``out``; returns ``out``'s path."""
    return run_spec(recorded_spec(path), out=out, progress=progress)
