"""Geweke-style invariance tests (successive-conditional simulator, Geweke 2004) for every kernel.

Model: θ ∈ R², θ ~ N(0, I); y_1..y_3 | θ ~ N(θ, I). One iteration draws θ with one step of the
kernel under test targeting p(θ | y) (re-initialised, since its cached log density belongs to the
old y), then a fresh y ~ p(y | θ). If the kernel leaves p(θ | y) invariant, the joint prior p(θ, y)
is invariant, so θ's draws have mean 0 and second moment 1. Deliberately broken kernels (a proposal
drift without its Hastings correction; a kernel targeting the tempered posterior) are caught by the
same statistic.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from conftest import z_mean

from tempering.kernels import hmc, nuts, rwm, slice
from tempering.kernels.base import Kernel, StepInfo

N_OBS, DIM, CHAINS, ITERATIONS = 3, 2, 4, 4000
Z_BOUND = 4.0


def log_posterior(y):
    def log_density(theta):
        return -0.5 * jnp.sum(theta**2) - 0.5 * jnp.sum((y - theta) ** 2)

    return log_density


def drifting_rwm(logdensity_fn, step_size=1.0, drift=0.3):
    """BROKEN: proposes θ + drift + σε but accepts with π(θ′)/π(θ), omitting q(θ|θ′)/q(θ′|θ)."""

    def init(position):
        return rwm.make(logdensity_fn, step_size).init(position)

    def step(key, state):
        k1, k2 = jax.random.split(key)
        proposal = state.position + drift + step_size * jax.random.normal(k1, state.position.shape)
        new_lp = logdensity_fn(proposal)
        accept = jnp.log(jax.random.uniform(k2)) < new_lp - state.logdensity
        new = jax.tree.map(lambda a, b: jnp.where(accept, a, b),
                           state._replace(position=proposal, logdensity=new_lp), state)
        return new, StepInfo(jnp.ones(()), accept, jnp.ones(()), jnp.zeros((), bool))

    return Kernel(init, step)


KERNELS = {
    "rwm": lambda fn: rwm.make(fn, jnp.ones(DIM)),
    "hmc": lambda fn: hmc.make(fn, 0.3, num_steps=5),
    "nuts": lambda fn: nuts.make(fn, 0.4, jnp.ones(DIM)),
    "slice": lambda fn: slice.make(fn, jnp.ones(DIM)),
    "slice_reversed": lambda fn: slice.make(fn, jnp.ones(DIM), reverse=True),
}

BROKEN = {
    "drifting_rwm": drifting_rwm,
    "tempered_slice": lambda fn: slice.make(lambda t: 0.6 * fn(t), jnp.ones(DIM)),
}


def geweke_draws(make_kernel, seed: int) -> np.ndarray:
    """θ draws (chain, iteration, dim) of the successive-conditional simulator."""

    def chain(key):
        k_theta, k_y, k_run = jax.random.split(key, 3)
        theta = jax.random.normal(k_theta, (DIM,))
        y = theta + jax.random.normal(k_y, (N_OBS, DIM))

        def iteration(carry, key):
            theta, y = carry
            k_step, k_y = jax.random.split(key)
            kernel = make_kernel(log_posterior(y))
            state, _ = kernel.step(k_step, kernel.init(theta))
            theta = state.position
            y = theta + jax.random.normal(k_y, (N_OBS, DIM))
            return (theta, y), theta

        _, thetas = jax.lax.scan(iteration, (theta, y), jax.random.split(k_run, ITERATIONS))
        return thetas

    keys = jax.random.split(jax.random.key(seed), CHAINS)
    return np.asarray(jax.jit(jax.vmap(chain))(keys))


def moment_z_scores(draws: np.ndarray) -> list[float]:
    """z of E[θ_d] = 0 and E[θ_d²] = 1 for each coordinate."""
    scores = []
    for d in range(DIM):
        scores.append(z_mean(draws[:, :, d], 0.0))
        scores.append(z_mean(draws[:, :, d] ** 2, 1.0))
    return scores


@pytest.mark.parametrize("name", list(KERNELS))
def test_kernel_leaves_posterior_invariant(name):
    scores = moment_z_scores(geweke_draws(KERNELS[name], seed=7))
    assert max(abs(z) for z in scores) < Z_BOUND, scores


@pytest.mark.parametrize("name", list(BROKEN))
def test_broken_kernel_is_caught(name):
    scores = moment_z_scores(geweke_draws(BROKEN[name], seed=7))
    assert max(abs(z) for z in scores) > Z_BOUND, scores
