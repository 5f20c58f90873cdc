"""Tests for tempering.estimators.paper against hand-computed values.

The module is loaded from its file path so that these tests do not import the ``tempering`` package
(whose ``__init__`` pulls in JAX and the rest of the library).
"""

from __future__ import annotations

import importlib.util
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

_PAPER_PATH = Path(__file__).resolve().parents[2] / "src" / "tempering" / "estimators" / "paper.py"
_spec = importlib.util.spec_from_file_location("_tempering_estimators_paper", _PAPER_PATH)
assert _spec is not None and _spec.loader is not None
paper = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = paper
_spec.loader.exec_module(paper)

TOL = 1e-12


# --------------------------------------------------------------------------- gelman_rubin / ESS


def test_gelman_rubin_hand_computed_2x3() -> None:
    x = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0]])  # C = 2, S = 3
    # chain means: 2, 4; grand mean 3
    # B = S/(C-1) * sum (mean_c - grand)^2 = 3/1 * ((2-3)^2 + (4-3)^2) = 3 * 2 = 6
    # chain 1 variance: ((1-2)^2 + 0 + (3-2)^2) / 2 = 1
    # chain 2 variance: ((2-4)^2 + 0 + (6-4)^2) / 2 = 4
    # W = (1 + 4) / 2 = 2.5
    # Var = (S-1)/S W + B/S = (2/3)(2.5) + 6/3 = 5/3 + 2 = 11/3
    # R = sqrt((11/3) / 2.5) = sqrt(22/15)
    res = paper.gelman_rubin(x)
    assert isinstance(res, paper.GelmanRubin)
    assert res.between == pytest.approx(6.0, rel=TOL, abs=TOL)
    assert res.within == pytest.approx(2.5, rel=TOL, abs=TOL)
    assert res.var_hat == pytest.approx(11.0 / 3.0, rel=TOL, abs=TOL)
    assert res.rhat == pytest.approx(1.2110601416389968, rel=TOL, abs=TOL)
    assert res.rhat == pytest.approx((22.0 / 15.0) ** 0.5, rel=TOL, abs=TOL)
    for value in res:
        assert isinstance(value, float)
    # ESS (Eq. 8) = C S min(1, Var/B) = 6 * min(1, (11/3)/6) = 6 * 11/18 = 11/3
    ess = paper.ess_between_chain(x)
    assert isinstance(ess, float)
    assert ess == pytest.approx(11.0 / 3.0, rel=TOL, abs=TOL)


def test_within_variance_uses_restored_square() -> None:
    x = np.array([[0.0, 2.0], [1.0, 3.0]])  # C = 2, S = 2
    # chain means 1, 2. As printed, Eq. 6 sums UNsquared deviations:
    # chain 1: (0-1) + (2-1) = 0; chain 2: (1-2) + (3-2) = 0  ->  W_printed = 0.
    w_printed = np.mean([np.sum(row - row.mean()) / (2 - 1) for row in x])
    assert w_printed == 0.0
    # With the square: chain 1: (1 + 1)/1 = 2; chain 2: (1 + 1)/1 = 2; W = 2.
    # B = 2/1 * ((1-1.5)^2 + (2-1.5)^2) = 2 * 0.5 = 1
    # Var = (1/2)(2) + 1/2 = 1.5; R = sqrt(1.5/2) = sqrt(0.75)
    res = paper.gelman_rubin(x)
    assert res.within == pytest.approx(2.0, rel=TOL, abs=TOL)
    assert res.within > 0
    assert res.between == pytest.approx(1.0, rel=TOL, abs=TOL)
    assert res.var_hat == pytest.approx(1.5, rel=TOL, abs=TOL)
    assert res.rhat == pytest.approx(0.75**0.5, rel=TOL, abs=TOL)
    # ESS = 4 * min(1, 1.5/1) = 4
    assert paper.ess_between_chain(x) == pytest.approx(4.0, rel=TOL, abs=TOL)


def test_ess_between_chain_zero_between_variance_no_warning() -> None:
    x = np.array([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0]])
    # chain means 2, 2 -> B = 0; W = (1 + 1)/2 = 1; Var = (2/3)(1) + 0 = 2/3; R = sqrt(2/3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ess = paper.ess_between_chain(x)
        res = paper.gelman_rubin(x)
    assert res.between == 0.0
    assert res.var_hat == pytest.approx(2.0 / 3.0, rel=TOL, abs=TOL)
    assert res.rhat == pytest.approx((2.0 / 3.0) ** 0.5, rel=TOL, abs=TOL)
    assert ess == 6.0  # min(1, inf) = 1 -> C S = 6


