"""Plain MCMC: one inner kernel on the target, the baseline every tempering method is compared
with."""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp

from tempering.algorithms.base import Algorithm, AlgorithmInfo
from tempering.kernels.base import KernelSpec, run_kernel
from tempering.ladders import target_rung
from tempering.models.base import Model


def single_kernel(model: Model, options: Any, *, spec: KernelSpec) -> Algorithm:
    """The algorithm that runs ``spec``'s kernel with ``options`` on ``model``'s posterior."""
    rung = target_rung(model)
    bound = spec.bind(options, model.dim)

    def init(key, position):
        del key
        return bound.make(rung.log_density, bound.params).init(position)

    def warmup(key, state, params, num_steps):
        if bound.warmup is not None:
            state, params, n_evals = bound.warmup(key, rung.log_density, state.position,
                                                  num_steps, params)
        else:
            state, n_evals = run_kernel(key, bound.make(rung.log_density, params), state,
                                        num_steps)
        return state, params, n_evals * rung.cost

    def step(key, state, params):
        state, info = bound.make(rung.log_density, params).step(key, state)
        cost = info.n_evals * rung.cost
        stats = {"diverging": info.diverging, "n_evals": info.n_evals}
        return state, AlgorithmInfo(jnp.asarray(info.acceptance_rate, jnp.float64), cost,
                                    state.logdensity, stats)

    return Algorithm(spec.name, init, warmup, step, lambda state: state.position, bound.params,
                     options.model_dump())
