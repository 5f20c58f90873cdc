"""Importance-tempering estimators (seed 001 Proposition 2.1, Remark 2.2) against direct NumPy
computations, the optimality of λ*, and the calibration of the weighted means' MCSE."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import erf

from tempering.estimators.importance import (
    combination,
    combined_ess,
    ess,
    importance_tempering,
    rung_sums,
    weighted_moments,
)

M = 6


def random_log_weights(seed: int, offset: float = 0.0):
    """Log weights of uneven spread per rung (as hotter rungs have), rung sizes uneven, plus a
    common offset (−1000 would underflow every weight if computed in linear space)."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(5, 400, M)
    rung = np.repeat(np.arange(M), sizes)
    spread = np.linspace(0.05, 2.5, M)[rung]
    log_w = offset + spread * rng.standard_normal(rung.size) - 3.0 * rung
    perm = rng.permutation(rung.size)
    return log_w[perm], rung[perm]


def direct_ess(w: np.ndarray) -> float:
    """n / (1 + cv²), cv² = Σ (w − w̄)² / ((n − 1) w̄²), in linear space (seed 001 Eq. 3)."""
    n = w.size
    cv2 = np.sum((w - w.mean()) ** 2) / ((n - 1) * w.mean() ** 2)
    return n / (1.0 + cv2)


def direct(log_w, rung):
    """Per-rung ESS, λ*, and the ESS of a combination, straight from the definitions."""
    per_rung, kish, weights = [], [], []
    for i in range(M):
        w = np.exp(log_w[rung == i] - log_w[rung == i].max())  # each rung's scale cancels
        weights.append(w)
        per_rung.append(direct_ess(w))
        kish.append(w.sum() ** 2 / np.sum(w**2))
    lam_opt = np.array(kish) / np.sum(kish)

    def combined(lam):
        return direct_ess(np.concatenate([lam[i] * weights[i] / weights[i].sum()
                                          for i in range(M)]))

    return np.array(per_rung), lam_opt, combined


@pytest.mark.parametrize("offset", [0.0, -1000.0])
def test_lambda_and_ess_match_a_direct_computation(offset):
    log_w, rung = random_log_weights(1, offset)
    per_rung, lam_opt, combined = direct(log_w, rung)
    it = importance_tempering(log_w, rung, M)
    np.testing.assert_allclose(it.ess_per_rung, per_rung, rtol=1e-10)
    np.testing.assert_allclose(it.lambdas["optimal"], lam_opt, rtol=1e-10)
    np.testing.assert_allclose(it.ess_optimal, combined(lam_opt), rtol=1e-10)
    np.testing.assert_allclose(it.ess_st, combined(np.eye(M)[0]), rtol=1e-10)
    # naive IT: one self-normalised sum over all draws, λ_i = W_i / Σ W_r
    w_all = np.exp(log_w - log_w.max())
    np.testing.assert_allclose(it.ess_naive, direct_ess(w_all), rtol=1e-10)
    lam_naive = np.array([w_all[rung == i].sum() for i in range(M)]) / w_all.sum()
    np.testing.assert_allclose(it.lambdas["naive"], lam_naive, rtol=1e-10)
    # Remark 2.2, recomputed: ESS(λ*) ≥ Σ ESS_i − 1/4 − 1/T
    bound = per_rung.sum() - 0.25 - 1.0 / log_w.size
    np.testing.assert_allclose(it.bound, bound, rtol=1e-12)
    assert it.bound_holds and it.ess_optimal >= bound


def test_optimal_lambda_beats_naive_st_and_a_random_search():
    log_w, rung = random_log_weights(2)
    sums = rung_sums(log_w, rung, M)
    it = importance_tempering(log_w, rung, M)
    assert it.ess_optimal > it.ess_naive and it.ess_optimal > it.ess_st
    rng = np.random.default_rng(3)
    searched = [combined_ess(log_w, rung, lam, sums) for lam in rng.dirichlet(np.ones(M), 2000)]
    assert it.ess_optimal >= max(searched)
    # the search has the power to fail: a wrong λ (∝ √ℓ_i) loses to some λ it tries
    wrong = np.sqrt(sums.kish) / np.sqrt(sums.kish).sum()
    assert combined_ess(log_w, rung, wrong, sums) < max(searched)


def test_ess_edge_cases():
    assert ess(np.zeros(7)) == pytest.approx(7.0)  # equal weights: every draw counts
    assert ess(np.array([0.0])) == 1.0
    # one positive weight of three: cv² = 3, so n/(1 + cv²) = 3/4 (Kish's ℓ would say 1)
    assert ess(np.array([0.0, -np.inf, -np.inf])) == pytest.approx(0.75)
    log_w, rung = random_log_weights(4)
    keep = rung != 2  # a rung without draws has ESS 0 and λ_2 = 0
    it = importance_tempering(log_w[keep], rung[keep], M)
    assert it.ess_per_rung[2] == 0 and it.lambdas["optimal"][2] == 0 and it.bound_holds
    assert combination("st", rung_sums(log_w, rung, M))[0] == 1.0


def test_weighted_mean_and_its_mcse_are_calibrated():
    """Rung i draws x ~ N(0, 1/k_i) iid; weights exp(−(1 − k_i) x²/2) target N(0, 1). Over
    independent replicates the optimally combined estimate of p = P(|x| < 1/2) has z-scores
    (estimate − p)/MCSE with mean 0 and sd 1 (the delta-method MCSE is calibrated), and its
    weighted sd is √(p(1 − p))."""
    ks = np.array([1.0, 0.6, 0.3, 0.15])
    p = float(erf(0.5 / np.sqrt(2.0)))
    rng = np.random.default_rng(5)
    zs, naive_zs, sds = [], [], []
    for _ in range(300):
        rung = rng.integers(0, 4, (2, 150))
        x = rng.standard_normal(rung.shape) / np.sqrt(ks[rung])
        log_w = -(1 - ks[rung]) * x**2 / 2
        lam = importance_tempering(log_w, rung, 4).lambdas["optimal"]
        h = (np.abs(x) < 0.5).astype(float)
        moments = weighted_moments(h[..., None], log_w[..., None], rung[..., None], lam)
        zs.append((moments.mean - p) / moments.mcse_mean)
        naive_zs.append((moments.mean - p) / (moments.sd / np.sqrt(x.size)))
        sds.append(moments.sd)
    zs = np.array(zs)
    assert abs(np.mean(zs)) < 4 / np.sqrt(zs.size)
    assert 0.85 < np.std(zs) < 1.15  # sd of 300 standard normals: 1 ± 0.041
    # the check can fail: an MCSE that ignores the weights (sd/√T) is too small here
    assert np.std(naive_zs) > 1.15
    assert abs(np.mean(sds) - np.sqrt(p * (1 - p))) < 0.01
