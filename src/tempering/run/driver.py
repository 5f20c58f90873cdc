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
from dataclasses import dataclass
from enum import StrEnum
from importlib.metadata import version
from typing import Any, NamedTuple

import arviz as az
import jax
import jax.numpy as jnp
import numpy as np
import xarray as xr

from tempering.algorithms.base import Algorithm, declared_stats
from tempering.errors import UserInputError
from tempering.models.base import Model
from tempering.run.output import build_inference_data, posterior_dataset
from tempering.run.progress import RunProgress, done_line, run_progress


class ChainMethod(StrEnum):
    """How chains run: batched with ``vmap``, or one after another (the same draws either way)."""

    VMAP = "vmap"
    SEQUENTIAL = "sequential"


@dataclass
class RunResult:
    """What a run produced: the InferenceData, and the final state and parameters of each chain."""

    idata: az.InferenceData
    final_state: Any
    params: Any


def _as_key(key: int | jax.Array) -> tuple[jax.Array, Any]:
    """The key, and how the run file records it: the integer seed, or the key's data and
    implementation (:func:`key_from_record` turns either back into the key)."""
    if isinstance(key, int | np.integer):
        return jax.random.key(int(key)), int(key)
    typed = key if jax.dtypes.issubdtype(key.dtype, jax.dtypes.prng_key) else (
        jax.random.wrap_key_data(key))  # a legacy uint32 key
    return typed, {"key_data": np.asarray(jax.random.key_data(typed)).tolist(),
                   "impl": str(jax.random.key_impl(typed))}


def key_from_record(record: Any) -> int | jax.Array:
    """The seed or key a run file recorded (see :func:`_as_key`)."""
    if isinstance(record, int | np.integer):
        return int(record)
    return jax.random.wrap_key_data(jnp.asarray(record["key_data"], jnp.uint32),
                                    impl=record["impl"])


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


class _Compiled:
    """The chain-batched warmup and chunk functions of one algorithm, compiled ahead of time.

    Each is lowered and compiled before it first runs, and the compile time is kept apart
    (``compile_seconds``), so that wall times — and ESS per second — measure sampling only. One
    chunk executable serves every chunk: a chunk always has ``length`` slots and runs its first
    ``count`` (a traced argument: a ``fori_loop`` over the first ``count`` slots, the rest left
    zero), so a last, shorter chunk needs no second compilation.
    """

    def __init__(self, algorithm: Algorithm, thin: int):
        self.algorithm = algorithm
        self.thin = thin
        self.init = jax.jit(jax.vmap(algorithm.init))
        self._warmup = jax.jit(jax.vmap(algorithm.warmup, in_axes=(0, 0, 0, None)),
                               static_argnums=3)
        self._chunk_jit = jax.jit(jax.vmap(self._chunk, in_axes=(0, 0, 0, None, None, None)),
                                  static_argnums=5)
        self._executables: dict[tuple, Any] = {}
        self.compile_seconds = 0.0

    def _executable(self, name: str, fn, args: tuple, static: int, batch: int):
        cache_key = (name, static, batch)
        if cache_key not in self._executables:
            t0 = time.perf_counter()
            self._executables[cache_key] = fn.lower(*args, static).compile()
            self.compile_seconds += time.perf_counter() - t0
        return self._executables[cache_key]

    def prepared(self, batch: int, warmup: int, length: int) -> bool:
        """Whether the executables for ``batch`` chains are compiled already."""
        return (("chunk", length, batch) in self._executables
                and (warmup == 0 or ("warmup", warmup, batch) in self._executables))

    def prepare(self, warm_key, sample_key, state, params, warmup: int, length: int) -> None:
        """Compile the warmup and the chunk executables for these shapes before any timing."""
        batch = warm_key.shape[0]
        if warmup > 0:
            self._executable("warmup", self._warmup, (warm_key, state, params), warmup, batch)
        self._executable("chunk", self._chunk_jit, (sample_key, state, params, jnp.asarray(0),
                                                    jnp.asarray(length)), length, batch)

    def warmup(self, key, state, params, num_steps: int):
        args = (key, state, params)
        return self._executable("warmup", self._warmup, args, num_steps, key.shape[0])(*args)

    def chunk(self, key, state, params, start: int, count: int, length: int):
        """Draws ``start`` … ``start + count − 1`` (``count ≤ length``); the records are
        (chain, count, ...)."""
        args = (key, state, params, jnp.asarray(start), jnp.asarray(count))
        state, record = self._executable("chunk", self._chunk_jit, args, length,
                                         key.shape[0])(*args)
        return state, jax.tree.map(lambda a: a[:, :count], record)

    def _chunk(self, key, state, params, start, count, length):
        algorithm, thin = self.algorithm, self.thin

        def draw_into(slot, carry):
            state, records = carry
            state, record = one_draw(state, start + slot)
            return state, jax.tree.map(lambda buf, r: buf.at[slot].set(r), records, record)

        def one_draw(state, draw_index):
            def one_step(carry, j):
                state, cost = carry
                step_key = jax.random.fold_in(key, draw_index * thin + j)
                state, info = algorithm.step(step_key, state, params)
                return (state, cost + info.cost), info

            (state, cost), infos = jax.lax.scan(one_step, (state, jnp.zeros(())),
                                                jnp.arange(thin))
            last = jax.tree.map(lambda a: a[-1], infos)
            record = {"position": algorithm.position(state), "lp": last.lp, "cost": cost,
                      "acceptance_rate": jnp.mean(infos.acceptance_rate), **last.stats}
            return state, record

        # A loop over the first ``count`` slots of ``length`` (the rest stay zero): a ``cond``
        # skipping the slots past ``count`` would copy the whole state (EE's rings, say) per draw.
        shapes = jax.eval_shape(one_draw, state, start)[1]
        records = jax.tree.map(lambda a: jnp.zeros((length, *a.shape), a.dtype), shapes)
        return jax.lax.fori_loop(0, count, draw_into, (state, records))


