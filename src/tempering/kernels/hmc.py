"""Hamiltonian Monte Carlo with fixed step size ε and L leapfrog steps (BlackJAX ``hmc``).

The seeds use ε = 0.01 with L = 10 (Gaussian mean) or L = 5 (GP). Identity mass matrix. Each step
makes L value-and-gradient evaluations (BlackJAX caches the start point's). Optional dual-averaging
adaptation of ε during warmup only; ε is frozen afterwards.
"""

from __future__ import annotations

import blackjax
import jax.numpy as jnp
from pydantic import Field, PositiveFloat, PositiveInt

from tempering.config import Options
from tempering.kernels.base import BoundKernel, Kernel, KernelSpec, LogDensity, StepInfo
from tempering.kernels.step_size import dual_averaging_warmup


class HmcOptions(Options):
    """``step_size`` ε, ``num_steps`` L; ``adapt_step_size`` tunes ε in warmup only."""

    step_size: PositiveFloat = 0.01
    num_steps: PositiveInt = 10
    adapt_step_size: bool = False
    target_accept: float = Field(0.8, gt=0.0, lt=1.0)


def make(logdensity_fn: LogDensity, step_size, num_steps: int = 10,
         inverse_mass_matrix=None) -> Kernel:
    """HMC kernel: ε = ``step_size``, L = ``num_steps``, diagonal inverse mass (default I)."""

    def init(position):
        return blackjax.hmc.init(position, logdensity_fn)

    def step(key, state):
        imm = jnp.ones_like(state.position) if inverse_mass_matrix is None else inverse_mass_matrix
        algorithm = blackjax.hmc(logdensity_fn, step_size, imm, num_steps)
        state, info = algorithm.step(key, state)
        return state, StepInfo(info.acceptance_rate, info.is_accepted,
                               jnp.asarray(num_steps, jnp.float64), info.is_divergent)

    return Kernel(init, step)


def bind(options: HmcOptions, dim: int) -> BoundKernel:
    def factory(logdensity_fn, params):
        return make(logdensity_fn, params["step_size"], options.num_steps)

    def warmup(key, logdensity_fn, position, num_steps, params):
        state, step_size, n_evals = dual_averaging_warmup(
            key, lambda mult: make(logdensity_fn, params["step_size"] * mult, options.num_steps),
            position, params["step_size"], num_steps, options.target_accept)
        return state, {"step_size": step_size}, n_evals

    return BoundKernel(factory, {"step_size": jnp.asarray(options.step_size, jnp.float64)},
                       warmup if options.adapt_step_size else None)


SPEC = KernelSpec(
    "hmc",
    HmcOptions,
    bind,
    "HMC, fixed step size and leapfrog steps (BlackJAX)",
    gradient=True,
)
