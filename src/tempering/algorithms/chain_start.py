"""The chains' start: per-chain keys and initial positions, as one compiled program kept per
model and chain count (:func:`chain_keys`), so that a pilot's chains and the run's start on one
program."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from tempering.numerics import jit_once

#: Start programs kept (of the last models and chain counts).
KEPT_STARTS = 4

def as_key(key: int | jax.Array) -> jax.Array:
    """A typed PRNG key from an integer seed, a typed key or a legacy uint32 key."""
    if isinstance(key, int | np.integer):
        return jax.random.key(int(key))
    if jax.dtypes.issubdtype(key.dtype, jax.dtypes.prng_key):
        return key
    return jax.random.wrap_key_data(key)


#: The chains' start programs of the last few (model, chain count, kind of key and of start).
_STARTS: OrderedDict[tuple, tuple[Any, Any]] = OrderedDict()


def chain_keys(model: Any, key: int | jax.Array, chains: int, given: Any = None
               ) -> tuple[jax.Array, jax.Array, jax.Array, jax.Array]:
    """Per-chain keys (chain c: ``fold_in(master, c)`` split into init, warmup and sampling
    keys, the master key made from ``key`` by :func:`as_key`) and initial positions (``given``,
    or the model's draws with the init keys), computed by one compiled call (op by op, each
    primitive would compile alone: ~1 s of a run's start). The program is kept per model and
    chain count, so a pilot's chains and the run's (PT's ``rungs=auto``) start on one."""
    seed = int(key) if isinstance(key, int | np.integer) else None
    cache_key = (id(model), int(chains), seed is None, given is None)
    found = _STARTS.get(cache_key)
    if found is None or found[0] is not model:

        @jit_once
        def start(key, given):
            master = as_key(key) if seed is None else jax.random.key(key)
            chain = jax.vmap(lambda c: jax.random.fold_in(master, c))(jnp.arange(chains))
            init_keys, warm_keys, sample_keys = jnp.moveaxis(
                jax.vmap(lambda k: jax.random.split(k, 3))(chain), 1, 0)
            positions = jax.vmap(model.init_position)(init_keys) if given is None else given
            return init_keys, warm_keys, sample_keys, positions

        found = _STARTS[cache_key] = (model, start)
        while len(_STARTS) > KEPT_STARTS:
            _STARTS.popitem(last=False)
    _STARTS.move_to_end(cache_key)
    return found[1](np.int64(seed) if seed is not None else key, given)
