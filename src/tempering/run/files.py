"""Run files end to end: sample a registered model with a registered sampler and write the run
file (what ``tempering sample`` does), and rebuild a run from its file (``tempering rerun``).

A run file records everything needed to rebuild its run: the model's name and validated options,
the sampler's name and resolved options (``sampler_options``; derived facts such as the β ladder
are kept apart in ``sampler_facts``), the seed or key, chains, draws, warmup, thinning, chain
layout and any explicit initial positions. :func:`rerun` feeds them back through the registries
and the driver; with the same package versions the posterior is bit for bit the same.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tempering.algorithms import get_sampler
from tempering.errors import UserInputError
from tempering.models import get_model
from tempering.run.checkpoint import Ledger, write_run_file
from tempering.run.driver import (
    ChainMethod,
    Checkpointing,
    RunResult,
    key_from_record,
    resume_attributes,
    run_chains,
)
from tempering.run.output import check_output_path, load_run, run_attr
from tempering.run.progress import done_line, pilot_phase

#: Attributes a run file must have to be rebuilt.
REBUILD_ATTRS = ("model", "model_options", "sampler", "sampler_options", "seed", "chains",
                 "draws", "warmup", "thin", "chain_method")

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


def run_and_save(model_name: str, sampler_name: str, config: dict, *, chains: int, draws: int,
                 warmup: int, seed: Any, chain_method: str, thin: int, out: Path,
                 progress: bool, init: Any = None,
                 on_done: Callable[[str], Any] | None = None,
                 checkpoint_every: int | None = 0, resume: Ledger | None = None,
                 workers: int | None = None, scheduler: str | None = None) -> Path:
    """Validate everything, sample, and write the run file atomically; returns its path.

    ``config`` holds the ``model`` and ``sampler`` tables (options; a ``name`` key is ignored).
    Nothing is written when any input is bad. ``on_done``, when given, is called with the
    end-of-run line (total wall time, compilation apart: :func:`~tempering.run.progress.done_line`)
    once the file is written. ``checkpoint_every`` (draws; ``None``: every
    :data:`CHECKPOINT_SECONDS`; 0: none) writes checkpoints into ``out`` while the run goes on
    (:mod:`tempering.run.checkpoint`); ``resume`` continues a ledger read from one. With
    ``chain_method="dask"`` the chains run as tasks on a Dask cluster (:mod:`tempering.run.
    distributed`): a new loopback cluster of ``workers`` processes, or the one at ``scheduler``.
    """
    check_output_path(out)
    checkpointing = checkpointing_to(out, checkpoint_every)
    model_options = {k: v for k, v in config["model"].items() if k != "name"}
    sampler_options = {k: v for k, v in config["sampler"].items() if k != "name"}
    model = get_model(model_name, **model_options)
    with pilot_phase(progress) as pilot_done:
        algorithm = get_sampler(sampler_name, model, **sampler_options)
        pilot_done(algorithm)
    if chain_method == ChainMethod.DASK:
        from tempering.run.distributed import run_on_dask

        attrs = resume_attributes(model, algorithm, seed, init=init, chains=chains, draws=draws,
                                  warmup=warmup, thin=thin, chain_method=chain_method)
        job = {**attrs, "checkpoint_every": checkpoint_every}
        result = run_on_dask(model, algorithm, job, out=out,
                             workers=workers, scheduler=scheduler, progress=progress,
                             resume=resume)
    else:
        result = run_chains(model, algorithm, key=seed, draws=draws, chains=chains,
                            warmup=warmup, thin=thin, init=init, chain_method=chain_method,
                            progress=progress, checkpointing=checkpointing, resume=resume)
    path = save_finished(result, out, checkpoint_every)
    if on_done is not None:
        on_done(done_line(result.idata["posterior"].attrs))
    return path


def rebuild_arguments(path: str | Path) -> dict[str, Any]:
    """What :func:`run_and_save` needs to repeat the run in ``path``.

    Raises
    ------
    UserInputError
        The file is not a run file, or lacks what a rebuild needs (a run of an algorithm built by
        hand, not from the sampler registry, records no sampler options).
    """
    idata = load_run(path)
    missing = [name for name in REBUILD_ATTRS if run_attr(idata, name) is None]
    if missing:
        raise UserInputError(f"{path}: cannot be rebuilt (no {', '.join(missing)} recorded; only "
                             "runs of registered models and samplers can)")
    attr = lambda name: run_attr(idata, name)
    return {"model_name": attr("model"), "sampler_name": attr("sampler"),
            "config": {"model": dict(attr("model_options")),
                       "sampler": dict(attr("sampler_options"))},
            "seed": key_from_record(attr("seed")), "chains": int(attr("chains")),
            "draws": int(attr("draws")), "warmup": int(attr("warmup")),
            "thin": int(attr("thin")), "chain_method": str(attr("chain_method")),
            "init": attr("init")}


def rerun(path: str | Path, out: str | Path, progress: bool = False) -> Path:
    """Rebuild the run in ``path`` — same model, sampler, options, seed and layout — and write it
    to ``out``; returns ``out``'s path."""
    return run_and_save(**rebuild_arguments(path), out=Path(out), progress=progress)

