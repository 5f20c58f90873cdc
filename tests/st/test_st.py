"""Simulated tempering on ``mvn_mean`` (analytic posterior and normalising constants): ladders,
importance-tempering estimates, pseudo-prior adaptation, and what the run file holds.

One run (dim 3, m = 10 rungs, k_min = 0.1, RWM inside, 4 chains) serves every sampler test: its
optimally combined IT means must be within Monte Carlo error of the exact posterior mean, with an
ESS above that of the draws at the target alone; its adapted pseudo-prior must equalise the rungs'
occupation — computed exactly, as p̃(i) Z(k_i) with Z from
:func:`~tempering.models.mvn_mean.analytic_log_evidence` — within a stated factor, which the
starting (uniform) pseudo-prior misses by hundreds of orders of magnitude; and the occupation
observed while sampling must be the one the frozen pseudo-prior implies.
"""

from __future__ import annotations

import arviz as az
import jax
import numpy as np
import pytest
from support import Z_BOUND, z_mean

from tempering import get_model, run_chains
from tempering.algorithms import get_sampler
from tempering.ladders import (
    geometric_betas,
    harmonic_betas,
    ladder_betas,
    sigmoidal_betas,
)
from tempering.models.mvn_mean import analytic_log_evidence, analytic_posterior
from tempering.run.output import run_attr
from tempering.summary import summarize

RUNGS = 10
OCCUPATION_FACTOR = 1.5  # stated tolerance: every rung's occupation within [1/1.5, 1.5] × 1/m


# --------------------------------------------------------------------------- ladders

@pytest.mark.parametrize("schedule", [geometric_betas, harmonic_betas, sigmoidal_betas])
def test_ladders_run_from_one_to_beta_min(schedule):
    for rungs, beta_min in ((40, 0.1), (7, 0.125), (2, 0.5)):
        betas = schedule(rungs, beta_min)
        assert len(betas) == rungs and betas[0] == 1.0
        assert betas[-1] == pytest.approx(beta_min, rel=1e-12)
        assert np.all(np.diff(betas) < 0)


def test_ladders_follow_tgp_formulas():
    """tgp's default.itemps, m = 40, k_min = 0.1, written out independently."""
    m, k_min, i = 40, 0.1, np.arange(1, 41)
    delta = k_min ** (1 / (1 - m)) - 1
    np.testing.assert_allclose(geometric_betas(m, k_min), (1 + delta) ** (1 - i), rtol=1e-12)
    delta = (1 / k_min - 1) / (m - 1)
    np.testing.assert_allclose(harmonic_betas(m, k_min), 1 / (1 + delta * (i - 1)), rtol=1e-12)
    t = np.log(0.01) + (np.log(0.91 / 0.1) - np.log(0.01)) * (i - 1) / (m - 1)
    np.testing.assert_allclose(sigmoidal_betas(m, k_min), 1.01 - 1.01 / (1 + np.exp(-t)),
                               rtol=1e-12)
    # the three spacings differ: harmonic puts more rungs near k_min than geometric does
    assert harmonic_betas(m, k_min)[20] < geometric_betas(m, k_min)[20]
    with_prior = ladder_betas("harmonic", 6, 0.2, prior_rung=True)
    np.testing.assert_allclose(with_prior, np.append(harmonic_betas(5, 0.2), 0.0))


# --------------------------------------------------------------------------- one ST run

@pytest.fixture(scope="module")
def mvn():
    return get_model("mvn_mean", n=64, dim=3, data_seed=4, precision="float64")


@pytest.fixture(scope="module")
def st_run(mvn):
    algorithm = get_sampler("st", mvn, rungs=RUNGS, beta_min=0.1, step_size=0.2)
    result = run_chains(mvn, algorithm, key=21, chains=4, draws=4000, warmup=16000,
                        progress=False)
    return algorithm, result


def implied_occupation(model, betas, log_pseudo_prior) -> np.ndarray:
    """Exact stationary rung probabilities p̃(i) Z(k_i) / Σ, per chain."""
    log_z = np.array([float(analytic_log_evidence(model, b)) for b in betas])
    logits = np.atleast_2d(log_pseudo_prior) + log_z
    return np.exp(logits - jax.scipy.special.logsumexp(logits, axis=1, keepdims=True))


