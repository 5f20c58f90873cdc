"""Chains driven by hand for the seed-003 reproduction: vmapped runs advanced in jitted chunks.

The package driver stores every draw; the BNN has 159 010 parameters and the tied-means runs are
10⁶ iterations long, so the reproduction runs an algorithm through its public contract
(``init`` / ``step`` / ``position``, :mod:`tempering.algorithms.base`) itself. One compiled
function advances every run (vmapped) by a *traced* number of steps (a ``fori_loop``), so the
same program serves every chunk length: checkpoints can be log-spaced without recompiling.
Step u of run r uses the key ``fold_in(key_r, u)``, so draws do not depend on the chunking.

While it steps, the loop sums what the figures need and nothing more: the acceptance rate, the
number of moves and their lengths ‖θ′ − θ‖ (the paper's "average step size among accepted
transitions"), an ``observe(θ)`` pytree (counts near the modes, or θ itself for a running mean
of the draws) and, optionally, ``keep`` draws evenly spaced through the chunk (for contours).
Compilation is done ahead of time and timed apart; every chunk's wall time is measured.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

Observe = Callable[[jax.Array], Any]


class Tally(NamedTuple):
    """Sums over one chunk, per run: acceptance, counted cost (full-data evaluations), moves, move
    lengths, ``observe``; kept draws."""

    acceptance: jax.Array
    cost: jax.Array
    moves: jax.Array
    jump: jax.Array
    observed: Any
    kept: jax.Array


class Runs(NamedTuple):
    """The runs' batched states, their keys and the steps made so far (the same for all)."""

    states: Any
    keys: jax.Array
    steps: int


def _zero_observe(position):
    del position
    return jnp.zeros(())


def make_advance(algorithm: Any, observe: Observe | None = None, keep: int = 0):
    """``advance(keys, states, params, start, num) -> (states, Tally)`` for every run at once.

    ``algorithm`` needs ``step(key, state, params) -> (state, info)`` with
    ``info.acceptance_rate`` and ``info.cost``, and ``position(state)``; ``params`` are shared by
    the runs. ``keep`` must not exceed the chunk lengths it is run with.
    """
    observe = observe or _zero_observe

    def one(key, state, params, start, num):
        position = algorithm.position(state)
        zero_obs = jax.tree.map(jnp.zeros_like, observe(position))
        kept = jnp.zeros((keep, *position.shape), position.dtype)

        def body(i, carry):
            state, tally = carry
            old = algorithm.position(state)
            state, info = algorithm.step(jax.random.fold_in(key, start + i), state, params)
            new = algorithm.position(state)
            jump = jnp.sqrt(jnp.sum((new - old) ** 2))
            observed = jax.tree.map(jnp.add, tally.observed, observe(new))
            slots = tally.kept
            if keep:
                slots = slots.at[(i * keep) // num].set(new)
            return state, Tally(tally.acceptance + info.acceptance_rate, tally.cost + info.cost,
                                tally.moves + (jump > 0), tally.jump + jump, observed, slots)

        zero = jnp.zeros(())
        return jax.lax.fori_loop(0, num, body,
                                 (state, Tally(zero, zero, zero, zero, zero_obs, kept)))

    return jax.jit(jax.vmap(one, in_axes=(0, 0, None, None, None)))


class Driver:
    """Runs of one algorithm: start them, advance them chunk by chunk, time every chunk."""

    def __init__(self, algorithm: Any, observe: Observe | None = None, keep: int = 0):
        self.algorithm = algorithm
        self._advance = make_advance(algorithm, observe, keep)
        self._compiled: Any = None
        self.compile_seconds = 0.0

    def start(self, positions: np.ndarray, seed: int) -> Runs:
        """Run r starts at ``positions[r]`` with key ``fold_in(key(seed), r)``."""
        master = jax.random.key(seed)
        keys = jax.vmap(lambda r: jax.random.fold_in(master, r))(
            jnp.arange(positions.shape[0]))
        states = jax.jit(jax.vmap(self.algorithm.init))(keys, jnp.asarray(positions))
        return Runs(states, keys, 0)

    def advance(self, runs: Runs, params: Any, num: int) -> tuple[Runs, Tally, float]:
        """``num`` more steps of every run: the new runs, the chunk's sums, its wall seconds."""
        args = (runs.keys, runs.states, params, jnp.asarray(runs.steps), jnp.asarray(num))
        if self._compiled is None:
            t0 = time.perf_counter()
            self._compiled = self._advance.lower(*args).compile()
            self.compile_seconds = time.perf_counter() - t0
        t0 = time.perf_counter()
        states, tally = self._compiled(*args)
        jax.block_until_ready((states, tally))
        return Runs(states, runs.keys, runs.steps + num), tally, time.perf_counter() - t0

    def positions(self, runs: Runs) -> jax.Array:
        """θ of every run, (runs, dim)."""
        return jax.vmap(self.algorithm.position)(runs.states)


def pilot_params(algorithm: Any, position: np.ndarray, steps: int, seed: int) -> Any:
    """The algorithm's parameters after ``steps`` of its own warmup from ``position`` (a pilot
    run, not counted in any figure): how the reproduction tunes a step size to the paper's
    acceptance rate before the runs start afresh."""
    key = jax.random.key(seed)
    init_key, warm_key = jax.random.split(key)
    state = jax.jit(algorithm.init)(init_key, jnp.asarray(position))
    warm = jax.jit(lambda k, s, p: algorithm.warmup(k, s, p, steps))
    _, params, _ = warm(warm_key, state, algorithm.params)
    return jax.tree.map(np.asarray, params)


def log_checkpoints(total: int, count: int, first: int = 1) -> np.ndarray:
    """About ``count`` distinct step counts from ``first`` to ``total``, log-spaced."""
    points = np.unique(np.round(np.geomspace(first, total, count)).astype(int))
    return points[points >= first]
