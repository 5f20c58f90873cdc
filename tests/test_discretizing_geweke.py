"""Geweke-style invariance test of the discretizing chain (successive-conditional simulator).

Model (as in test_tempering_geweke.py): θ ∈ R², θ ~ N(0, I), y_1..y_4 | θ ~ N(θ, I). π* is the
SOD approximation on 2 of the 4 observations — the posterior given half the data, twice as wide in
variance terms as it should be (1/3 against 1/5). Each iteration makes one discretizing-chain step
(r = 3 mark moves of s = 1 step: forward and backward simulation, cached revisits) on p(θ | y) and
then draws a fresh y ~ p(y | θ). θ's draws must have mean 0 and second moment 1, and their residuals
about the exact posterior mean given the y they were drawn with must have the posterior variance
(E[r²] = 1). The chain without the π/π* correction leaves p(θ | y_S) invariant instead; θ's
marginal moments cannot see that (a data-augmentation chain on half the data still has the prior
as its θ-marginal), the residual moments can.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from conftest import z_mean

from tempering.algorithms.discretizing import discretizing_chain
from tempering.gp.approx import draw_subset
from tempering.kernels import KERNELS
from tempering.ladders import target_rung
from tempering.ladders.approximation import approximate_rung
from tempering.models.base import Model, ParamSpec

N_OBS, DIM, CHAINS, ITERATIONS, SUBSET = 4, 2, 4, 6000, 2
Z_BOUND = 4.0


def conjugate_model(y) -> Model:
    return Model(
        name="conjugate", data={"x": y},
        log_prior_fn=lambda t: -0.5 * jnp.sum(t**2),
        log_lik_fn=lambda t, d: -0.5 * jnp.sum((d["x"] - t) ** 2),
        alpha=1.0, params=(ParamSpec("theta", (DIM,)),),
        constrain_fn=lambda t: {"theta": t}, init_fn=lambda k: jnp.zeros(DIM))


def build(model: Model, correct: bool):
    approx = approximate_rung(model, "sod", draw_subset(0, N_OBS, SUBSET), 1e-8)
    spec = KERNELS["slice"]
    bound = spec.bind(spec.options(width=1.5), DIM)
    return discretizing_chain(target_rung(model), approx, bound, r=3, s=1, correct=correct)


def geweke_draws(correct: bool, seed: int) -> np.ndarray:
    def chain(key):
        k_theta, k_y, k_run = jax.random.split(key, 3)
        theta = jax.random.normal(k_theta, (DIM,))
        y = theta + jax.random.normal(k_y, (N_OBS, DIM))

        def iteration(carry, key):
            theta, y = carry
            k_init, k_step, k_y = jax.random.split(key, 3)
            algorithm = build(conjugate_model(y), correct)
            state, _ = algorithm.step(k_step, algorithm.init(k_init, theta), algorithm.params)
            new_theta = algorithm.position(state)
            residual = (new_theta - jnp.sum(y, axis=0) / (1 + N_OBS)) * jnp.sqrt(1.0 + N_OBS)
            y = new_theta + jax.random.normal(k_y, (N_OBS, DIM))
            return (new_theta, y), jnp.concatenate([new_theta, residual])

        _, out = jax.lax.scan(iteration, (theta, y), jax.random.split(k_run, ITERATIONS))
        return out

    keys = jax.random.split(jax.random.key(seed), CHAINS)
    return np.asarray(jax.jit(jax.vmap(chain))(keys))


def moment_z_scores(draws: np.ndarray) -> list[float]:
    """z of E[θ_d] = 0, E[θ_d²] = 1 and E[r_d²] = 1 (r the standardised residual given y)."""
    scores = []
    for d in range(DIM):
        theta, residual = draws[:, :, d], draws[:, :, DIM + d]
        scores += [z_mean(theta, 0.0), z_mean(theta**2, 1.0), z_mean(residual**2, 1.0)]
    return scores


@pytest.mark.parametrize("correct", [True, False], ids=["eq13", "no_correction"])
def test_discretizing_chain_geweke(correct):
    scores = moment_z_scores(geweke_draws(correct, seed=7))
    print(f"\n{'correct' if correct else 'no correction'}: z = {np.round(scores, 2)}")
    if correct:
        assert max(abs(z) for z in scores) < Z_BOUND, scores
    else:
        assert max(abs(z) for z in scores) > Z_BOUND, scores
