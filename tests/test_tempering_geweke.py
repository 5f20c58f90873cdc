"""Geweke-style invariance tests for PT, SPT, TT and STT (successive-conditional simulator).

Model: θ ∈ R², θ ~ N(0, I); y_1..y_4 | θ ~ N(θ, I). Each iteration runs one step of the tempering
algorithm on p(θ | y) and then draws a fresh y ~ p(y | θ_0); θ_0's draws must then have mean 0 and
second moment 1, and their residuals about the exact posterior mean given the y they were drawn
with must have the posterior variance. A PT step leaves the product of its rungs invariant, not
rung 0 alone, so before each PT step the hotter replicas are drawn exactly from their own
(Gaussian) rung distributions given y — for a subset rung, the posterior given that rung's subset.
Broken variants — a swap ratio with its terms transposed, and tempered transitions with seed 000
Algorithm 2's printed (off-by-one) down levels — must fail the same test.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from conftest import z_mean

from tempering.algorithms.pt import parallel_tempering
from tempering.algorithms.tempering_options import rung_params
from tempering.algorithms.tt import tempered_transitions
from tempering.kernels import KERNELS
from tempering.ladders import geometric_betas, power_tempering_ladder, subset_tempering_ladder
from tempering.models.base import Model, ParamSpec

N_OBS, DIM, CHAINS, ITERATIONS = 4, 2, 4, 8000
BETAS = geometric_betas(3, 0.05)
Z_BOUND = 4.0
STEPS = 1


def conjugate_model(y) -> Model:
    return Model(
        name="conjugate", data={"x": y},
        log_prior_fn=lambda t: -0.5 * jnp.sum(t**2),
        log_lik_fn=lambda t, d: -0.5 * jnp.sum((d["x"] - t) ** 2),
        alpha=1.0, params=(ParamSpec("theta", (DIM,)),),
        constrain_fn=lambda t: {"theta": t}, init_fn=lambda k: jnp.zeros(DIM))


def transposed_log_ratio(hi_at_lo, lo_at_hi, hi, lo):
    """BROKEN: numerator and denominator of the swap ratio exchanged."""
    return hi + lo - hi_at_lo - lo_at_hi


def build(model, kind, inner="rwm", **kwargs):
    ladder = (power_tempering_ladder(model, BETAS) if kind in ("pt", "tt") else
              subset_tempering_ladder(model, BETAS, redraw=kind == "stt"))
    spec = KERNELS[inner]
    options = spec.options(step_size=0.8) if inner == "rwm" else spec.options(width=1.5)
    bound = spec.bind(options, DIM)
    params = rung_params(bound, inner, BETAS)
    if kind in ("pt", "spt"):
        return parallel_tempering(ladder, bound, params, name=kind, options={}, **kwargs)
    return tempered_transitions(ladder, bound, params, name=kind, options={}, inner_steps=STEPS,
                                **kwargs)


def exact_hot_replicas(key, kind, state, y):
    """Exact draws from rungs 1..M given y (Gaussian posteriors of the conjugate model)."""
    draws = []
    for m, k in enumerate(jax.random.split(key, len(BETAS) - 1), start=1):
        if kind == "pt":
            precision, total = 1.0 + BETAS[m] * N_OBS, BETAS[m] * jnp.sum(y, axis=0)
        else:
            subset = y[state.view[m - 1]]
            precision, total = 1.0 + subset.shape[0], jnp.sum(subset, axis=0)
        draws.append(total / precision + jax.random.normal(k, (DIM,)) / jnp.sqrt(precision))
    return draws


def geweke_draws(kind: str, seed: int, **kwargs) -> np.ndarray:
    def chain(key):
        k_theta, k_y, k_run = jax.random.split(key, 3)
        theta = jax.random.normal(k_theta, (DIM,))
        y = theta + jax.random.normal(k_y, (N_OBS, DIM))

        def iteration(carry, key):
            theta, y = carry
            k_init, k_hot, k_step, k_y = jax.random.split(key, 4)
            algorithm = build(conjugate_model(y), kind, **kwargs)
            state = algorithm.init(k_init, theta)
            if kwargs.get("swap") == "deo":  # start at either parity: both pair sets get proposed
                state = state._replace(iteration=jax.random.bernoulli(k_hot).astype(jnp.int32))
            if kind in ("pt", "spt"):
                hot = exact_hot_replicas(k_hot, kind, state, y)
                state = algorithm.init(k_init, jnp.stack([theta, *hot]))
            state, _ = algorithm.step(k_step, state, algorithm.params)
            new_theta = algorithm.position(state)
            # The standardised residual of θ_t about the exact posterior mean given the y it was
            # drawn with: (θ_t, y_t) is a draw from p(θ, y) too, so its square has mean 1.
            residual = (new_theta - jnp.sum(y, axis=0) / (1 + N_OBS)) * jnp.sqrt(1.0 + N_OBS)
            y = new_theta + jax.random.normal(k_y, (N_OBS, DIM))
            return (new_theta, y), jnp.concatenate([new_theta, residual])

        _, thetas = jax.lax.scan(iteration, (theta, y), jax.random.split(k_run, ITERATIONS))
        return thetas

    keys = jax.random.split(jax.random.key(seed), CHAINS)
    return np.asarray(jax.jit(jax.vmap(chain))(keys))


def moment_z_scores(draws: np.ndarray) -> list[float]:
    """z of E[θ_d] = 0, E[θ_d²] = 1 and E[r_d²] = 1 (r the standardised residual given y)."""
    scores = []
    for d in range(DIM):
        theta, residual = draws[:, :, d], draws[:, :, DIM + d]
        scores += [z_mean(theta, 0.0), z_mean(theta**2, 1.0), z_mean(residual**2, 1.0)]
    return scores


CORRECT = {
    "pt_sweep": ("pt", {"swap": "sweep"}),
    "pt_deo": ("pt", {"swap": "deo"}),
    "spt": ("spt", {}),
    "tt": ("tt", {}),
    "tt_slice": ("tt", {"inner": "slice"}),
    "stt": ("stt", {}),
}

BROKEN = {
    "pt_transposed_swap_ratio": ("pt", {"log_ratio": transposed_log_ratio}),
    "tt_algorithm2_printed_levels": ("tt", {"down_levels": "printed"}),
}


@pytest.mark.parametrize("case", list(CORRECT))
def test_tempering_leaves_posterior_invariant(case):
    kind, kwargs = CORRECT[case]
    scores = moment_z_scores(geweke_draws(kind, seed=3, **kwargs))
    assert max(abs(z) for z in scores) < Z_BOUND, scores


@pytest.mark.parametrize("case", list(BROKEN))
def test_broken_tempering_is_caught(case):
    kind, kwargs = BROKEN[case]
    scores = moment_z_scores(geweke_draws(kind, seed=3, **kwargs))
    assert max(abs(z) for z in scores) > Z_BOUND, scores
