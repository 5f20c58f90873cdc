"""Hamiltonian Monte Carlo with fixed step size ε and L leapfrog steps (BlackJAX ``hmc``).

The seeds use ε = 0.01 with L = 10 (Gaussian mean) or L = 5 (GP), identity mass matrix. Each step
makes L value-and-gradient evaluations (BlackJAX caches the start point's). With
``adapt_step_size`` warmup tunes ε, and with ``adapt_mass_matrix`` (on by default when ε adapts) a
diagonal inverse mass matrix too, by BlackJAX's Stan-style window adaptation (dual averaging of ε,
variances from expanding windows); both are frozen afterwards. Inside a tempering sampler each rung
adapts its own.
"""

from __future__ import annotations

import blackjax
import jax
import jax.numpy as jnp
import numpy as np
from pydantic import Field, PositiveFloat, PositiveInt

from tempering.config import Options
from tempering.kernels.adapter import scale_adapter, window_adapter
from tempering.kernels.base import BoundKernel, Kernel, KernelSpec, LogDensity, StepInfo
from tempering.kernels.step_size import dual_averaging_warmup


class HmcOptions(Options):
    """``step_size`` ε, ``num_steps`` L; ``adapt_step_size`` tunes ε in warmup only."""

    step_size: PositiveFloat = 0.01
    num_steps: PositiveInt = 10
    adapt_step_size: bool = False
    adapt_mass_matrix: bool = True
    target_accept: float = Field(0.8, gt=0.0, lt=1.0)


def make(logdensity_fn: LogDensity, step_size, num_steps: int | jax.Array = 10,
         inverse_mass_matrix=None) -> Kernel:
    """HMC kernel: ε = ``step_size``, L = ``num_steps`` (a number, or traced: BlackJAX's
    integration loop then runs as a ``while``), diagonal inverse mass (default I)."""

    def init(position):
        return blackjax.hmc.init(position, logdensity_fn)

    def step(key, state):
        imm = (jnp.ones_like(state.position) if inverse_mass_matrix is None
               else jnp.asarray(inverse_mass_matrix))
        algorithm = blackjax.hmc(logdensity_fn, step_size, imm, num_steps)
        state, info = algorithm.step(key, state)
        return state, StepInfo(info.acceptance_rate, info.is_accepted,
                               jnp.asarray(num_steps, float), info.is_divergent)

    return Kernel(init, step)


def bind(options: HmcOptions, dim: int) -> BoundKernel:
    def factory(logdensity_fn, params):  # a tempering sampler may set a scan's num_steps
        return make(logdensity_fn, params["step_size"],
                    params.get("num_steps", options.num_steps), params["inverse_mass_matrix"])

    def warmup(key, logdensity_fn, position, num_steps, params):
        if options.adapt_mass_matrix:
            return window_warmup(key, logdensity_fn, position, num_steps, params,
                                 options.num_steps, options.target_accept)
        imm = params["inverse_mass_matrix"]
        state, step_size, n_evals = dual_averaging_warmup(
            key, lambda mult: make(logdensity_fn, params["step_size"] * mult, options.num_steps,
                                   imm), position, params["step_size"], num_steps,
            options.target_accept)
        return state, {"step_size": step_size, "inverse_mass_matrix": imm}, n_evals

    params = jax.device_put({"step_size": np.asarray(options.step_size, np.float64),
                             "inverse_mass_matrix": np.ones(dim)})  # jnp: a program each
    if not options.adapt_step_size:
        return BoundKernel(factory, params, None)
    adapter = (window_adapter if options.adapt_mass_matrix else scale_adapter)(
        options.target_accept)
    return BoundKernel(factory, params, warmup, adapter=adapter)


def window_warmup(key, logdensity_fn: LogDensity, position, num_steps: int, params,
                  leapfrog_steps: int, target_accept: float):
    """ε and a diagonal inverse mass matrix by BlackJAX's window adaptation (warmup only);
    returns the last state, the tuned parameters and the evaluations (L per step)."""
    adaptation = blackjax.window_adaptation(
        blackjax.hmc, logdensity_fn, is_mass_matrix_diagonal=True,
        initial_step_size=params["step_size"], target_acceptance_rate=target_accept,
        num_integration_steps=leapfrog_steps)
    (state, tuned), _ = adaptation.run(key, position, num_steps)
    n_evals = jnp.asarray(float(num_steps * leapfrog_steps), float)
    return state, {"step_size": jnp.asarray(tuned["step_size"], float),
                   "inverse_mass_matrix": jnp.asarray(tuned["inverse_mass_matrix"],
                                                      float)}, n_evals


SPEC = KernelSpec(
    "hmc",
    HmcOptions,
    bind,
    "HMC, fixed step size and leapfrog steps (BlackJAX)",
    gradient=True,
)
