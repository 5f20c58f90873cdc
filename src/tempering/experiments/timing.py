"""Timed chains for the reproductions: compile time apart, each chain timed on its own.

The package driver (:func:`tempering.sample`) times sampling including the first chunk's JAX
compilation. The papers' timings have no compilation, so the reproductions run an algorithm
through its public contract (``init``/``step``/``position``, see :mod:`tempering.algorithms.base`)
in jitted chunks: the chunk function is compiled ahead of time (its compile time reported apart),
and the chains run one after another with one shared compiled function, so each chain's wall time
is measured on its own. No warmup is run: the papers' samplers have fixed tuning parameters.
"""

from __future__ import annotations

import time
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from tempering.algorithms import Algorithm
from tempering.precision import scope


class TimedChains(NamedTuple):
    """Draws (C, S, d), per-draw cost and stats (C, S), and timings.

    ``chunk_seconds[k]`` is the wall time of chunk k (``chunk_draws`` draws), averaged over the
    chains; ``compile_seconds`` is the ahead-of-time compilation of the chunk function.
    """

    draws: np.ndarray
    cost: np.ndarray
    stats: dict[str, np.ndarray]
    chunk_draws: int
    chunk_seconds: list[float]
    compile_seconds: float


def time_chains(algorithm: Algorithm, inits: np.ndarray, draws: int, chunks: int,
                seed: int, *, precision: str) -> TimedChains:
    """Run one chain per row of ``inits`` for ``draws`` steps each (rounded up to a multiple of
    ``chunks``), chain c with key ``fold_in(seed, c)``, step i with ``fold_in(chain key, i)``,
    in the model's ``precision`` (:func:`tempering.precision.scope`: a built sampler's functions
    called by hand run there; outside it, a float32 model's chain in a float64 process stood
    still in ``vdm2014``'s runs)."""
    with scope(precision):
        return _time_chains(algorithm, inits, draws, chunks, seed)


def _time_chains(algorithm: Algorithm, inits: np.ndarray, draws: int, chunks: int,
                 seed: int) -> TimedChains:
    chunk_len = -(-draws // chunks)
    init = jnp.asarray(inits)
    n_chains = init.shape[0]
    master = jax.random.key(seed)
    chain_keys = jax.vmap(lambda c: jax.random.fold_in(master, c))(jnp.arange(n_chains))
    init_keys, sample_keys = jnp.moveaxis(jax.vmap(lambda k: jax.random.split(k, 2))(chain_keys),
                                          1, 0)

    def chunk(key, state, params, start):
        def one_draw(state, index):
            state, info = algorithm.step(jax.random.fold_in(key, index), state, params)
            return state, (algorithm.position(state), info.cost, info.stats)

        return jax.lax.scan(one_draw, state, start + jnp.arange(chunk_len))

    init_fn = jax.jit(algorithm.init)
    state0 = init_fn(init_keys[0], init[0])
    jax.block_until_ready(state0)
    t0 = time.perf_counter()
    compiled = jax.jit(chunk).lower(sample_keys[0], state0, algorithm.params,
                                    jnp.asarray(0)).compile()
    compile_seconds = time.perf_counter() - t0
    positions, costs, stats = [], [], []
    seconds = np.zeros((n_chains, chunks))
    for c in range(n_chains):
        state = init_fn(init_keys[c], init[c])
        parts = []
        for k in range(chunks):
            t0 = time.perf_counter()
            state, out = compiled(sample_keys[c], state, algorithm.params,
                                  jnp.asarray(k * chunk_len))
            jax.block_until_ready(out)
            seconds[c, k] = time.perf_counter() - t0
            parts.append(jax.tree.map(np.asarray, out))
        pos, cost, st = jax.tree.map(lambda *a: np.concatenate(a), *parts)
        positions.append(pos)
        costs.append(cost)
        stats.append(st)
    return TimedChains(np.stack(positions), np.stack(costs),
                       jax.tree.map(lambda *a: np.stack(a), *stats), chunk_len,
                       seconds.mean(axis=0).tolist(), compile_seconds)
