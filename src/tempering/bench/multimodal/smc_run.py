"""BlackJAX's adaptive tempered SMC (``blackjax.smc.adaptive_tempered``) at its typical settings.

Particles start as exact prior draws (the target's prior transform of uniform draws); each stage
picks the next β so that the incremental weights keep an ESS of half the particles
(``target_ess=0.5``, bisection), resamples systematically and moves every particle with
``moves`` random-walk Metropolis steps (BlackJAX's default is 10; ``bench multimodal`` picks the
number per target by a sweep, :mod:`.smc_sweep`). The proposal is the particles' covariance
scaled by 2.38²/d (Roberts & Rosenthal's optimal scaling; BlackJAX's
``particles_covariance_matrix``, recomputed before every stage) times a scale that follows the
moves' acceptance: after each stage it is multiplied by acceptance/0.234, clipped to [0.1, 3]
(:func:`next_scale`).

Why the scale. On a multimodal population the particles' covariance spans the modes, so its
proposal is far too wide inside any one of them once the likelihood has separated them: on tall
label switching (3 means, n = 2000 points, 4000 particles, 25 moves, seed 0) the acceptance fell
0.32, 0.19, …, 0.01, 0 from the eighth of 12 stages on, the particles stopped moving, and the
ordering shares ended 0.16–0.30 off (they are exactly 1/6). With the scale following the
acceptance (0.11–0.32 in every stage, the scale down to 0.04) the error was 0.016 and 0.043
(two streams of prior draws); BlackJAX's own rule,
``from_kernel_info.update_scale_from_acceptance_rate`` (a factor exp(acc − 0.234) a stage, at
most 21% smaller), shrank too slowly: acceptance 0.01–0.02 from stage 7, error 0.141.
Until 2026-11-28 the bench ran the covariance alone.

log Z is the sum of the stages' log-likelihood increments; the final particles and weights are
the draws (one weighted population: no prefixes, so its error-versus-time curve is one point).
Compilation (one stage's program, ahead of time) is timed apart; the scale is a traced argument
of that program, updated on the host between stages. Evaluations: per stage, the particles' log
likelihoods for the ESS search and the reweighting, plus one log-density evaluation per particle
per RWM step.

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
from blackjax.smc import adaptive_tempered, extend_params
from blackjax.smc.tuning.from_particles import particles_covariance_matrix

from tempering.bench.multimodal.result import MethodRun
from tempering.bench.multimodal.sizes import Size
from tempering.bench.multimodal.targets import Target

TARGET_ESS = 0.5
#: The acceptance the proposal's scale steers to (BlackJAX's ``TARGET_MH_ACCEPTANCE_RATE``).
TARGET_ACCEPTANCE = 0.234
#: The most a stage shrinks or grows the scale (:func:`next_scale`).
SCALE_STEP = (0.1, 3.0)


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


def next_scale(scale: float, acceptance: float) -> float:
    """The proposal's scale for the next stage: ``scale`` × acceptance / 0.234, the factor
    clipped to :data:`SCALE_STEP` (module docstring)."""
    low, high = SCALE_STEP
    return float(scale * np.clip(acceptance / TARGET_ACCEPTANCE, low, high))


def _stage(target: Target, moves: int):
    """One SMC stage as a function of (key, state, scale): the next β, reweighting, resampling
    and ``moves`` RWM moves whose proposal is ``scale`` × :func:`_proposal` of the particles;
    returns the state, the log-likelihood increment and the moves' mean acceptance."""
    model = target.model
    kernel = adaptive_tempered.build_kernel(
        model.log_prior, model.log_lik, _rwm_step, blackjax.rmh.init, resampling.systematic,
        TARGET_ESS)

    def stage(key, state, scale):
        sigma = scale * _proposal(state.particles)
        state, info = kernel(key, state, moves, extend_params({"sigma": sigma}))
        return state, info.log_likelihood_increment, jnp.mean(info.update_info.is_accepted)

    return stage


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
    state = adaptive_tempered.init(particles)
    key = jax.random.key(seed)
    scale = jnp.asarray(1.0, particles.dtype)
    compile_start = time.perf_counter()
    stage = jax.jit(_stage(target, moves)).lower(key, state, scale).compile()
    compiled = time.perf_counter() - compile_start
    sampling_start = time.perf_counter()
    log_z, stages, betas, acceptance, scales = 0.0, 0, [], [], []
    while float(state.tempering_param) < 1.0 and stages < 10_000:
        key, sub = jax.random.split(key)
        state, increment, accepted = stage(sub, state, scale)
        log_z += float(increment)
        stages += 1
        betas.append(float(state.tempering_param))
        acceptance.append(float(accepted))
        scales.append(float(scale))
        scale = jnp.asarray(next_scale(float(scale), acceptance[-1]), particles.dtype)
    sampling = time.perf_counter() - sampling_start
    weights = np.asarray(state.weights, dtype=float)
    info_out: dict[str, Any] = {"stages": stages, "particles": n, "steps": moves,
                                "dtype": str(state.particles.dtype), "betas": betas,
                                "acceptance": acceptance, "scales": scales}
    return MethodRun(
        "smc", np.asarray(state.particles, dtype=float)[None], weights / weights.sum(), log_z,
        None,
        {"compile": compiled, "sampling": sampling, "total": time.perf_counter() - start},
        float(stages * n * (moves + 2)), "density", info_out)
