"""Simulated tempering over a user's own state space: a model-choice state (model index m and a
parameter θ, a pytree, not a flat vector), with an inner kernel supplied through the
:class:`~tempering.algorithms.st.family.TemperedFamily` contract — the way a
reversible-jump kernel plugs in.

Data y_1..y_n; model 0: y_i ~ N(0, 1) (θ ~ N(0, 1) is carried along, unused); model 1:
θ ~ N(0, 1), y_i ~ N(θ, 1); P(m) = 1/2. The tempered targets π_k(m, θ) ∝ ½ N(θ; 0, 1) L_m(θ)^k
are known exactly, so the inner kernel draws from π_k directly (a valid π_k-invariant kernel) and
P(m = 1 | y) is known: the importance-tempering estimate from every rung's draws must match it.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from tempering.algorithms.st.family import TemperedFamily
from tempering.algorithms.st.sampler import simulated_tempering
from tempering.estimators.importance import importance_tempering, weighted_moments
from tempering.kernels.base import Kernel, StepInfo
from tempering.ladders import geometric_betas

Y = jnp.asarray(np.random.default_rng(0).normal(0.45, 1.0, 12))
N = Y.shape[0]
LOG_2PI = float(np.log(2 * np.pi))
BETAS = geometric_betas(6, 0.05)


class State(NamedTuple):
    position: dict  # {"m": int32, "theta": float64}
    logdensity: jax.Array


def base(position):
    return jnp.log(0.5) - 0.5 * position["theta"] ** 2 - 0.5 * LOG_2PI


def energy_fn(position):
    mean = jnp.where(position["m"] == 1, position["theta"], 0.0)
    return jnp.sum(-0.5 * (Y - mean) ** 2 - 0.5 * LOG_2PI)


def log_z(k):
    """log ∫ N(θ; 0, 1) L_m(θ)^k dθ for m = 0, 1."""
    log_l0 = jnp.sum(-0.5 * Y**2 - 0.5 * LOG_2PI)
    precision = 1.0 + k * N
    log_z1 = (-0.5 * k * jnp.sum(Y**2) - 0.5 * k * N * LOG_2PI
              + 0.5 * (k * jnp.sum(Y)) ** 2 / precision - 0.5 * jnp.log(precision))
    return jnp.stack([k * log_l0, log_z1])


def make(k, params):
    del params

    def log_density(position):
        return base(position) + k * energy_fn(position)

    def init(position):
        return State(position, log_density(position))

    def step(key, state):
        k_m, k_theta = jax.random.split(key)
        m = jax.random.categorical(k_m, log_z(k)).astype(jnp.int32)
        precision = jnp.where(m == 1, 1.0 + k * N, 1.0)
        mean = jnp.where(m == 1, k * jnp.sum(Y) / precision, 0.0)
        theta = mean + jax.random.normal(k_theta) / jnp.sqrt(precision)
        new = init({"m": m, "theta": theta})
        return new, StepInfo(jnp.ones(()), jnp.ones((), bool), jnp.ones(()), jnp.zeros((), bool))

    return Kernel(init, step)


FAMILY = TemperedFamily(
    make=make,
    energy=lambda state, k: (energy_fn(state.position), jnp.ones(())),
    retemper=lambda state, k, u, params: (make(k, params).init(state.position), jnp.ones(())),
    base=base,
    params={"unused": jnp.zeros(len(BETAS))},
)


def test_st_on_a_model_choice_state_gives_the_posterior_model_probability():
    algorithm = simulated_tempering(FAMILY, BETAS, c0=10.0, n0=100.0)
    chains, draws = 4, 3000

    def chain(key):
        k_init, k_warm, k_run = jax.random.split(key, 3)
        state = algorithm.init(k_init, {"m": jnp.int32(0), "theta": jnp.zeros(())})
        state, params, _ = algorithm.warmup(k_warm, state, algorithm.params, 1000)

        def body(state, k):
            state, info = algorithm.step(k, state, params)
            return state, (state.inner.position["m"], info.stats["rung"],
                           info.stats["log_weight"])

        return jax.lax.scan(body, state, jax.random.split(k_run, draws))[1]

    m, rung, log_w = (np.asarray(a) for a in jax.jit(jax.vmap(chain))(
        jax.random.split(jax.random.key(4), chains)))
    truth = float(jax.nn.softmax(log_z(1.0))[1])
    it = importance_tempering(log_w, rung, len(BETAS))
    for kind in ("optimal", "st"):
        est = weighted_moments(m[..., None].astype(float), log_w[..., None], rung[..., None],
                               it.lambdas[kind])
        assert abs(est.mean - truth) / est.mcse_mean < 4.0, (kind, est, truth)
    assert it.ess_optimal > it.ess_st and it.bound_holds
    # every rung visited; the hot rungs favour the simpler model less sharply
    assert set(np.unique(rung)) == set(range(len(BETAS)))
