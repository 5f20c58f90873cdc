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
from typing import TYPE_CHECKING, Any

import jax
import numpy as np

from tempering.algorithms.base import Algorithm, RunLayout
from tempering.algorithms.programs import Compiled, chain_init
from tempering.errors import UserInputError
from tempering.lazy_arviz import prefetch
from tempering.models import MODELS
from tempering.models.base import Model
from tempering.models.user_file import is_file_model
from tempering.numerics import gc_paused, tall_data
from tempering.precision import in_model_precision
from tempering.run.checkpoint import Ledger, empty_like, take_rows, to_device
from tempering.run.progress import RunProgress, done_line, run_progress
from tempering.run.runner import Checkpointing, Keys, Runner
from tempering.run.sink import MemorySink, Sink
from tempering.run.spec import RunSpec
from tempering.starts import chain_keys

if TYPE_CHECKING:
    import arviz as az


class ChainMethod(StrEnum):
    """How chains run: batched with ``vmap``, one after another, or in groups as tasks on a Dask
    cluster (:mod:`tempering.run.distributed`) — the same draws every way."""

    VMAP = "vmap"
    SEQUENTIAL = "sequential"
    DASK = "dask"


@dataclass
class RunResult:
    """What a run produced: the InferenceData (``None`` when it went to a run file), the final
    state and parameters of each chain, the ledger with the attributes that resume or extend it
    (:mod:`tempering.run.checkpoint`), and the finished run's attributes."""

    idata: az.InferenceData  # None for a run written to a file (run_spec returns its path)
    final_state: Any
    params: Any
    ledger: Ledger | None = None
    resume_attrs: dict[str, Any] | None = None
    attrs: dict[str, Any] | None = None


def _initial_positions(model: Model, init: Any, chains: int) -> np.ndarray | None:
    """The explicit initial positions, (chains, dim), or ``None`` for the model's own draws."""
    if init is None:
        return None
    positions = np.asarray(init, dtype=np.float64)
    if positions.ndim == 1:
        positions = np.broadcast_to(positions, (chains, positions.shape[0]))
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


def _keys(model: Model, key: int | jax.Array, init: Any, chains: int) -> Keys:
    """Per-chain keys and initial positions
    (:func:`~tempering.starts.chain_keys`)."""
    return Keys(*chain_keys(model, key, chains, _initial_positions(model, init, chains)))


@in_model_precision
def new_ledger(algorithm: Algorithm, model: Model, *, key: int | jax.Array, chains: int,
               init: Any = None) -> Ledger:
    """The empty ledger of a run: no chain warmed, no draws; states shaped by the algorithm's
    ``init`` (the template a checkpoint's leaves are checked against)."""
    return _empty_ledger(algorithm, _keys(model, key, init, chains), chains)


@in_model_precision
def traced_start(model: Model, algorithm: Algorithm, *, key: int | jax.Array, chains: int,
                 init: Any, thin: int) -> tuple[Ledger, dict[str, jax.ShapeDtypeStruct]]:
    """The empty ledger of a run and one draw's record by name, traced (nothing compiled): what
    makes a run file before any chain runs."""
    keys = _keys(model, key, init, chains)
    ledger = _empty_ledger(algorithm, keys, chains)
    first = np.arange(1)
    shapes = Compiled(algorithm, int(thin)).traced_record_shapes(
        keys.sample[first], to_device(take_rows(ledger.state, first)),
        to_device(take_rows(ledger.params, first)))
    return ledger, shapes


def _empty_ledger(algorithm: Algorithm, keys: Keys, chains: int) -> Ledger:
    state = jax.eval_shape(jax.vmap(chain_init(algorithm)), keys.init, keys.positions)
    params = jax.tree.map(lambda p: np.broadcast_to(np.asarray(p), (chains, *np.shape(p))),
                          algorithm.params)
    return Ledger(done=np.zeros(chains, np.int64), warmed=np.zeros(chains, bool),
                  state=empty_like(state), params=jax.tree.map(np.array, params),
                  warm_cost=np.zeros(chains))