def test_ess_between_chain_capped_at_total_draws() -> None:
    x = np.array([[0.0, 1.0, 2.0, 3.0], [0.5, 1.5, 2.5, 3.5]])  # C = 2, S = 4
    # means 1.5, 2.0; grand 1.75; B = 4 * (0.0625 + 0.0625) = 0.5
    # each chain variance = (2.25 + 0.25 + 0.25 + 2.25)/3 = 5/3; W = 5/3
    # Var = (3/4)(5/3) + 0.5/4 = 1.25 + 0.125 = 1.375; Var/B = 2.75 > 1 -> ESS = 8
    res = paper.gelman_rubin(x)
    assert res.between == pytest.approx(0.5, rel=TOL, abs=TOL)
    assert res.within == pytest.approx(5.0 / 3.0, rel=TOL, abs=TOL)
    assert res.var_hat == pytest.approx(1.375, rel=TOL, abs=TOL)
    assert paper.ess_between_chain(x) == pytest.approx(8.0, rel=TOL, abs=TOL)


def test_rhat_near_one_for_iid_chains() -> None:
    rng = np.random.default_rng(20140128)
    x = rng.standard_normal((4, 20000))
    res = paper.gelman_rubin(x)
    assert res.rhat == pytest.approx(1.0, abs=0.01)
    assert res.within == pytest.approx(1.0, abs=0.05)


def test_rhat_large_for_shifted_chains() -> None:
    rng = np.random.default_rng(7)
    x = rng.standard_normal((4, 1000)) + np.array([0.0, 2.0, 4.0, 6.0])[:, None]
    res = paper.gelman_rubin(x)
    assert res.rhat > 1.5
    # far from convergence the between-chain ESS collapses towards C
    assert paper.ess_between_chain(x) < 10.0


def test_gelman_rubin_vectorised_over_trailing_dims() -> None:
    rng = np.random.default_rng(3)
    x = rng.standard_normal((3, 50, 4, 2)) * np.array([1.0, 3.0])
    x[1] += 0.7  # make B non-trivial
    res = paper.gelman_rubin(x)
    ess = paper.ess_between_chain(x)
    for field in res:
        assert isinstance(field, np.ndarray)
        assert field.shape == (4, 2)
    assert isinstance(ess, np.ndarray) and ess.shape == (4, 2)
    for i in range(4):
        for j in range(2):
            ref = paper.gelman_rubin(x[:, :, i, j])
            assert res.var_hat[i, j] == pytest.approx(ref.var_hat, rel=TOL)
            assert res.between[i, j] == pytest.approx(ref.between, rel=TOL)
            assert res.within[i, j] == pytest.approx(ref.within, rel=TOL)
            assert res.rhat[i, j] == pytest.approx(ref.rhat, rel=TOL)
            assert ess[i, j] == pytest.approx(paper.ess_between_chain(x[:, :, i, j]), rel=TOL)


@pytest.mark.parametrize(
    "shape",
    [(1, 10), (1, 10, 3), (3, 1), (10,), ()],
)
def test_gelman_rubin_rejects_bad_shapes(shape: tuple[int, ...]) -> None:
    x = np.zeros(shape)
    with pytest.raises(ValueError):
        paper.gelman_rubin(x)
    with pytest.raises(ValueError):
        paper.ess_between_chain(x)


def test_gelman_rubin_single_chain_message() -> None:
    with pytest.raises(ValueError, match="C = 1"):
        paper.gelman_rubin(np.arange(5.0)[None, :])


# --------------------------------------------------------------------------- autocorrelation

# Hand-computed series: x = 1..8, M = 8, mean 4.5,
# y = [-3.5, -2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5], sum y^2 = 42 (c_0 = 42/8).
# lag 1: 8.75 + 3.75 + 0.75 - 0.25 + 0.75 + 3.75 + 8.75 = 26.25 -> rho_1 = 26.25/42 = 0.625
# lag 2: 5.25 + 1.25 - 0.75 - 0.75 + 1.25 + 5.25 = 11.5        -> rho_2 = 11.5/42
# lag 3: 1.75 - 1.25 - 2.25 - 1.25 + 1.75 = -1.25               -> rho_3 = -1.25/42
# lag 4: -1.75 - 3.75 - 3.75 - 1.75 = -11                       -> rho_4 = -11/42
# lag 5: -5.25 - 6.25 - 5.25 = -16.75                           -> rho_5 = -16.75/42
# lag 6: -8.75 - 8.75 = -17.5                                   -> rho_6 = -17.5/42
# lag 7: -12.25                                                 -> rho_7 = -12.25/42
TREND = np.arange(1.0, 9.0)
TREND_RHO = [1.0, 0.625, 11.5 / 42, -1.25 / 42, -11.0 / 42, -16.75 / 42, -17.5 / 42, -12.25 / 42]

