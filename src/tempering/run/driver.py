"""The driver: run an algorithm's chains and return ArviZ ``InferenceData``.

Chains run either batched with ``vmap`` or one after another (``sequential``) through the same
compiled functions, and a chain's draws depend only on the seed and the chain's index: chain c uses
the key ``fold_in(key, c)``, split into keys for its initial point, its warmup and its sampling,
and sampling step u (counting thinned steps) uses ``fold_in(sampling key, u)``. So the same seed
gives the same draws whatever the chain layout, chunk size or number of chains.

Sampling runs in jitted chunks (``lax.scan`` over draws) so that a progress bar can report draws/s
and the sampler's headline statistics between chunks; warmup draws are never returned. Progress
reporting only reads the records, so it changes no draw.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from importlib.metadata import version
from pathlib import Path
from typing import Any

import arviz as az
import jax
import jax.numpy as jnp
import numpy as np
import xarray as xr

from tempering.algorithms.base import Algorithm, declared_stats
from tempering.errors import UserInputError
from tempering.models import MODELS
from tempering.models.base import Model
from tempering.models.user_file import is_file_model
from tempering.run.checkpoint import Ledger, empty_like, take_rows, to_device
from tempering.run.compiled import Compiled
from tempering.run.output import build_inference_data, posterior_dataset
from tempering.run.progress import done_line, run_progress
from tempering.run.runner import Checkpointing, Keys, Runner
from tempering.run.spec import RunSpec, as_key


class ChainMethod(StrEnum):
    """How chains run: batched with ``vmap``, one after another, or in groups as tasks on a Dask
    cluster (:mod:`tempering.run.distributed`) — the same draws every way."""

    VMAP = "vmap"
    SEQUENTIAL = "sequential"
    DASK = "dask"


@dataclass
class RunResult:
    """What a run produced: the InferenceData, the final state and parameters of each chain, and
    the ledger with the attributes that resume or extend it (:mod:`tempering.run.checkpoint`)."""

    idata: az.InferenceData
    final_state: Any
    params: Any
    ledger: Ledger | None = None
    resume_attrs: dict[str, Any] | None = None


def _initial_positions(model: Model, init_keys: jax.Array, init: Any, chains: int) -> jax.Array:
    if init is None:
        return jax.vmap(model.init_position)(init_keys)
    positions = jnp.asarray(init, dtype=jnp.float64)
    if positions.ndim == 1:
        positions = jnp.broadcast_to(positions, (chains, positions.shape[0]))
    if positions.shape != (chains, model.dim):
        raise UserInputError(f"init: expected shape ({chains}, {model.dim}) or ({model.dim},), "
                             f"got {tuple(positions.shape)}")
    return positions


def _versions() -> dict[str, str]:
    names = ("tempering", "jax", "jaxlib", "blackjax", "arviz", "numpy", "xarray")
    out = {}
    for name in names:
        try:
            out[name] = version(name)
        except Exception:  # noqa: BLE001 - an uninstalled package is just not recorded
            out[name] = "unknown"
    return out


def _batches(ids: np.ndarray, chain_method: str) -> list[np.ndarray]:
    if chain_method == ChainMethod.VMAP:
        return [ids]
    return [ids[i:i + 1] for i in range(len(ids))]


def _keys(model: Model, master: jax.Array, init: Any, chains: int) -> Keys:
    chain_keys = jax.vmap(lambda c: jax.random.fold_in(master, c))(jnp.arange(chains))
    init_keys, warm_keys, sample_keys = jnp.moveaxis(
        jax.vmap(lambda k: jax.random.split(k, 3))(chain_keys), 1, 0)
    return Keys(init_keys, warm_keys, sample_keys,
                 _initial_positions(model, init_keys, init, chains))


def new_ledger(algorithm: Algorithm, model: Model, *, key: int | jax.Array, chains: int,
               init: Any = None) -> Ledger:
    """The empty ledger of a run: no chain warmed, no draws; states shaped by the algorithm's
    ``init`` (the template a checkpoint's leaves are checked against)."""
    return _empty_ledger(algorithm, _keys(model, as_key(key), init, chains), chains)


def _empty_ledger(algorithm: Algorithm, keys: Keys, chains: int) -> Ledger:
    state = jax.eval_shape(jax.vmap(algorithm.init), keys.init, keys.positions)
    params = jax.tree.map(lambda p: np.broadcast_to(np.asarray(p), (chains, *np.shape(p))),
                          algorithm.params)
    return Ledger(done=np.zeros(chains, np.int64), warmed=np.zeros(chains, bool),
                  state=empty_like(state), params=jax.tree.map(np.array, params),
                  warm_cost=np.zeros(chains))


def run_chains(model: Model, algorithm: Algorithm, *, key: int | jax.Array, draws: int = 1000,
               chains: int = 4, warmup: int = 500, thin: int = 1, init: Any = None,
               chain_method: ChainMethod | str = ChainMethod.VMAP, chunk_size: int | None = None,
               progress: bool = True, extra_attrs: dict[str, Any] | None = None,
               checkpointing: Checkpointing | None = None, resume: Ledger | None = None,
               chain_ids: Sequence[int] | None = None,
               on_progress: Callable[[str, int], Any] | None = None) -> RunResult:
    """Run ``chains`` chains of ``algorithm`` on ``model``.

    Parameters
    ----------
    key
        An integer seed or a JAX PRNG key.
    draws, warmup, thin
        Draws kept per chain, warmup steps per chain (discarded; adaptation happens here only),
        and steps per kept draw.
    init
        Initial unconstrained positions, (chains, dim) or (dim,); default: ``model.init_position``.
    chain_method
        ``"vmap"`` (chains batched) or ``"sequential"`` (one chain at a time).
    chunk_size
        Draws per jitted chunk (default: about 20 progress updates).
    checkpointing
        When to hand the ledger to a writer (:class:`Checkpointing`); ``None``: never.
    resume
        A ledger to continue (from a checkpoint, or a finished run with fewer ``draws``): warmed
        chains go on from their stored state and draw count, the others start afresh. The draws
        equal those of one uninterrupted run.
    chain_ids
        Run only these chains (a distributed worker's share); the result then carries the ledger
        only (``idata`` is ``None``).
    on_progress
        Called with ``("warmup", steps)`` and ``("sampling", draws)`` as chains make progress
        (over the chains of the batch; a distributed worker reports to the client's bar).

    Returns
    -------
    RunResult
        ``idata`` (posterior, sample_stats, run attributes), final states and adapted parameters,
        the ledger and the attributes that resume the run.
    """
    _check_arguments(draws=draws, chains=chains, warmup=warmup, thin=thin,
                     chain_method=chain_method)
    spec = RunSpec.of(model, algorithm, seed=key, init=init, chains=chains, draws=draws,
                      warmup=warmup, thin=thin, chain_method=str(chain_method))
    if chain_method == ChainMethod.DASK:
        return _on_dask(spec, model, algorithm, progress, resume)
    master = as_key(key)
    keys = _keys(model, master, init, chains)
    ledger = resume if resume is not None else _empty_ledger(algorithm, keys, chains)
    ledger.padded(draws)
    chunk = min(int(chunk_size or max(1, -(-draws // 20))), draws)
    if checkpointing is not None and checkpointing.every:
        chunk = min(chunk, int(checkpointing.every))
    resume_attrs = spec.to_attrs()
    ids = np.arange(chains) if chain_ids is None else np.asarray(chain_ids, dtype=np.int64)
    with run_progress(progress, algorithm.headline, int(warmup) * len(ids),
                      draws * len(ids)) as shown:
        shown.resumed(int(warmup) * int(ledger.warmed[ids].sum()), int(ledger.done[ids].sum()))
        runner = Runner(Compiled(algorithm, int(thin)), keys, ledger, shown, checkpointing,
                         resume_attrs, int(warmup), draws, chunk, on_progress)
        for rows in _batches(ids, str(chain_method)):
            runner.run(rows)
        shown.finished(take_rows(ledger.record, ids) if chain_ids is not None else ledger.record)
        runner.clock()
    if chain_ids is not None:
        return RunResult(None, None, None, ledger, resume_attrs)  # type: ignore[arg-type]
    idata = finish_run(model, algorithm, ledger, resume_attrs, extra_attrs)
    shown.report(done_line(idata["posterior"].attrs))
    return RunResult(idata, to_device(ledger.state), to_device(ledger.params), ledger,
                     resume_attrs)


def _on_dask(spec: RunSpec, model: Model, algorithm: Algorithm, progress: bool,
             resume: Ledger | None) -> RunResult:
    """``chain_method="dask"``: the chains as tasks on a new local Dask cluster (one worker per
    core), each rebuilding the model and the sampler from ``spec``; the groups' checkpoints go to
    a temporary folder. :func:`tempering.run.files.run_spec` takes ``workers``, ``scheduler``
    and a run file instead."""
    import tempfile

    from tempering.run.distributed import run_on_dask  # imports this module: here, not above

    if spec.sampler_options is None or not (model.name in MODELS or is_file_model(model.name)):
        raise UserInputError("chain_method dask rebuilds the model and the sampler on the "
                             "workers from their names and options: only registered ones can")
    with tempfile.TemporaryDirectory(prefix="tempering-dask-") as scratch:
        return run_on_dask(spec, model, algorithm, out=Path(scratch) / "run.nc",
                           checkpoint_every=None, workers=None, scheduler=None,
                           progress=progress, resume=resume)


def finish_run(model: Model, algorithm: Algorithm, ledger: Ledger, resume_attrs: dict[str, Any],
               extra_attrs: dict[str, Any] | None = None) -> az.InferenceData:
    """The InferenceData of a finished ledger: constrained draws, declared statistics and the
    run attributes."""
    record = dict(ledger.record)
    posterior = _posterior(model, algorithm, record.pop("position"))
    seconds = ledger.seconds
    pilot = dict(algorithm.facts.get("pilot") or {})
    pilot_seconds = float(pilot.get("seconds", 0.0)) + float(pilot.get("compile_seconds", 0.0))
    attrs = {
        **resume_attrs, "sampler_facts": dict(algorithm.facts),
        "headline": [h._asdict() for h in algorithm.headline], "model_attrs": model.attrs,
        "wall_seconds_warmup": seconds.get("warmup", 0.0),
        "wall_seconds_compile": seconds.get("compile", 0.0),
        "wall_seconds_sampling": seconds.get("sampling", 0.0),
        "wall_seconds_total": seconds.get("total", 0.0) + pilot_seconds,
        "cost_total": float(np.sum(record["cost"])),
        "cost_warmup": float(np.sum(ledger.warm_cost if ledger.warm_cost is not None else 0.0)),
        **({"wall_seconds_pilot": pilot_seconds, "cost_pilot": float(pilot.get("cost", 0.0))}
           if pilot else {}),
        "n_data": model.n_data, "alpha": model.alpha,
        "tuned_params": jax.tree.map(lambda a: np.asarray(a).tolist(), ledger.params),
        "versions": _versions(), "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        **(extra_attrs or {}),
    }
    return build_inference_data(posterior, record, declared_stats(algorithm.stats), attrs)


def _check_arguments(*, draws: int, chains: int, warmup: int, thin: int,
                     chain_method: str) -> None:
    for name, value, low in (("draws", draws, 1), ("chains", chains, 1), ("warmup", warmup, 0),
                             ("thin", thin, 1)):
        if int(value) < low:
            raise UserInputError(f"{name} must be at least {low} (got {value})")
    if chain_method not in tuple(ChainMethod):
        raise UserInputError(f"chain_method must be vmap, sequential or dask "
                             f"(got {chain_method!r})")


def _posterior(model: Model, algorithm: Algorithm, theta: np.ndarray) -> xr.Dataset:
    """Constrained, named draws from (chain, draw, *position_dims, dim) positions."""
    constrain = model.constrain
    for _ in range(2 + len(algorithm.position_dims)):
        constrain = jax.vmap(constrain)
    constrained = jax.jit(constrain)(jnp.asarray(theta))
    return posterior_dataset(model, jax.tree.map(np.asarray, constrained),
                             algorithm.position_dims)


def sample(model: Model, algorithm: Algorithm, *, key: int | jax.Array, draws: int = 1000,
           chains: int = 4, warmup: int = 500, thin: int = 1, init: Any = None,
           chain_method: ChainMethod | str = ChainMethod.VMAP, chunk_size: int | None = None,
           progress: bool = True) -> az.InferenceData:
    """Sample ``model`` with ``algorithm``; see :func:`run_chains` for the arguments.

    Returns
    -------
    arviz.InferenceData
        ``posterior`` (constrained, named variables with dims ``chain``, ``draw``, ...),
        ``sample_stats`` (``acceptance_rate``, ``cost`` per draw, ``lp`` and the algorithm's own
        statistics) and run attributes (sampler, model, options, seed, wall seconds, cost totals,
        package versions) on the ``posterior`` group.
    """
    return run_chains(model, algorithm, key=key, draws=draws, chains=chains, warmup=warmup,
                      thin=thin, init=init, chain_method=chain_method, chunk_size=chunk_size,
                      progress=progress).idata
