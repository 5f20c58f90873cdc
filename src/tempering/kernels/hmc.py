"""Hamiltonian Monte Carlo with fixed step size ε and L leapfrog steps: BlackJAX ``hmc``'s
transition (its metric, integrator and proposal), its momentum and acceptance drawn at once
(:func:`one_draw_step`).

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
        state, info = one_draw_step(key, state, logdensity_fn, step_size, imm, num_steps)
        return state, StepInfo(info.acceptance_rate, info.is_accepted,
                               jnp.asarray(num_steps, float), info.is_divergent)

    return Kernel(init, step)


def one_draw_step(key, state, logdensity_fn: LogDensity, step_size, inverse_mass_matrix,
                  num_steps):
    """One HMC transition as BlackJAX's ``hmc`` kernel makes it (its metric, velocity Verlet,
    ``hmc_proposal``: the same transition), its randomness drawn at once: d + 1 uniforms V on
    (−1, 1) from ``key``, the momentum p = √2 erf⁻¹(V_{1:d}) / √m (``jax.random.normal``'s
    own transform, scaled as BlackJAX's diagonal metric scales it) and the acceptance
    U = (V_{d+1} + 1)/2 < min(1, e^{−ΔH}). Written here, not taken whole from BlackJAX, because
    its kernel splits the key and draws the momentum and the acceptance apart: three copies of
    Threefry's rounds in a compiled program where this makes one (about 0.15 s of XLA's compile
    each on 2 cores; ``tests/pt/test_pt_programs.py`` counts them)."""
    position = state.position
    metric = blackjax.mcmc.metrics.default_metric(inverse_mass_matrix)
    integrator = blackjax.mcmc.integrators.velocity_verlet(logdensity_fn, metric.kinetic_energy)
    dtype = position.dtype
    lowest = np.nextafter(np.array(-1.0, dtype), np.array(0.0, dtype))  # as jax.random.normal
    draws = jax.random.uniform(key, (position.shape[-1] + 1,), dtype, minval=lowest, maxval=1.0)
    normal = np.array(np.sqrt(2.0), dtype) * jax.lax.erf_inv(draws[:-1])
    momentum = normal * jnp.sqrt(jnp.reciprocal(inverse_mass_matrix))
    uniform = 0.5 * (draws[-1] + 1.0)

    def accept_below(rng_key, log_p_accept, current, proposal):
        del rng_key  # the acceptance's uniform was drawn with the momentum
        p_accept = jnp.clip(jnp.exp(log_p_accept), max=1)
        accepted = uniform < p_accept
        chosen = jax.tree.map(lambda a, b: jnp.where(accepted, a, b), proposal, current)
        return chosen, (accepted, p_accept, None)

    generate = blackjax.mcmc.hmc.hmc_proposal(
        integrator, metric.kinetic_energy, step_size, num_steps, sample_proposal=accept_below)
    start = blackjax.mcmc.integrators.IntegratorState(position, momentum, state.logdensity,
                                                      state.logdensity_grad)
    proposal, info, _ = generate(key, start)
    return blackjax.mcmc.hmc.HMCState(proposal.position, proposal.logdensity,
                                      proposal.logdensity_grad), info


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
