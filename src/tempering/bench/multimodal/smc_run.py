"""BlackJAX's adaptive tempered SMC (``blackjax.adaptive_tempered_smc``) at its typical settings.

Particles start as exact prior draws (the target's prior transform of uniform draws); each stage
picks the next β so that the incremental weights keep an ESS of half the particles
(``target_ess=0.5``, bisection), resamples systematically and moves every particle with
``moves`` random-walk Metropolis steps (BlackJAX's default is 10; ``bench multimodal`` picks the
number per target by a sweep, :mod:`.smc_sweep`) whose Gaussian proposal has
the particles' covariance scaled by 2.38²/d (Roberts & Rosenthal's optimal scaling), re-tuned
from the particles after every stage (``blackjax.inner_kernel_tuning`` with
``particles_covariance_matrix``; the sampling book's recipe). The run stops when β reaches 1.

log Z is the sum of the stages' log-likelihood increments; the final particles and weights are
the draws (one weighted population: no prefixes, so its error-versus-time curve is one point).
Compilation (one stage's program, ahead of time) is timed apart. Evaluations: per stage, the
particles' log likelihoods for the ESS search and the reweighting, plus one log-density
evaluation per particle per RWM step.

Precision: everything runs in the model's (``Target.in_precision``: JAX's ``enable_x64`` scope,
as the library's runs do; float32 for every target here); the particles are made in it, and
log Z is summed on the host in float64 from the stages' increments.
"""

from __future__ import annotations

import time
from typing import Any

import blackjax
import blackjax.smc.resampling as resampling
import jax
import jax.numpy as jnp
import numpy as np
from blackjax.smc import extend_params
from blackjax.smc.tuning.from_particles import particles_covariance_matrix

from tempering.bench.multimodal.result import MethodRun
from tempering.bench.multimodal.sizes import Size
from tempering.bench.multimodal.targets import Target

TARGET_ESS = 0.5


def _rwm_step(key, state, logdensity, sigma):
    """One RWM step with proposal sd matrix ``sigma`` (θ' = θ + σ z)."""
    kernel = blackjax.additive_step_random_walk.build_kernel()
    return kernel(key, state, logdensity, blackjax.mcmc.random_walk.normal(sigma))


def _proposal(particles: jax.Array) -> jax.Array:
    """2.38/√d times a Cholesky factor of the particles' covariance, jittered by 10⁻⁹ of its
    trace (ten float32 epsilons in float32, where 10⁻⁹ would be lost in rounding)."""
    dim = particles.shape[-1]
    cov = jnp.atleast_2d(particles_covariance_matrix(particles))
    jitter = max(1e-9, 10 * float(jnp.finfo(cov.dtype).eps))
    chol = jnp.linalg.cholesky(cov + jitter * jnp.eye(dim) * jnp.maximum(jnp.trace(cov), 1e-12))
    return (2.38 / np.sqrt(dim)) * chol


def _algorithm(target: Target, moves: int):
    model = target.model
    return blackjax.inner_kernel_tuning(
        smc_algorithm=blackjax.adaptive_tempered_smc,
        logprior_fn=model.log_prior, loglikelihood_fn=model.log_lik,
        mcmc_step_fn=_rwm_step, mcmc_init_fn=blackjax.rmh.init,
        resampling_fn=resampling.systematic,
        mcmc_parameter_update_fn=lambda key, state, info: extend_params(
            {"sigma": _proposal(state.particles)}),
        initial_parameter_value=extend_params({"sigma": jnp.eye(model.dim)}),
        num_mcmc_steps=moves, target_ess=TARGET_ESS)


def run_smc(target: Target, size: Size, seed: int, moves: int | None = None) -> MethodRun:
    """Adaptive tempered SMC with ``size.particles`` particles, each moved ``moves`` times per
    stage (default ``size.smc_steps``), in the model's precision (module docstring)."""
    with target.in_precision():
        return _run(target, size, seed, size.smc_steps if moves is None else int(moves))


def _run(target: Target, size: Size, seed: int, moves: int) -> MethodRun:
    start = time.perf_counter()
    rng = np.random.default_rng(seed)
    n, dim = size.particles, target.model.dim
    uniform = rng.uniform(1e-12, 1 - 1e-12, (n, dim))
    particles = jnp.asarray(target.prior_transform(uniform), float)
    algorithm = _algorithm(target, moves)
    state = algorithm.init(particles)
    state = state._replace(parameter_override=extend_params({"sigma": _proposal(particles)}))
    key = jax.random.key(seed)
    compile_start = time.perf_counter()
    step = jax.jit(algorithm.step).lower(key, state).compile()
    compiled = time.perf_counter() - compile_start
    sampling_start = time.perf_counter()
    log_z, stages, betas, acceptance = 0.0, 0, [], []
    while float(state.sampler_state.tempering_param) < 1.0 and stages < 10_000:
        key, sub = jax.random.split(key)
        state, info = step(sub, state)
        log_z += float(info.log_likelihood_increment)
        stages += 1
        betas.append(float(state.sampler_state.tempering_param))
        acceptance.append(float(jnp.mean(info.update_info.is_accepted)))
    sampling = time.perf_counter() - sampling_start
    final = state.sampler_state
    weights = np.asarray(final.weights, dtype=float)
    info_out: dict[str, Any] = {"stages": stages, "particles": n, "steps": moves,
                                "dtype": str(final.particles.dtype), "betas": betas,
                                "acceptance": acceptance}
    return MethodRun(
        "smc", np.asarray(final.particles, dtype=float)[None], weights / weights.sum(), log_z,
        None,
        {"compile": compiled, "sampling": sampling, "total": time.perf_counter() - start},
        float(stages * n * (moves + 2)), "density", info_out)