# Alternating series: y = x = [1, -1, ...] (M = 8, mean 0, c_0 = 1):
# rho_i = (M - i)(-1)^i / M -> rho_1 = -7/8, rho_2 = 6/8, rho_3 = -5/8, rho_4 = 4/8
ALTERNATING = np.array([1.0, -1.0] * 4)


def test_autocorrelation_hand_computed() -> None:
    rho = paper.autocorrelation(TREND)
    assert rho.shape == (8,)
    assert rho == pytest.approx(TREND_RHO, rel=TOL, abs=TOL)
    assert paper.autocorrelation(TREND, max_lag=2) == pytest.approx(TREND_RHO[:3], abs=TOL)
    assert paper.autocorrelation(ALTERNATING, max_lag=4) == pytest.approx(
        [1.0, -7 / 8, 6 / 8, -5 / 8, 4 / 8], abs=TOL
    )


@pytest.mark.parametrize("n", [2, 3, 57, 128, 301])
def test_autocorrelation_matches_direct_loop(n: int) -> None:
    rng = np.random.default_rng(n)
    x = np.cumsum(rng.standard_normal(n)) + 5.0
    y = x - x.mean()
    c0 = sum(y[t] * y[t] for t in range(n)) / n
    direct = [sum(y[t] * y[t + lag] for t in range(n - lag)) / n / c0 for lag in range(n)]
    assert paper.autocorrelation(x) == pytest.approx(direct, rel=1e-9, abs=1e-12)
    m = min(5, n - 1)
    assert paper.autocorrelation(x, max_lag=m) == pytest.approx(direct[: m + 1], abs=1e-12)


def test_autocorrelation_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="constant"):
        paper.autocorrelation(np.full(10, 0.1))
    with pytest.raises(ValueError):
        paper.autocorrelation(np.ones((2, 5)))
    with pytest.raises(ValueError):
        paper.autocorrelation(np.array([1.0]))
    with pytest.raises(ValueError):
        paper.autocorrelation(np.array([1.0, np.nan, 2.0]))
    with pytest.raises(ValueError):
        paper.autocorrelation(TREND, max_lag=8)
    with pytest.raises(ValueError):
        paper.autocorrelation(TREND, max_lag=-1)


# --------------------------------------------------------------------------- autocorrelation time


def test_autocorrelation_time_hand_computed_truncation() -> None:
    # M = 8, default max_lag = 8 // 2 = 4. Bartlett thresholds z * se_i with
    # se_1 = sqrt(1/8)                                  = 0.3535533906
    # se_2 = sqrt((1 + 2 * 0.625^2)/8) = sqrt(1.78125/8) = 0.4718644929
    # rho_2^2 = (11.5/42)^2 = 0.0749716553
    # se_3 = sqrt((1 + 2*(0.390625 + 0.0749716553))/8) = sqrt(1.9311933107/8) = 0.4913238
    #
    # z = 2:   |rho_1| = 0.625 < 0.7071 -> lag 1 insignificant, k = 0, tau = 1
    assert paper.autocorrelation_time(TREND, z=2.0) == pytest.approx(1.0, abs=TOL)
    assert paper.autocorrelation_time(TREND) == pytest.approx(1.0, abs=TOL)
    # z = 1.5: 0.625 > 0.5303 significant; |rho_2| = 0.2738 < 0.7078 -> k = 1
    #          tau = 1 + 2 * 0.625 = 2.25
    assert paper.autocorrelation_time(TREND, z=1.5) == pytest.approx(2.25, abs=TOL)
    # z = 0.5: 0.625 > 0.1768; 0.2738 > 0.2359; |rho_3| = 0.0298 < 0.2457 -> k = 2
    #          tau = 1 + 2 * (26.25 + 11.5)/42 = 1 + 75.5/42 = 117.5/42 = 2.797619...
    assert paper.autocorrelation_time(TREND, z=0.5) == pytest.approx(117.5 / 42, abs=TOL)
    # z = 0: nothing is insignificant -> k = max_lag = 4
    #          tau = 1 + 2 * (26.25 + 11.5 - 1.25 - 11)/42 = 1 + 51/42 = 93/42 = 31/14
    assert paper.autocorrelation_time(TREND, z=0.0) == pytest.approx(31.0 / 14.0, abs=TOL)
    # explicit max_lag = 2 with z = 0 -> k = 2, tau = 117.5/42
    assert paper.autocorrelation_time(TREND, z=0.0, max_lag=2) == pytest.approx(117.5 / 42, abs=TOL)
    # max_lag = 0 -> k = 0, tau = 1
    assert paper.autocorrelation_time(TREND, z=0.0, max_lag=0) == pytest.approx(1.0, abs=TOL)


