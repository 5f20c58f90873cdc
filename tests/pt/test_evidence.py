"""Log evidence: the closed form for ``mvn_mean``, and thermodynamic-integration and
stepping-stone estimates from exact per-rung draws and from simulated tempering with a prior
rung, against it."""

from __future__ import annotations

import jax
import numpy as np
import pytest
from scipy.stats import multivariate_normal
from support import Z_BOUND

from tempering import get_model, run_chains
from tempering.algorithms import get_sampler
from tempering.estimators import log_evidence
from tempering.ladders import ladder_betas
from tempering.models.mvn_mean import analytic_log_evidence, analytic_posterior
from tempering.summary import summarize


@pytest.fixture(scope="module")
def small():
    return get_model("mvn_mean", n=8, dim=2, data_seed=1, precision="float64")


def stacked_log_density(x: np.ndarray, beta: float) -> float:
    """log Z(β) independently: p(X | θ)^β = N(X | θ, Σ/β) (2π)^{D(1−β)/2} β^{−D/2} per point
    (Σ = I), and with θ ~ N(0, I) the stacked data vec(X) ~ N(0, 11ᵀ ⊗ I + I/β)."""
    n, dim = x.shape
    cov = np.kron(np.ones((n, n)), np.eye(dim)) + np.eye(n * dim) / beta
    log_p = multivariate_normal(np.zeros(n * dim), cov).logpdf(x.ravel())
    per_point = 0.5 * dim * (1 - beta) * np.log(2 * np.pi) - 0.5 * dim * np.log(beta)
    return float(log_p + n * per_point)


@pytest.mark.parametrize("beta", [1.0, 0.3, 0.01])
def test_analytic_log_evidence_matches_the_stacked_gaussian(small, beta):
    x = np.asarray(small.data["x"])
    assert float(analytic_log_evidence(small, beta)) == pytest.approx(
        stacked_log_density(x, beta), abs=1e-9)


def test_analytic_log_evidence_derivative_is_the_mean_log_likelihood(small):
    """d log Z/dβ = E_β[log p(X | θ)], the TI integrand; E from the tempered Gaussian's moments."""
    x = np.asarray(small.data["x"])
    n, dim = x.shape
    assert float(analytic_log_evidence(small, 0.0)) == 0.0
    slope = jax.jit(jax.grad(lambda b: analytic_log_evidence(small, b)))
    for beta in (0.0, 0.05, 1.0):
        precision = 1.0 + beta * n
        mean = beta * x.sum(axis=0) / precision
        expected_sq = np.sum((x - mean) ** 2) + n * dim / precision  # E Σ_n |x_n − θ|²
        e_loglik = -0.5 * expected_sq - 0.5 * n * dim * np.log(2 * np.pi)
        grad = slope(beta)
        assert float(grad) == pytest.approx(e_loglik, rel=1e-10)
    mean, _ = analytic_posterior(small)  # at β = 1 the tempered Gaussian is the posterior
    assert np.allclose(mean, x.sum(axis=0) / (1.0 + n))


def exact_rung_draws(model, betas, chains, draws, seed):
    """Exact draws from every tempered Gaussian, laid out as (chain, draw, rung)."""
    x = np.asarray(model.data["x"])
    n, dim = x.shape
    rng = np.random.default_rng(seed)
    precision = 1.0 + betas * n  # (rung,)
    mean = betas[:, None] * x.sum(axis=0) / precision[:, None]
    theta = mean + rng.standard_normal((chains, draws, len(betas), dim)) / np.sqrt(
        precision)[:, None]
    energy = (-0.5 * np.sum((x[None, None, None] - theta[..., None, :]) ** 2, axis=(-1, -2))
              - 0.5 * n * dim * np.log(2 * np.pi))
    rung = np.broadcast_to(np.arange(len(betas)), energy.shape)
    return energy, rung


def test_ti_and_stepping_stones_from_exact_draws(small):
    """Both estimates within MC error of log p(X); the variance-corrected trapezoid's own
    discretisation error (from the exact integrand) is well below that error, while the plain
    trapezoid's is not — the correction is needed at this spacing."""
    betas = ladder_betas("geometric", 12, 0.01, prior_rung=True)
    truth = float(analytic_log_evidence(small, 1.0))
    grad = jax.grad(lambda b: analytic_log_evidence(small, b))
    slope, curvature = jax.jit(grad), jax.jit(jax.grad(grad))
    e = np.array([float(slope(b)) for b in betas])
    v = np.array([float(curvature(b)) for b in betas])
    d = betas[:-1] - betas[1:]
    corrected = np.sum(d * (e[:-1] + e[1:]) / 2 - d**2 * (v[:-1] - v[1:]) / 12)
    plain = np.sum(d * (e[:-1] + e[1:]) / 2)
    energy, rung = exact_rung_draws(small, betas, chains=2, draws=3000, seed=0)
    result = log_evidence(energy, rung, betas)
    assert abs(corrected - truth) < 0.25 * result.ti_mcse  # shifts z by at most 1/4
    assert abs(plain - truth) > 2 * result.ti_mcse
    assert abs(result.ti - truth) / result.ti_mcse < Z_BOUND, result
    assert abs(result.ss - truth) / result.ss_mcse < Z_BOUND, result


@pytest.mark.slow  # ~13 s; make test checks each estimate against the truth within its MCSE
def test_evidence_mcse_is_calibrated(small):
    """Over independent replicates of exact draws, (estimate − truth)/MCSE has sd ≈ 1."""
    betas = ladder_betas("geometric", 6, 0.05, prior_rung=True)
    truth = float(analytic_log_evidence(small, 1.0))
    z_ti, z_ss = [], []
    for seed in range(60):
        energy, rung = exact_rung_draws(small, betas, chains=2, draws=400, seed=100 + seed)
        r = log_evidence(energy, rung, betas)
        z_ti.append((r.ti - truth) / r.ti_mcse)
        z_ss.append((r.ss - truth) / r.ss_mcse)
    # the TI bias at this coarse spacing is part of what z measures: only SS is checked for 0
    assert abs(np.mean(z_ss)) < 4 / np.sqrt(60)
    for z in (z_ti, z_ss):
        assert 0.7 < np.std(z) < 1.3, np.std(z)  # sd of 60 standard normals: 1 ± 0.09


@pytest.mark.slow  # ~7 s; the estimators are checked on exact draws in make test
def test_st_with_a_prior_rung_estimates_the_log_evidence(small):
    algorithm = get_sampler("st", small, rungs=12, beta_min=0.01, prior_rung=True,
                            step_size=0.4)
    result = run_chains(small, algorithm, key=3, chains=2, draws=3000, warmup=1000,
                        progress=False)
    summary = summarize(result.idata)
    evidence = summary["evidence"]
    truth = float(analytic_log_evidence(small, 1.0))
    assert evidence["quantity"] == "log_evidence" and evidence["k_min"] == 0.0
    assert abs(evidence["ti"] - truth) / evidence["ti_mcse"] < Z_BOUND, (evidence, truth)
    assert abs(evidence["ss"] - truth) / evidence["ss_mcse"] < Z_BOUND, (evidence, truth)
    # one RWM evaluation per step, plus U evaluated (and counted) in the steps that start at
    # the prior rung, where it cannot be read off the cached density
    cost = result.idata.sample_stats["cost"].values
    rung = result.idata.sample_stats["rung"].values
    at_prior = rung[:, :-1] == len(algorithm.facts["betas"]) - 1
    np.testing.assert_array_equal(cost[:, 1:], 1.0 + at_prior)