def _batches(chains: int, chain_method: str) -> list[slice]:
    if chain_method == ChainMethod.VMAP:
        return [slice(0, chains)]
    return [slice(c, c + 1) for c in range(chains)]


def run_chains(model: Model, algorithm: Algorithm, *, key: int | jax.Array, draws: int = 1000,
               chains: int = 4, warmup: int = 500, thin: int = 1, init: Any = None,
               chain_method: ChainMethod | str = ChainMethod.VMAP, chunk_size: int | None = None,
               progress: bool = True, extra_attrs: dict[str, Any] | None = None) -> RunResult:
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

    Returns
    -------
    RunResult
        ``idata`` (posterior, sample_stats, run attributes), final states and adapted parameters.
    """
    _check_arguments(draws=draws, chains=chains, warmup=warmup, thin=thin,
                     chain_method=chain_method)
    master, seed_record = _as_key(key)
    chain_keys = jax.vmap(lambda c: jax.random.fold_in(master, c))(jnp.arange(chains))
    init_keys, warm_keys, sample_keys = jnp.moveaxis(
        jax.vmap(lambda k: jax.random.split(k, 3))(chain_keys), 1, 0)
    positions = _initial_positions(model, init_keys, init, chains)
    params = jax.tree.map(lambda p: jnp.broadcast_to(p, (chains, *jnp.shape(p))), algorithm.params)
    started = time.perf_counter()
    compiled = _Compiled(algorithm, int(thin))
    chunk = min(int(chunk_size or max(1, -(-draws // 20))), draws)

    batches = []
    with run_progress(progress, algorithm.headline, int(warmup) * chains, draws * chains) as shown:
        for batch in _batches(chains, chain_method):
            state = jax.block_until_ready(compiled.init(init_keys[batch], positions[batch]))
            batches.append(_run_batch(compiled, warm_keys[batch], sample_keys[batch], state,
                                      _take(params, batch), int(warmup), draws, chunk, shown))
        record = jax.tree.map(lambda *xs: np.concatenate(xs, axis=0),
                              *(b.record for b in batches))
        shown.finished(record)
    final_state = jax.tree.map(lambda *xs: jnp.concatenate(xs, axis=0), *(b.state for b in batches))
    final_params = jax.tree.map(lambda *xs: jnp.concatenate(xs, axis=0),
                                *(b.params for b in batches))
    posterior = _posterior(model, algorithm, record.pop("position"))
    total_seconds = time.perf_counter() - started
    options = None if algorithm.options is None else algorithm.options.model_dump()
    attrs = {
        "sampler": algorithm.name, "model": model.name, "model_options": model.options,
        "sampler_options": options, "sampler_facts": dict(algorithm.facts),
        "headline": [h._asdict() for h in algorithm.headline],
        "model_attrs": model.attrs, "seed": seed_record,
        "init": None if init is None else np.asarray(init, dtype=float).tolist(),
        "chains": chains, "draws": draws, "warmup": warmup, "thin": thin,
        "chain_method": str(chain_method),
        "wall_seconds_warmup": sum(b.warm_seconds for b in batches),
        "wall_seconds_compile": compiled.compile_seconds,
        "wall_seconds_sampling": sum(b.sample_seconds for b in batches),
        "wall_seconds_total": total_seconds,
        "cost_total": float(np.sum(record["cost"])),
        "cost_warmup": float(sum(np.sum(b.warm_cost) for b in batches)),
        "n_data": model.n_data, "alpha": model.alpha,
        "tuned_params": jax.tree.map(lambda a: np.asarray(a).tolist(), final_params),
        "versions": _versions(), "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        **(extra_attrs or {}),
    }
    idata = build_inference_data(posterior, record, declared_stats(algorithm.stats), attrs)
    shown.report(done_line(attrs))
    return RunResult(idata, final_state, final_params)


def _check_arguments(*, draws: int, chains: int, warmup: int, thin: int,
                     chain_method: str) -> None:
    for name, value, low in (("draws", draws, 1), ("chains", chains, 1), ("warmup", warmup, 0),
                             ("thin", thin, 1)):
        if int(value) < low:
            raise UserInputError(f"{name} must be at least {low} (got {value})")
    if chain_method not in tuple(ChainMethod):
        raise UserInputError(f"chain_method must be vmap or sequential (got {chain_method!r})")


def _take(tree: Any, rows: slice) -> Any:
    return jax.tree.map(lambda a: a[rows], tree)


class _Batch(NamedTuple):
    """One batch of chains run: its records (chain, draw, ...), final state and parameters, and
    its warmup and sampling seconds and warmup cost."""

    record: dict[str, np.ndarray]
    state: Any
    params: Any
    warm_seconds: float
    sample_seconds: float
    warm_cost: np.ndarray


def _run_batch(compiled: _Compiled, warm_keys: jax.Array, sample_keys: jax.Array, state: Any,
               params: Any, warmup: int, draws: int, chunk: int, shown: RunProgress) -> _Batch:
    """Compile, warm up and sample one batch of chains (all of them with ``vmap``, one with
    ``sequential``), moving the bar on as each phase starts and ends."""
    n = warm_keys.shape[0]
    if not compiled.prepared(n, warmup, chunk):
        shown.compiling()
        before = compiled.compile_seconds
        compiled.prepare(warm_keys, sample_keys, state, params, warmup, chunk)
        shown.compiled(compiled.compile_seconds - before)
    t0 = time.perf_counter()
    warm_cost = np.zeros(n)
    if warmup > 0:
        shown.warming()
        state, params, cost = compiled.warmup(warm_keys, state, params, warmup)
        warm_cost = np.asarray(cost)
    jax.block_until_ready(state)
    warm_seconds = time.perf_counter() - t0
    if warmup > 0:
        shown.warmed(warmup * n, warm_seconds)
    shown.sampling()
    t0 = time.perf_counter()
    pieces: list[dict[str, np.ndarray]] = []
    for start in range(0, draws, chunk):
        length = min(chunk, draws - start)
        state, record = compiled.chunk(sample_keys, state, params, start, length, chunk)
        pieces.append(jax.tree.map(np.asarray, record))
        shown.sampled(length * n, (start + length) * n, time.perf_counter() - t0, pieces)
    sample_seconds = time.perf_counter() - t0
    shown.batch_sampled(sample_seconds)
    record = jax.tree.map(lambda *xs: np.concatenate(xs, axis=1), *pieces)
    return _Batch(record, state, params, warm_seconds, sample_seconds, warm_cost)


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