def test_optimal_it_mean_matches_the_posterior_and_beats_st(mvn, st_run):
    _, result = st_run
    mean, cov = analytic_posterior(mvn)
    optimal = summarize(result.idata, weights="optimal")
    st_only = summarize(result.idata, weights="st")
    for d, name in enumerate(optimal["params"]):
        row = optimal["params"][name]
        assert abs(row["mean"] - mean[d]) / row["mcse_mean"] < Z_BOUND, (name, row)
        # the MCSE is not inflated: it is at most that of the target's draws alone
        assert row["mcse_mean"] < st_only["params"][name]["mcse_mean"]
        assert row["ess_bulk"] > st_only["params"][name]["ess_bulk"]
    it = optimal["it"]
    assert it["ess_optimal"] > 1.5 * it["ess_st"]
    assert it["ess_optimal"] >= it["ess_naive"] and it["bound_holds"]
    # the target's draws alone agree too (ST is exact at rung 0)
    for d, name in enumerate(st_only["params"]):
        row = st_only["params"][name]
        assert abs(row["mean"] - mean[d]) / row["mcse_mean"] < Z_BOUND, (name, row)


def test_adapted_pseudo_prior_equalises_occupation(mvn, st_run):
    algorithm, result = st_run
    betas = np.asarray(algorithm.facts["betas"])
    adapted = implied_occupation(mvn, betas, np.asarray(result.params["log_pseudo_prior"]))
    assert np.all(RUNGS * adapted < OCCUPATION_FACTOR), RUNGS * adapted
    assert np.all(RUNGS * adapted > 1 / OCCUPATION_FACTOR), RUNGS * adapted
    # the check can fail: the starting (uniform) pseudo-prior puts all mass on the hottest rung
    start = implied_occupation(mvn, betas, np.asarray(algorithm.params["log_pseudo_prior"]))
    assert RUNGS * start.min() < 1e-100


def test_pseudo_prior_is_frozen_while_sampling(mvn, st_run):
    """The occupation seen while sampling is the one the post-warmup pseudo-prior implies (per
    chain; z from the MCSE of the rung indicators), and the pseudo-prior in force is that one."""
    algorithm, result = st_run
    betas = np.asarray(algorithm.facts["betas"])
    frozen = np.asarray(result.params["log_pseudo_prior"])
    implied = implied_occupation(mvn, betas, frozen)  # (chain, rung)
    rung = result.idata.sample_stats["rung"].values  # (chain, draw)
    for i in range(RUNGS):
        indicator = (rung == i).astype(float)
        excess = indicator.mean(axis=1) - implied[:, i]
        mcse = np.array([az.mcse(indicator[c][None], method="mean") for c in range(len(rung))])
        z = excess.sum() / np.sqrt(np.sum(mcse**2))
        assert abs(z) < Z_BOUND, (i, excess, mcse)
    recorded = run_attr(result.idata, "tuned_params")["log_pseudo_prior"]
    np.testing.assert_allclose(recorded, frozen)


def test_run_file_holds_rungs_and_weights(mvn, st_run):
    """``rung``, ``log_tempered`` = log p(X | θ) and ``log_weight`` = (1 − k) U, draw by draw."""
    algorithm, result = st_run
    betas = np.asarray(algorithm.facts["betas"])
    stats = result.idata.sample_stats
    theta = result.idata.posterior["theta"].values[:, ::97]  # a thinned subset of draws
    rung = stats["rung"].values[:, ::97]
    log_lik = np.asarray(jax.vmap(jax.vmap(mvn.log_lik))(theta))
    np.testing.assert_allclose(stats["log_tempered"].values[:, ::97], log_lik, rtol=1e-9)
    np.testing.assert_allclose(stats["log_weight"].values[:, ::97],
                               (1 - betas[rung]) * log_lik, rtol=1e-9)
    lp = np.asarray(jax.vmap(jax.vmap(mvn.log_density))(theta))
    np.testing.assert_allclose(stats["lp"].values[:, ::97], lp, rtol=1e-9)
    # every rung is visited and rung moves are accepted at a healthy rate
    assert set(np.unique(stats["rung"].values)) == set(range(RUNGS))
    assert 0.3 < float(stats["rung_accept_prob"].mean()) < 1.0
    # ST's cost: one evaluation per RWM step; U is read off the cache, no prior rung
    assert float(stats["cost"].mean()) == 1.0
    assert abs(z_mean(stats["rung_accepted"].values.astype(float),
                      float(stats["rung_accept_prob"].mean()))) < Z_BOUND
