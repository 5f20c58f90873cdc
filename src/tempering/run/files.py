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
from tempering.run.checkpoint import Ledger
from tempering.run.driver import ChainMethod, Checkpointing, run_chains, start_attrs
from tempering.run.loading import load_run
from tempering.run.output import check_output_path, run_attr
from tempering.run.progress import done_line, pilot_phase
from tempering.run.sink import FileSink
from tempering.run.spec import REBUILD_ATTRS, RunSpec

#: With no ``checkpoint_every``, a checkpoint is written once this many seconds have passed since
#: the last one (so runs shorter than this write none before the end).
CHECKPOINT_SECONDS = 60.0


def checkpointing_to(every: int | None) -> Checkpointing | None:
    """The checkpoint policy of ``--checkpoint-every``: every ``every`` draws; ``None`` — every
    :data:`CHECKPOINT_SECONDS`; 0 — none (the finished file still holds the final state)."""
    if every is not None and every < 0:
        raise UserInputError(f"checkpoint_every must be at least 0 (got {every})")
    if every == 0:
        return None
    return Checkpointing(every=every, seconds=None if every else CHECKPOINT_SECONDS)


def file_sink(out: Path, spec: RunSpec, model: Any, algorithm: Any, *,
              checkpoint_every: int | None, fresh: bool) -> FileSink:
    """The sink that streams the run of ``spec`` (``model`` and ``algorithm`` built from it)
    into the run file ``out``: made anew when ``fresh``, else continued."""
    resolved = spec.resolved(model, algorithm).to_attrs()
    return FileSink(out, model, algorithm, chains=spec.chains, draws=spec.draws,
                    attrs=start_attrs(model, algorithm, resolved),
                    checkpoint_attrs={**resolved, "checkpoint_every": checkpoint_every},
                    fresh=fresh)


def run_spec(spec: RunSpec, *, out: str | Path, progress: bool = False,
             on_done: Callable[[str], Any] | None = None, checkpoint_every: int | None = 0,
             resume: Ledger | None = None, workers: int | None = None,
             scheduler: str | None = None) -> Path:
    """Sample ``spec`` into its run file ``out``; returns its path.

    Nothing is written when any input is bad. The draws are appended to ``out`` as they are made
    (:mod:`tempering.run.runfile`), so memory holds one chunk of them at a time. ``on_done``,
    when given, is called with the end-of-run line (total wall time, compilation apart:
    :func:`~tempering.run.progress.done_line`) once the file is finished. ``checkpoint_every``
    (draws; ``None``: every :data:`CHECKPOINT_SECONDS`; 0: only at the end) commits checkpoints
    into ``out`` as the run goes (:mod:`tempering.run.checkpoint`); ``resume`` continues a ledger
    read from ``out`` itself. With ``chain_method="dask"`` the chains run as tasks on a Dask
    cluster (:mod:`tempering.run.distributed`): a new loopback cluster of ``workers`` processes,
    or the one at ``scheduler``.
    """
    out = Path(out)
    check_output_path(out)
    checkpointing_to(checkpoint_every)
    with pilot_phase(progress) as pilot_done:
        model, algorithm = spec.build(every=checkpoint_every or None)
        pilot_done(algorithm)
    result = run_built(spec, model, algorithm, out=out, progress=progress,
                       checkpoint_every=checkpoint_every, resume=resume, workers=workers,
                       scheduler=scheduler)
    if on_done is not None:
        on_done(done_line(result))
    return out


def run_built(spec: RunSpec, model: Any, algorithm: Any, *, out: Path, progress: bool,
              checkpoint_every: int | None, resume: Ledger | None, continued: bool = False,
              workers: int | None = None, scheduler: str | None = None) -> dict[str, Any]:
    """:func:`run_spec` with the model and the algorithm built; the finished run's attributes.
    ``continued``: the run file is there (resume or extend), not made anew."""
    continued = continued or resume is not None
    if spec.chain_method == ChainMethod.DASK:
        from tempering.run.distributed import run_on_dask

        result = run_on_dask(spec.resolved(model, algorithm), model, algorithm, out=out,
                             checkpoint_every=checkpoint_every, workers=workers,
                             scheduler=scheduler, progress=progress, resume=resume,
                             continued=continued)
    else:
        sink = file_sink(out, spec, model, algorithm, checkpoint_every=checkpoint_every,
                         fresh=not continued)
        result = run_chains(model, algorithm, key=spec.key, draws=spec.draws, chains=spec.chains,
                            warmup=spec.warmup, thin=spec.thin, init=spec.init,
                            chain_method=spec.chain_method, progress=progress,
                            checkpointing=checkpointing_to(checkpoint_every), sink=sink,
                            resume=resume)
    assert result.attrs is not None
    return result.attrs


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