def test_autocorrelation_time_antithetic_and_multichain() -> None:
    # ALTERNATING, z = 1.5: |rho_1| = 0.875 > 1.5 * 0.35355 = 0.5303 significant;
    # se_2 = sqrt((1 + 2 * 0.765625)/8) = sqrt(0.31640625) = 0.5625, threshold 0.84375,
    # |rho_2| = 0.75 < 0.84375 -> k = 1, tau = 1 + 2 * (-0.875) = -0.75 (not clipped)
    assert paper.autocorrelation_time(ALTERNATING, z=1.5) == pytest.approx(-0.75, abs=TOL)
    assert np.isnan(paper.effective_sample_size_act(ALTERNATING, z=1.5))
    # (C, S) input: mean over chains of (2.25, -0.75) = 0.75; ESS = C S / tau = 16 / 0.75
    both = np.stack([TREND, ALTERNATING])
    assert paper.autocorrelation_time(both, z=1.5) == pytest.approx(0.75, abs=TOL)
    assert paper.effective_sample_size_act(both, z=1.5) == pytest.approx(16 / 0.75, rel=TOL)
    # three chains; the third is an affine map of TREND (same rho, tau = 2.25):
    # mean of (2.25, -0.75, 2.25) = 3.75 / 3 = 1.25 (the median would be 2.25)
    three = np.stack([TREND, ALTERNATING, 10.0 * TREND + 3.0])
    assert paper.autocorrelation_time(three, z=1.5) == pytest.approx(1.25, abs=TOL)
    assert paper.effective_sample_size_act(three, z=1.5) == pytest.approx(24 / 1.25, rel=TOL)
    # 1-D ESS: M / tau = 8 / 2.25
    assert paper.effective_sample_size_act(TREND, z=1.5) == pytest.approx(8 / 2.25, rel=TOL)


def _ar1(phi: float, n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    eps = rng.standard_normal(n)
    x = np.empty(n)
    x[0] = eps[0] / np.sqrt(1.0 - phi**2)  # start in the stationary distribution
    for t in range(1, n):
        x[t] = phi * x[t - 1] + eps[t]
    return x


def test_autocorrelation_time_ar1() -> None:
    phi = 0.5
    x = _ar1(phi, 200_000, seed=44)
    tau_theory = (1 + phi) / (1 - phi)  # = 3
    tau = paper.autocorrelation_time(x)
    assert tau == pytest.approx(tau_theory, rel=0.05)
    assert paper.effective_sample_size_act(x) == pytest.approx(200_000 / tau, rel=TOL)
    # split into 4 chains: per-chain estimates averaged, still close to 3
    chains = x.reshape(4, 50_000)
    assert paper.autocorrelation_time(chains) == pytest.approx(tau_theory, rel=0.05)


def test_autocorrelation_time_white_noise() -> None:
    rng = np.random.default_rng(1993)
    x = rng.standard_normal(100_000)
    assert paper.autocorrelation_time(x) == pytest.approx(1.0, abs=0.1)
    assert paper.effective_sample_size_act(x) == pytest.approx(100_000, rel=0.1)


def test_autocorrelation_time_rejects_bad_input() -> None:
    with pytest.raises(ValueError):
        paper.autocorrelation_time(np.ones(10))
    with pytest.raises(ValueError):
        paper.autocorrelation_time(np.zeros((2, 3, 4)))
    with pytest.raises(ValueError):
        paper.autocorrelation_time(TREND, z=-1.0)
    with pytest.raises(ValueError):
        paper.autocorrelation_time(TREND, max_lag=8)


# --------------------------------------------------------------------------- ESS rates


def test_ess_per_second_and_cost() -> None:
    assert paper.ess_per_second(100.0, 4.0) == pytest.approx(25.0, rel=TOL)
    assert paper.ess_per_cost(300.0, 1200.0) == pytest.approx(0.25, rel=TOL)
    for bad in (0.0, -1.0, float("nan")):
        assert np.isnan(paper.ess_per_second(100.0, bad))
        assert np.isnan(paper.ess_per_cost(100.0, bad))
    rates = paper.ess_per_second(np.array([10.0, 20.0]), 5.0)
    assert rates == pytest.approx([2.0, 4.0], rel=TOL)
    bad_rates = paper.ess_per_cost(np.array([10.0, 20.0]), 0.0)
    assert bad_rates.shape == (2,) and np.all(np.isnan(bad_rates))
