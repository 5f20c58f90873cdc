"""Plain MCMC: one inner kernel on the target, the baseline every tempering method is compared
with. Every built-in kernel is also a sampler of its own name (``--sampler nuts``), with the
kernel's options as the sampler's: :func:`spec_for` makes its spec. A gradient kernel whose step
adapts only when asked (``hmc``, ``mala``: the seeds' fixed ε = 0.01 is their kernel default)
adapts in warmup by default as a sampler of its own (``adapt_step_size=false`` keeps ε), as the
tempering samplers' inner kernels do: at ε = 0.01 HMC never reached a tall posterior (logistic
regression on 10⁵ rows, ``bench tall``: error 105 posterior sds).
"""

from __future__ import annotations

from functools import partial
from typing import Any

import jax.numpy as jnp
from pydantic import create_model

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


def standalone_options(kernel: KernelSpec) -> type[Any]:
    """The kernel's options as a sampler's: ``adapt_step_size`` true by default for a gradient
    kernel that has it (module docstring); the kernel's own class otherwise."""
    if not kernel.gradient or "adapt_step_size" not in kernel.options.model_fields:
        return kernel.options
    return create_model(kernel.options.__name__, __base__=kernel.options,
                        __doc__=kernel.options.__doc__, adapt_step_size=(bool, True))


def spec_for(kernel: KernelSpec) -> SamplerSpec:
    """The sampler that runs ``kernel`` alone on the target, under the kernel's name."""
    return SamplerSpec(
        name=kernel.name,
        summary=kernel.summary,
        options=standalone_options(kernel),
        build=partial(single_kernel, spec=kernel),
        stats=KERNEL_STATS,
    )
