"""Plain MCMC: one inner kernel on the target, the baseline every tempering method is compared
with. Every built-in kernel is also a sampler of its own name (``--sampler nuts``), with the
kernel's options as the sampler's: :func:`spec_for` makes its spec.
"""

from __future__ import annotations

from functools import partial

import jax.numpy as jnp

from tempering.algorithms.base import Algorithm, AlgorithmInfo, Stat
from tempering.algorithms.spec import SamplerSpec
from tempering.config import Options
from tempering.kernels.base import KernelSpec, evals_and_acceptance
from tempering.ladders import target_rung
from tempering.models.base import Model
from tempering.numerics import run_steps

DIVERGING = Stat("diverging", (), "whether a gradient-based trajectory diverged")
N_EVALS = Stat("n_evals", (), "log-density evaluations the step made")
KERNEL_STATS = (DIVERGING, N_EVALS)


def single_kernel(model: Model, options: Options, *, spec: KernelSpec) -> Algorithm:
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
            kernel = bound.make(rung.log_density, params)
            state, (n_evals, _) = run_steps(kernel.step, key, state, num_steps,
                                            evals_and_acceptance)
        return state, params, n_evals * rung.cost

    def step(key, state, params):
        state, info = bound.make(rung.log_density, params).step(key, state)
        cost = info.n_evals * rung.cost
        stats = {DIVERGING.name: info.diverging, N_EVALS.name: info.n_evals}
        return state, AlgorithmInfo(jnp.asarray(info.acceptance_rate, float), cost,
                                    state.logdensity, stats)

    return Algorithm(init, warmup, step, lambda state: state.position, bound.params,
                     KERNEL_STATS)


def spec_for(kernel: KernelSpec) -> SamplerSpec:
    """The sampler that runs ``kernel`` alone on the target, under the kernel's name."""
    return SamplerSpec(
        name=kernel.name,
        summary=kernel.summary,
        options=kernel.options,
        build=partial(single_kernel, spec=kernel),
        stats=KERNEL_STATS,
    )
