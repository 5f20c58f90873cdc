"""The chains' start: per-chain PRNG keys and initial positions from a run's seed, computed by one
compiled program (:func:`chain_keys`), which may compile on a thread while its caller traces
(:func:`chain_start`). Chain c's key is ``fold_in(master, c)``, split into its init, warmup and
sampling keys, so a chain's draws do not depend on how many chains run beside it or how they are
laid out; the program is kept per model and chain count, so a pilot's chains and the run's start
on one. Below the samplers (the models are duck-typed: ``init_position(key)``), so that a pilot in
a sampler family and the run's driver share it.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

import tempering.jax_setup  # noqa: F401  # JAX's settings first (the LAPACK rule)
from tempering.numerics import jit_once

#: Chains' start programs kept (the last few models and chain counts).
KEPT = 4
#: The chains' start programs of the last few (model, chain count, kind of key and of start).
_STARTS: OrderedDict[tuple, tuple[Any, Any, dict]] = OrderedDict()


def as_key(key: int | jax.Array) -> jax.Array:
    """A typed PRNG key from an integer seed, a typed key or a legacy uint32 key."""
    if isinstance(key, int | np.integer):
        return jax.random.key(int(key))
    if jax.dtypes.issubdtype(key.dtype, jax.dtypes.prng_key):
        return key
    return jax.random.wrap_key_data(key)


def kept(cache: OrderedDict, key: Any, make: Callable[[], Any], size: int) -> Any:
    """``cache[key]``, made by ``make()`` when missing; the last ``size`` used are kept."""
    if key not in cache:
        cache[key] = make()
        while len(cache) > size:
            cache.popitem(last=False)
    cache.move_to_end(key)
    return cache[key]


def chain_keys(model: Any, key: int | jax.Array, chains: int, given: Any = None
               ) -> tuple[jax.Array, jax.Array, jax.Array, jax.Array]:
    """Per-chain keys (chain c: ``fold_in(master, c)`` split into init, warmup and sampling
    keys, the master key made from ``key`` by :func:`as_key`) and initial positions (``given``,
    or the model's draws with the init keys), computed by one compiled call (op by op, each
    primitive would compile alone: ~1 s of a run's start). The program is kept per model and
    chain count, so a pilot's chains and the run's (PT's ``rungs=auto``) start on one."""
    return chain_start(model, key, chains, given).result()


class ChainStart(NamedTuple):
    """:func:`chain_keys`'s results while their program compiles on a thread: ``shapes`` now
    (what a caller traces its own programs with meanwhile), the arrays from :meth:`result`."""

    shapes: tuple[jax.ShapeDtypeStruct, ...]
    executable: Future
    args: tuple

    def result(self) -> tuple[jax.Array, jax.Array, jax.Array, jax.Array]:
        """The init keys, warmup keys, sampling keys and positions (waits for the compile)."""
        return self.executable.result()(*self.args)


def chain_start(model: Any, key: int | jax.Array, chains: int, given: Any = None) -> ChainStart:
    """:func:`chain_keys`, its program traced here (the model's Python stays on the caller's
    thread) and compiled on another: XLA releases the GIL, so a pilot that traces the run's
    program meanwhile (:func:`~tempering.algorithms.pt.pilot.shared_pilot`) hides the start's
    compilation (0.15–0.2 s of a cold default PT run) behind its own tracing."""
    seed = int(key) if isinstance(key, int | np.integer) else None
    cache_key = (id(model), int(chains), seed is None, given is None)
    if cache_key in _STARTS and _STARTS[cache_key][0] is not model:
        del _STARTS[cache_key]  # the id of a model since collected

    @jit_once
    def start(key, given):
        master = as_key(key) if seed is None else jax.random.key(key)
        chain = jax.vmap(lambda c: jax.random.fold_in(master, c))(jnp.arange(chains))
        init_keys, warm_keys, sample_keys = jnp.moveaxis(
            jax.vmap(lambda k: jax.random.split(k, 3))(chain), 1, 0)
        positions = jax.vmap(model.init_position)(init_keys) if given is None else given
        return init_keys, warm_keys, sample_keys, positions

    _, jitted, executables = kept(_STARTS, cache_key, lambda: (model, start, {}), KEPT)
    args = (np.int64(seed) if seed is not None else key, given)
    signature = tuple((np.shape(a), str(a.dtype)) for a in jax.tree.leaves(args))
    if signature not in executables:
        lowered = jitted.lower(*args)
        executables[signature] = (lowered.out_info, _compiler().submit(lowered.compile))
    shapes, executable = executables[signature]
    return ChainStart(shapes, executable, args)


_COMPILER: list[ThreadPoolExecutor] = []


def _compiler() -> ThreadPoolExecutor:
    """The process's thread for compilations that overlap tracing (:func:`chain_start`)."""
    if not _COMPILER:
        _COMPILER.append(ThreadPoolExecutor(max_workers=1, thread_name_prefix="compile"))
    return _COMPILER[0]
