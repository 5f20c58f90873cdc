"""Invariance of simulated tempering's frozen kernel, by exact stationary starts (Geweke-style).

Model: θ ∈ R², θ ~ N(0, I); y_1..y_4 | θ ~ N(θ, I). Every iteration draws fresh data y from the
prior predictive, then an exact draw (θ, i) from ST's stationary distribution given y,

    π(θ, i | y) ∝ p̃(i) exp(b(θ) + k_i U(θ)),    rung marginal ∝ p̃(i) Z(k_i | y),

whose rung marginal and tempered Gaussians N(μ_k, 1/λ_k) are known in closed form, and applies
``STEPS`` ST iterations with a fixed, deliberately uneven pseudo-prior. An invariant kernel keeps
the pair's distribution: the rung must still have the marginal above (each rung's indicator
minus its stationary probability given y has mean 0), and the standardised residual
r = (θ − μ_{k_i}) √λ_{k_i} at the final rung must have mean 0 and second moment 1 — the records
of :func:`support.geweke_records`, one independent draw per iteration. Cases: likelihood
tempering with a prior rung (k = 0, where U is evaluated rather than read off the cache) and
RWM or HMC inside (HMC's cached gradient is re-initialised after a rung move), and whole-posterior
tempering. Broken variants — the rung-move ratio without its Hastings term for the end rungs, and
the pseudo-prior still adapting by stochastic approximation during sampling — must fail the same
test.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from support import (
    LOG_2PI,
    cases,
    check_geweke,
    conjugate_model,
    geweke_records,
    geweke_z_scores,
    known_variance_z_scores,
)

from tempering.algorithms.st.family import flat_family
from tempering.algorithms.st.pseudo_prior import normalise, sa_update
from tempering.algorithms.st.sampler import STState, simulated_tempering
from tempering.kernels import KERNELS
from tempering.ladders import geometric_betas

N_OBS, DIM, CHAINS, ITERATIONS, STEPS = 4, 2, 4, 2000, 3
LIKELIHOOD_BETAS = np.append(geometric_betas(4, 0.1), 0.0)  # 1 … 0.1, then the prior
POSTERIOR_BETAS = geometric_betas(5, 0.1)
LOG_PSEUDO_PRIOR = normalise(jnp.array([0.6, -0.4, 0.3, -0.5, 0.0]))


def tempered_gaussian(y, k, tempering):
    """Mean, precision and log normalising constant log Z(k | y) of the tempered target."""
    total, sq = jnp.sum(y, axis=0), jnp.sum(y**2)
    if tempering == "likelihood":  # N(0, I) prior times the likelihood to the power k
        precision = 1.0 + k * N_OBS
        mean = k * total / precision
        log_z = (-0.5 * k * (sq + N_OBS * DIM * LOG_2PI) + 0.5 * precision * jnp.sum(mean**2)
                 - 0.5 * DIM * jnp.log(precision))
    else:  # (prior × likelihood)^k
        precision = k * (1.0 + N_OBS)
        mean = total / (1.0 + N_OBS)
        log_z = (-0.5 * k * (sq + (N_OBS + 1) * DIM * LOG_2PI) + 0.5 * precision * jnp.sum(mean**2)
                 + 0.5 * DIM * (LOG_2PI - jnp.log(precision)))
    return mean, precision, log_z


def no_hastings_log_ratio(delta_k, energy, log_p_new, log_p_old, log_q_ratio):
    """BROKEN: the proposal's q(j → i)/q(i → j) (≠ 1 next to an end rung) left out."""
    return delta_k * energy + log_p_new - log_p_old


def build(y, tempering, inner, **kwargs):
    betas = LIKELIHOOD_BETAS if tempering == "likelihood" else POSTERIOR_BETAS
    spec = KERNELS.get(inner)
    options = (spec.options(step_size=0.8) if inner == "rwm" else
               spec.options(step_size=0.25, num_steps=3))
    bound = spec.bind(options, DIM)
    family = flat_family(conjugate_model(y, normalised=True), bound, spec.rung_params(bound, betas),
                         tempering)
    return simulated_tempering(family, betas, **kwargs), family, betas


def st_iteration(tempering: str, inner: str, sa_during_sampling: bool = False, **kwargs):
    """One independent iteration: fresh y, an exact (θ, i) from ST's stationary distribution
    given y, STEPS ST iterations; records (rung indicators − their probabilities p, p(1 − p),
    r, r² − 1)."""

    def iterate(key, carry):
        k_theta, k_y, k_rung, k_start, k_run = jax.random.split(key, 5)
        theta0 = jax.random.normal(k_theta, (DIM,))
        y = theta0 + jax.random.normal(k_y, (N_OBS, DIM))
        algorithm, family, betas = build(y, tempering, inner, **kwargs)
        gaussians = [tempered_gaussian(y, float(k), tempering) for k in betas]
        log_z = jnp.stack([g[2] for g in gaussians])
        probs = jax.nn.softmax(LOG_PSEUDO_PRIOR + log_z)
        rung = jax.random.categorical(k_rung, LOG_PSEUDO_PRIOR + log_z)
        means = jnp.stack([g[0] for g in gaussians])
        precisions = jnp.stack([jnp.asarray(g[1]) for g in gaussians])
        theta = means[rung] + jax.random.normal(k_start, (DIM,)) / jnp.sqrt(precisions[rung])
        ks = jnp.asarray(betas)
        inner_params = jax.tree.map(lambda p: p[rung], family.params)
        state = STState(family.make(ks[rung], inner_params).init(theta), rung.astype(jnp.int32))
        params = {"inner": family.params, "log_pseudo_prior": LOG_PSEUDO_PRIOR}

        def one_step(carry, xs):
            state, params = carry
            t, k = xs
            if sa_during_sampling:  # BROKEN: Geyer–Thompson SA still running after warmup
                params = {**params, "log_pseudo_prior": sa_update(
                    params["log_pseudo_prior"], state.rung, t, 100.0, 100.0)}
            state, _ = algorithm.step(k, state, params)
            return (state, params), None

        (state, _), _ = jax.lax.scan(one_step, (state, params),
                                     (jnp.arange(1.0, STEPS + 1), jax.random.split(k_run, STEPS)))
        final = state.rung
        residual = (state.inner.position - means[final]) * jnp.sqrt(precisions[final])
        indicator = jax.nn.one_hot(final, len(betas))
        return carry, jnp.concatenate([indicator - probs, probs * (1.0 - probs), residual,
                                       residual**2 - 1.0])

    return iterate


CASES = cases(
    correct={
        "likelihood_prior_rung_rwm": ("likelihood", "rwm", {}),
        "likelihood_prior_rung_hmc": ("likelihood", "hmc", {}),
        "posterior_rwm": ("posterior", "rwm", {}),
    },
    broken={
        "no_hastings_term": ("likelihood", "rwm", {"log_ratio": no_hastings_log_ratio}),
        "pseudo_prior_adapting_while_sampling": ("likelihood", "rwm",
                                                 {"sa_during_sampling": True}),
    },
)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_st_geweke(case):
    tempering, inner, kwargs = case.build
    records = geweke_records(lambda key: jnp.zeros(()), st_iteration(tempering, inner, **kwargs),
                             chains=CHAINS, iterations=ITERATIONS, seed=11)
    m = (records.shape[-1] - 2 * DIM) // 2  # rungs
    scores = known_variance_z_scores(records[..., :m], records[..., m:2 * m])
    check_geweke(case, scores + geweke_z_scores(records[..., 2 * m:]))