def run_layout(model: Model, *, chains: int = 4, warmup: int = 500, draws: int = 1000,
               thin: int = 1, chain_method: str = "vmap", chunk_size: int | None = None,
               every: int | None = None) -> RunLayout:
    """The shapes :func:`run_chains` with these arguments compiles its programs for (its batch
    of chains, warmup, draws, thinning and chunk), for a pilot that compiles them first:
    ``get_sampler(..., layout=run_layout(model, ...))``."""
    batch = int(chains) if str(chain_method) == ChainMethod.VMAP else 1
    item = 8 if model.precision == "float64" else 4
    return RunLayout(batch=batch, warmup=int(warmup), draws=int(draws), thin=int(thin),
                     chunk=chunk_length(int(draws), chunk_size, batch * model.dim * item, every),
                     chains=int(chains))


#: Bytes of positions a chunk holds at most (of the chains run together): a long run's chunks
#: are cut to this, so a run that writes a file holds about this much of its draws at a time.
CHUNK_BYTES = 8 * 1024**2


def chunk_length(draws: int, chunk_size: int | None, per_draw_bytes: int,
                 every: int | None, compiled: int | None = None) -> int:
    """Draws per chunk: ``chunk_size``, or the length of a program ``compiled`` already (a
    pilot's, which the run then takes as it is), or about 20 progress updates; at most
    ``every`` (the checkpoint interval) and :data:`CHUNK_BYTES` of positions."""
    chunk = min(int(chunk_size or max(1, -(-draws // 20))), draws)
    if chunk_size is None and compiled is not None:
        chunk = compiled
    if every:
        chunk = min(chunk, int(every))
    if chunk_size is None:
        chunk = min(chunk, max(1, CHUNK_BYTES // max(1, per_draw_bytes)))
    return chunk


@in_model_precision
@gc_paused()  # start-up: Python's collector only slows it (numerics.gc_paused)
def run_chains(model: Model, algorithm: Algorithm, *, key: int | jax.Array, draws: int = 1000,
               chains: int = 4, warmup: int = 500, thin: int = 1, init: Any = None,
               chain_method: ChainMethod | str = ChainMethod.VMAP, chunk_size: int | None = None,
               progress: bool = True, extra_attrs: dict[str, Any] | None = None,
               checkpointing: Checkpointing | None = None, sink: Sink | None = None,
               resume: Ledger | None = None, chain_ids: Sequence[int] | None = None,
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
        ``"vmap"`` (chains batched), ``"sequential"`` (one chain at a time) or ``"dask"``.
    chunk_size
        Draws per jitted chunk (default: about 20 progress updates, at most
        :data:`CHUNK_BYTES` of positions).
    checkpointing
        When to commit a checkpoint to the sink (:class:`Checkpointing`); ``None``: never.
    sink
        Where the draws go (:mod:`tempering.run.sink`): ``None`` keeps them in memory and returns
        the InferenceData; a :class:`~tempering.run.sink.FileSink` streams them to a run file,
        commits the final checkpoint and writes the finished run's attributes (``idata`` is then
        ``None``).
    resume
        A ledger to continue (from a checkpoint, or a finished run with fewer ``draws``): warmed
        chains go on from their stored state and draw count, the others start afresh. The draws
        equal those of one uninterrupted run.
    chain_ids
        Run only these chains (a distributed worker's share); the result then carries the ledger
        only (``idata`` is ``None``; a file sink gets no attributes).
    on_progress
        Called with ``("warmup", steps)`` and ``("sampling", draws)`` as chains make progress
        (over the chains of the batch; a distributed worker reports to the client's bar).

    Returns
    -------
    RunResult
        ``idata`` (posterior, sample_stats, run attributes) of a run in memory, final states and
        adapted parameters, the ledger, the attributes that resume the run and the finished
        run's attributes.
    """
    _check_arguments(draws=draws, chains=chains, warmup=warmup, thin=thin,
                     chain_method=chain_method)
    spec = RunSpec.of(model, algorithm, seed=key, init=init, chains=chains, draws=draws,
                      warmup=warmup, thin=thin, chain_method=str(chain_method))
    if chain_method == ChainMethod.DASK:
        return _on_dask(spec, model, algorithm, progress, resume)
    keys, ledger = _started(model, algorithm, key, init, chains, resume)
    ids = np.arange(chains) if chain_ids is None else np.asarray(chain_ids, dtype=np.int64)
    batches = _batches(ids, str(chain_method))
    layout = RunLayout(batch=len(batches[0]), warmup=int(warmup), draws=draws, thin=int(thin),
                       chains=chains)
    compiled, chunk = _programs(model, algorithm, ledger, layout, chunk_size, checkpointing)
    resume_attrs = spec.to_attrs()
    if sink is None and chain_ids is None:
        prefetch()  # the InferenceData's imports, while the run compiles and samples
    sink = sink if sink is not None else MemorySink(model, algorithm, draws)
    try:
        shown = _run_batches(algorithm, keys, ledger, sink, checkpointing, batches,
                             progress=progress, warmup=int(warmup), draws=draws, chunk=chunk,
                             thin=int(thin), on_progress=on_progress, compiled=compiled)
        sink.commit(ledger)
    finally:
        sink.close()
    if chain_ids is not None:
        return RunResult(None, None, None, ledger, resume_attrs)  # type: ignore[arg-type]
    attrs = run_attrs(model, algorithm, ledger, resume_attrs, extra_attrs,
                      sink.cost_total(ledger))
    idata = sink.finish(ledger, attrs)
    shown.report(done_line(attrs))
    return RunResult(idata, to_device(ledger.state),  # type: ignore[arg-type]
                     to_device(ledger.params), ledger, resume_attrs, attrs)


def _started(model: Model, algorithm: Algorithm, key: int | jax.Array, init: Any, chains: int,
             resume: Ledger | None) -> tuple[Keys, Ledger]:
    """The chains' keys and initial positions, and the run's ledger (``resume``'s, or a new
    one); the seconds this took — mostly the start program's compilation — are counted as
    compilation (and in the total)."""
    t0 = time.perf_counter()
    keys = jax.block_until_ready(_keys(model, key, init, chains))
    ledger = resume if resume is not None else _empty_ledger(algorithm, keys, chains)
    started = time.perf_counter() - t0
    for phase in ("compile", "total"):
        ledger.seconds[phase] = ledger.seconds.get(phase, 0.0) + started
    return keys, ledger


def _programs(model: Model, algorithm: Algorithm, ledger: Ledger, layout: RunLayout,
              chunk_size: int | None, checkpointing: Checkpointing | None
              ) -> tuple[Compiled, int]:
    """The run's :class:`Compiled` (a pilot's, where it compiled them) and its chunk length
    (:func:`chunk_length`)."""
    compiled = Compiled.shared(algorithm, layout.thin, tall_data(model), layout.brief(model))
    chunk = chunk_length(layout.draws, chunk_size,
                         layout.batch * _position_bytes(algorithm, ledger),
                         checkpointing.every if checkpointing is not None else None,
                         compiled.compiled_length(layout.batch))
    return compiled, chunk


def _position_bytes(algorithm: Algorithm, ledger: Ledger) -> int:
    """Bytes of one chain's position (one draw's record is about this)."""
    position = jax.eval_shape(jax.vmap(algorithm.position), ledger.state)
    return position.dtype.itemsize * int(np.prod(position.shape[1:], dtype=np.int64))


def _run_batches(algorithm: Algorithm, keys: Keys, ledger: Ledger, sink: Sink,
                 checkpointing: Checkpointing | None, batches: list[np.ndarray], *,
                 progress: bool, warmup: int, draws: int, chunk: int, thin: int,
                 on_progress: Callable[[str, int], Any] | None, compiled: Compiled
                 ) -> RunProgress:
    """Warm up and sample the chains of ``batches``, one batch after another, on ``compiled``'s
    programs, with the bar on while they run."""
    ids = np.concatenate(batches)
    with run_progress(progress, algorithm.headline, warmup * len(ids), draws * len(ids)) as shown:
        shown.resumed(warmup * int(ledger.warmed[ids].sum()), int(ledger.done[ids].sum()))
        runner = Runner(compiled, keys, ledger, shown, checkpointing, sink, warmup, draws, chunk,
                        on_progress)
        for rows in batches:
            runner.run(rows)
        shown.finished(runner.tally.text())
        runner.clock()
    return shown


def _on_dask(spec: RunSpec, model: Model, algorithm: Algorithm, progress: bool,
             resume: Ledger | None) -> RunResult:
    """``chain_method="dask"``: the chains as tasks on a new local Dask cluster (one worker per
    core), each rebuilding the model and the sampler from ``spec``; the groups' checkpoints go to
    a temporary folder, and the InferenceData is read back from the run file made there.
    :func:`tempering.run.files.run_spec` takes ``workers``, ``scheduler`` and a run file
    instead."""
    import tempfile

    from tempering.run.distributed import run_on_dask  # imports this module: here, not above

    if spec.sampler_options is None or not (model.name in MODELS or is_file_model(model.name)):
        raise UserInputError("chain_method dask rebuilds the model and the sampler on the "
                             "workers from their names and options: only registered ones can")
    from tempering.run.loading import load_run

    with tempfile.TemporaryDirectory(prefix="tempering-dask-") as scratch:
        out = Path(scratch) / "run.nc"
        result = run_on_dask(spec, model, algorithm, out=out, checkpoint_every=None,
                             workers=None, scheduler=None, progress=progress, resume=resume)
        idata = load_run(out)
        idata.load()  # into memory: the folder goes with the block
        idata.close()
    result.idata = idata
    return result


def run_attrs(model: Model, algorithm: Algorithm, ledger: Ledger, resume_attrs: dict[str, Any],
              extra_attrs: dict[str, Any] | None, cost_total: float) -> dict[str, Any]:
    """The finished run's attributes: its spec (``resume_attrs``), the sampler's facts and
    headline, the model's attributes, wall seconds and costs, tuned parameters and versions."""
    seconds = ledger.seconds
    pilot = dict(algorithm.facts.get("pilot") or {})
    pilot_seconds = float(pilot.get("seconds", 0.0))  # its compilation is counted as such
    pilot_compile = float(pilot.get("compile_seconds", 0.0))
    return {
        **start_attrs(model, algorithm, resume_attrs),
        "wall_seconds_warmup": seconds.get("warmup", 0.0),
        "wall_seconds_compile": seconds.get("compile", 0.0) + pilot_compile,
        "wall_seconds_sampling": seconds.get("sampling", 0.0),
        "wall_seconds_total": seconds.get("total", 0.0) + pilot_seconds + pilot_compile,
        "cost_total": cost_total,
        "cost_warmup": float(np.sum(ledger.warm_cost if ledger.warm_cost is not None else 0.0)),
        **({"wall_seconds_pilot": pilot_seconds, "cost_pilot": float(pilot.get("cost", 0.0))}
           if pilot else {}),
        "tuned_params": jax.tree.map(lambda a: np.asarray(a).tolist(), ledger.params),
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        **(extra_attrs or {}),
    }


def start_attrs(model: Model, algorithm: Algorithm, resume_attrs: dict[str, Any]
                ) -> dict[str, Any]:
    """The run attributes known before it starts (a run file carries them from the start)."""
    return {**resume_attrs, "sampler_facts": dict(algorithm.facts),
            "headline": [h._asdict() for h in algorithm.headline], "model_attrs": model.attrs,
            "n_data": model.n_data, "alpha": model.alpha, "precision": model.precision,
            "versions": _versions()}


def _check_arguments(*, draws: int, chains: int, warmup: int, thin: int,
                     chain_method: str) -> None:
    for name, value, low in (("draws", draws, 1), ("chains", chains, 1), ("warmup", warmup, 0),
                             ("thin", thin, 1)):
        if int(value) < low:
            raise UserInputError(f"{name} must be at least {low} (got {value})")
    if chain_method not in tuple(ChainMethod):
        raise UserInputError(f"chain_method must be vmap, sequential or dask "
                             f"(got {chain_method!r})")


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
