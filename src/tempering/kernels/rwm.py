"""Random-walk Metropolis with a Gaussian proposal θ′ = θ + σ ⊙ ε, ε ~ N(0, I) (BlackJAX ``rmh``).

Seed 000 §4.3 uses σ_m = 0.1 β_m^(−1/2) on rung m: the spec's ``scale_for_rung``, which the
tempering samplers apply through :meth:`~tempering.kernels.base.KernelSpec.rung_params`. One
log-density evaluation per step. Optional dual-averaging adaptation of σ during warmup only.
"""

from __future__ import annotations

import blackjax
import jax.numpy as jnp
import numpy as np
from pydantic import Field, PositiveFloat

from tempering.config import Options
from tempering.kernels.adapter import scale_adapter
from tempering.kernels.base import BoundKernel, Kernel, KernelSpec, LogDensity, StepInfo, as_vector
from tempering.kernels.step_size import dual_averaging_warmup
from tempering.numerics import array_module


class RwmOptions(Options):
    """``step_size``: proposal standard deviation σ (scalar or one per coordinate)."""

    step_size: PositiveFloat | list[PositiveFloat] = 0.1
    adapt_step_size: bool = False
    target_accept: float = Field(0.234, gt=0.0, lt=1.0)


def make(logdensity_fn: LogDensity, step_size) -> Kernel:
    """Gaussian random-walk Metropolis kernel with per-coordinate scale ``step_size``."""
    algorithm = blackjax.normal_random_walk(logdensity_fn, jnp.asarray(step_size))

    def step(key, state):
        state, info = algorithm.step(key, state)
        return state, StepInfo(info.acceptance_rate, info.is_accepted, jnp.ones(()),
                               jnp.zeros((), bool))

    return Kernel(algorithm.init, step)


def bind(options: RwmOptions, dim: int) -> BoundKernel:
    def factory(logdensity_fn, params):
        return make(logdensity_fn, params["step_size"])

    def warmup(key, logdensity_fn, position, num_steps, params):
        state, step_size, n_evals = dual_averaging_warmup(
            key, lambda mult: make(logdensity_fn, params["step_size"] * mult), position,
            params["step_size"], num_steps, options.target_accept)
        return state, {"step_size": step_size}, n_evals

    params = {"step_size": as_vector(options.step_size, dim, "step_size")}
    if not options.adapt_step_size:
        return BoundKernel(factory, params, None)
    return BoundKernel(factory, params, warmup, adapter=scale_adapter(options.target_accept))


def scale_for_rung(params, betas):
    """σ_m = σ β_m^(−1/2) on rung m (seed 000 §4.3); a prior rung (β = 0) takes the scale of the
    smallest positive β."""
    xp = array_module(params, betas)  # NumPy on a builder's numbers: no compiled program
    betas = xp.asarray(betas, float)
    floor = xp.min(xp.where(betas > 0, betas, np.inf))
    scale = xp.maximum(betas, floor) ** -0.5
    return {**params, "step_size": params["step_size"] * scale[:, None]}


SPEC = KernelSpec("rwm", RwmOptions, bind, "random-walk Metropolis, Gaussian proposal (BlackJAX)",
                  scale_for_rung, single_proposal=True)
