"""Metropolis-adjusted Langevin (BlackJAX ``mala``) with proposal sd ε:

    θ′ = θ + (ε²/2) ∇log π(θ) + ε z,    z ~ N(0, I),

accepted with the full proposal ratio q(θ′ → θ)/q(θ → θ′) (seed 003 App. C's Langevin proposal,
read as θ + (ε²/2)g + εz: the printed ε²z is an extraction error, ../shared/seeds/README.md).
BlackJAX writes the same proposal as θ + h g + √(2h) z, so h = ε²/2. One value-and-gradient
evaluation per step (the start point's is cached in the state). Optional dual-averaging
adaptation of ε during warmup only.
"""

from __future__ import annotations

import blackjax
import jax
import jax.numpy as jnp
import numpy as np
from pydantic import Field, PositiveFloat

from tempering.config import Options
from tempering.kernels.adapter import scale_adapter
from tempering.kernels.base import BoundKernel, Kernel, KernelSpec, LogDensity, StepInfo
from tempering.kernels.step_size import dual_averaging_warmup


class MalaOptions(Options):
    """``step_size``: the proposal sd ε (a scalar); ``adapt_step_size`` tunes it in warmup."""

    step_size: PositiveFloat = 0.1
    adapt_step_size: bool = False
    target_accept: float = Field(0.574, gt=0.0, lt=1.0)


def make(logdensity_fn: LogDensity, step_size) -> Kernel:
    """MALA kernel with proposal sd ``step_size`` (BlackJAX's h = ε²/2)."""
    algorithm = blackjax.mala(logdensity_fn, 0.5 * jnp.asarray(step_size) ** 2)

    def step(key, state):
        state, info = algorithm.step(key, state)
        return state, StepInfo(info.acceptance_rate, info.is_accepted, jnp.ones(()),
                               jnp.zeros((), bool))

    return Kernel(algorithm.init, step)


def bind(options: MalaOptions, dim: int) -> BoundKernel:
    del dim

    def factory(logdensity_fn, params):
        return make(logdensity_fn, params["step_size"])

    def warmup(key, logdensity_fn, position, num_steps, params):
        state, step_size, n_evals = dual_averaging_warmup(
            key, lambda mult: make(logdensity_fn, params["step_size"] * mult), position,
            params["step_size"], num_steps, options.target_accept)
        return state, {"step_size": step_size}, n_evals

    params = {"step_size": jax.device_put(np.float64(options.step_size))}
    if not options.adapt_step_size:
        return BoundKernel(factory, params, None)
    return BoundKernel(factory, params, warmup, adapter=scale_adapter(options.target_accept))


SPEC = KernelSpec("mala", MalaOptions, bind,
                  "Metropolis-adjusted Langevin, proposal sd ε (BlackJAX)", gradient=True,
                  single_proposal=True)
