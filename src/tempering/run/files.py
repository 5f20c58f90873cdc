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
from tempering.run.driver import key_from_record, run_chains
from tempering.run.output import check_output_path, load_run, run_attr, save_run
from tempering.run.progress import done_line

#: Attributes a run file must have to be rebuilt.
REBUILD_ATTRS = ("model", "model_options", "sampler", "sampler_options", "seed", "chains",
                 "draws", "warmup", "thin", "chain_method")


def run_and_save(model_name: str, sampler_name: str, config: dict, *, chains: int, draws: int,
                 warmup: int, seed: Any, chain_method: str, thin: int, out: Path,
                 progress: bool, init: Any = None,
                 on_done: Callable[[str], Any] | None = None) -> Path:
    """Validate everything, sample, and write the run file atomically; returns its path.

    ``config`` holds the ``model`` and ``sampler`` tables (options; a ``name`` key is ignored).
    Nothing is written when any input is bad. ``on_done``, when given, is called with the
    end-of-run line (total wall time, compilation apart: :func:`~tempering.run.progress.done_line`)
    once the file is written.
    """
    check_output_path(out)
    model_options = {k: v for k, v in config["model"].items() if k != "name"}
    sampler_options = {k: v for k, v in config["sampler"].items() if k != "name"}
    model = get_model(model_name, **model_options)
    algorithm = get_sampler(sampler_name, model, **sampler_options)
    result = run_chains(model, algorithm, key=seed, draws=draws, chains=chains, warmup=warmup,
                        thin=thin, init=init, chain_method=chain_method, progress=progress)
    path = save_run(result.idata, out)
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

