"""Plain MCMC: one inner kernel on the target, the baseline every tempering method is compared
with. Every built-in kernel is also a sampler of its own name (``--sampler nuts``), with the
kernel's options as the sampler's: :func:`spec_for` makes its spec. A gradient kernel whose step
adapts only when asked (``hmc``, ``mala``: the seeds' fixed ε = 0.01 is their kernel default)
adapts in warmup by default as a sampler of its own (``adapt_step_size=false`` keeps ε), as the
tempering samplers' inner kernels do: at ε = 0.01 HMC never reached a tall posterior (logistic
regression on 10⁵ rows, ``bench tall``: error 105 posterior sds).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import jax
import jax.numpy as jnp
from pydantic import create_model

from tempering.algorithms.base import (
    Algorithm,
    AlgorithmInfo,
    Scans,
    Stat,
    step_scans,
    warmup_by_scans,
)
from tempering.algorithms.spec import SamplerSpec
from tempering.config import Options
from tempering.kernels.adapter import Adapter, stages
from tempering.kernels.base import KernelSpec
from tempering.ladders import target_rung
from tempering.models.base import Model

DIVERGING = Stat("diverging", (), "whether a gradient-based trajectory diverged")
N_EVALS = Stat("n_evals", (), "log-density evaluations the step made")
KERNEL_STATS = (DIVERGING, N_EVALS)


def single_kernel(model: Model, options: Options, *, spec: KernelSpec) -> Algorithm:
    """The algorithm that runs ``spec``'s kernel with ``options`` on ``model``'s posterior."""
    rung = target_rung(model)
    bound = spec.bind(options, model.dim)

    def step(key, state, params):
        state, info = bound.make(rung.log_density, params).step(key, state)
        cost = info.n_evals * rung.cost
        stats = {DIVERGING.name: info.diverging, N_EVALS.name: info.n_evals}
        return state, AlgorithmInfo(jnp.asarray(info.acceptance_rate, float), cost,
                                    state.logdensity, stats)

    scans = step_scans(step) if bound.adapter is None else kernel_scans(bound.adapter, step)

    def init(key, position):
        del key
        return bound.make(rung.log_density, bound.params).init(position)

    return Algorithm(init, partial(warmup_by_scans, scans), step, lambda state: state.position,
                     bound.params, KERNEL_STATS, scans=scans)


def kernel_scans(adapter: Adapter, step: Callable) -> Scans:
    """A tuned kernel's warmup and sampling as one loop body
    (:class:`~tempering.algorithms.base.Scans`), so one program runs both: warming, each step
    runs with the parameters ``adapter`` has in force and updates it (Stan's windows over the
    warmup's ``num_steps``, :func:`~tempering.kernels.adapter.stages`), and the last warmup
    step freezes them; sampling, a step is ``step``'s. The kernel is compiled once, not a second
    time inside BlackJAX's ``window_adaptation`` loop; the algorithm's ``warmup`` runs these
    scans too (:func:`~tempering.algorithms.base.warmup_by_scans`)."""

    def begin(key, state, params, warming, num_steps):
        del key, warming, num_steps
        return state, params, adapter.init(params), jnp.zeros(())

    def scan(key, t, state, params, tuning, warming, num_steps):
        schedule = jax.tree.map(jnp.asarray, stages(num_steps))
        in_force = jax.tree.map(lambda a, b: jnp.where(warming, a, b),
                                adapter.in_force(tuning, params), params)
        state, info = step(key, state, in_force)

        def tuned():
            stage = jax.tree.map(lambda a: a[jnp.clip(t, 0, num_steps - 1)], schedule)
            updated = adapter.update(tuning, stage, state.position, info.acceptance_rate)
            frozen = jax.lax.cond(t == num_steps - 1, lambda: adapter.final(updated, params),
                                  lambda: params)
            return frozen, updated

        params, tuning = jax.lax.cond(warming, tuned, lambda: (params, tuning))
        return state, params, tuning, info

    return Scans(begin, scan)


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
