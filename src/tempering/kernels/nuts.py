"""The No-U-Turn sampler with BlackJAX's window adaptation (step size and diagonal mass matrix).

Adaptation runs during warmup only; sampling uses the frozen step size and mass matrix. A step's
evaluations are its number of integration steps.
"""

from __future__ import annotations

import blackjax
import jax
import jax.numpy as jnp
import numpy as np
from pydantic import Field, PositiveInt

from tempering.config import Options
from tempering.kernels.adapter import window_adapter
from tempering.kernels.base import BoundKernel, Kernel, KernelSpec, LogDensity, StepInfo


class NutsOptions(Options):
    """``target_accept`` for window adaptation; ``max_tree_depth`` caps trajectory doublings."""

    target_accept: float = Field(0.8, gt=0.0, lt=1.0)
    max_tree_depth: PositiveInt = 10
    step_size: float = Field(1.0, gt=0.0)
    adapt: bool = True


def make(logdensity_fn: LogDensity, step_size, inverse_mass_matrix,
         max_tree_depth: int = 10) -> Kernel:
    """NUTS kernel with a frozen step size and diagonal inverse mass matrix."""
    algorithm = blackjax.nuts(logdensity_fn, step_size, inverse_mass_matrix,
                              max_num_doublings=max_tree_depth)

    def step(key, state):
        state, info = algorithm.step(key, state)
        return state, StepInfo(info.acceptance_rate, jnp.ones((), bool),
                               info.num_integration_steps.astype(float), info.is_divergent)

    return Kernel(algorithm.init, step)


def bind(options: NutsOptions, dim: int) -> BoundKernel:
    def factory(logdensity_fn, params):
        return make(logdensity_fn, params["step_size"], params["inverse_mass_matrix"],
                    options.max_tree_depth)

    def warmup(key, logdensity_fn, position, num_steps, params):
        adaptation = blackjax.window_adaptation(
            blackjax.nuts, logdensity_fn, target_acceptance_rate=options.target_accept,
            initial_step_size=params["step_size"], max_num_doublings=options.max_tree_depth)
        (state, tuned), info = adaptation.run(key, position, num_steps)
        n_evals = jnp.sum(info.info.num_integration_steps).astype(float)
        return state, {"step_size": jnp.asarray(tuned["step_size"], float),
                       "inverse_mass_matrix": tuned["inverse_mass_matrix"]}, n_evals

    params = jax.device_put({"step_size": np.asarray(options.step_size, np.float64),
                             "inverse_mass_matrix": np.ones(dim)})  # jnp: a program each
    if not options.adapt:
        return BoundKernel(factory, params, None)
    return BoundKernel(factory, params, warmup, adapter=window_adapter(options.target_accept))


SPEC = KernelSpec("nuts", NutsOptions, bind,
                  "No-U-Turn sampler with window adaptation in warmup (BlackJAX)", gradient=True)
