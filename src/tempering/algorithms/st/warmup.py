"""ST's warmup as scans of the run's own loop body (:class:`~tempering.algorithms.base.Scans`),
so that one compiled program runs the warmup and the sampling (issue 44) and the ST step is
compiled once.

A warmup of W scans (:mod:`~tempering.algorithms.st.sampler`'s docstring has the reasons):

1. ``begin``: with ``pilot``, every rung's inner kernel on its own for P = min(⌊W/4⌋,
   ``PILOT_CAP``) adaptation or burn-in steps and P recorded steps (:func:`pilot`), which give the
   starting pseudo-prior by thermodynamic integration and the adapted inner parameters; the chain
   restarts at rung 0 where the target rung's pilot ended. A sampling call skips it (a ``cond``
   on ``warming``).
2. scans t = 0 … ⌊W/2⌋ − 1: ST iterations, each followed by the stochastic-approximation update
   of the pseudo-prior at round t + 1 with gain c0/(t + 1 + n0)
   (:func:`~tempering.algorithms.st.pseudo_prior.sa_update`);
3. scans t = ⌊W/2⌋ … W − 1: ST iterations with the pseudo-prior fixed, counting the rungs
   visited (the carry); at the last, the occupation-count correction
   (:func:`~tempering.algorithms.st.pseudo_prior.count_correction`), frozen for sampling.

A sampling scan is the algorithm's ``step`` with the parameters unchanged.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp

from tempering.algorithms.base import Scans, when_warming
from tempering.algorithms.st.family import TemperedFamily
from tempering.algorithms.st.pseudo_prior import (
    count_correction,
    pilot_log_pseudo_prior,
    sa_update,
)
from tempering.kernels.base import evals_and_acceptance
from tempering.numerics import like, run_steps

Array = jax.Array
PILOT_CAP = 1000  # most pilot steps per phase (adaptation or burn-in, then recording) per rung


def pilot_steps(num_steps: int, with_pilot: bool) -> int:
    """P = min(⌊W/4⌋, ``PILOT_CAP``) with the pilot, else 0."""
    return min(num_steps // 4, PILOT_CAP) if with_pilot else 0


def st_scans(family: TemperedFamily, ks: Array, step: Callable, with_pilot: bool,
             gain: tuple[float, float], restart: Callable[[Any], Any]) -> Scans:
    """ST's warmup and sampling as one loop body over ``step`` (module docstring); ``gain`` is
    (c0, n0), ``restart`` makes the ST state at rung 0 from the target rung's inner state."""
    c0, n0 = gain
    m = int(ks.shape[0])

    def begin(key, state, params, warming, num_steps):
        counts = jnp.zeros(m)
        n_pilot = pilot_steps(num_steps, with_pilot)
        if n_pilot == 0:
            return state, params, counts, jnp.zeros(())

        def run():
            inner, tuned, cost = pilot(family, ks, key, state.inner.position, params, n_pilot)
            return restart(inner), tuned, cost

        state, params, cost = when_warming(warming, run, state, params)
        return state, params, counts, cost

    def scan(key, t, state, params, counts, warming, num_steps):
        state, info = step(key, state, params)

        def tune():
            lpp = params["log_pseudo_prior"]
            counting = t >= num_steps // 2
            tuned = sa_update(lpp, state.rung, (t + 1).astype(lpp.dtype), c0, n0)
            seen = counts + jnp.where(counting, jax.nn.one_hot(state.rung, m), 0.0)
            lpp = jnp.where(counting, lpp, tuned)
            lpp = jnp.where(t == num_steps - 1, count_correction(lpp, seen), lpp)
            return like({**params, "log_pseudo_prior": lpp}, params), seen

        params, counts = jax.lax.cond(warming, tune, lambda: (params, counts))
        return state, params, counts, info

    return Scans(begin, scan)


def pilot(family: TemperedFamily, ks: Array, key: Array, position: Any, params: dict,
          num_steps: int) -> tuple[Any, dict, Array]:
    """Every rung's inner kernel on its own (vmapped over rungs): adapt (or burn in), then record
    U; the pilot pseudo-prior from the mean energies, the adapted inner parameters, the target
    rung's inner state and the cost."""

    def one_rung(key, k, rung_params):
        k_warm, k_run = jax.random.split(key)
        if family.warmup is not None:
            state, rung_params, evals = family.warmup(k_warm, k, position, num_steps,
                                                      rung_params)
        else:
            kernel = family.make(k, rung_params)
            state, (evals, _) = run_steps(kernel.step, k_warm, kernel.init(position),
                                          num_steps, evals_and_acceptance)
        kernel = family.make(k, rung_params)

        def body(carry, step_key):
            state, evals = carry
            state, info = kernel.step(step_key, state)
            energy, energy_evals = family.energy(state, k)
            return (state, evals + info.n_evals + energy_evals), energy

        (state, evals), energies = jax.lax.scan(body, (state, evals),
                                                jax.random.split(k_run, num_steps))
        return state, rung_params, evals, jnp.mean(energies)

    states, tuned, evals, means = jax.vmap(one_rung)(jax.random.split(key, ks.shape[0]), ks,
                                                     params["inner"])
    start = jax.tree.map(lambda a: a[0], states)
    params = {"inner": tuned, "log_pseudo_prior": pilot_log_pseudo_prior(ks, means)}
    return start, params, jnp.sum(evals) * family.eval_cost
