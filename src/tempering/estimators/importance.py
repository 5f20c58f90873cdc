"""Importance tempering (seed 001 §2.1, Proposition 2.1, Remark 2.2): every rung's draws as
importance samples for the target, and their optimal combination.

Draws x_ij at rung i (inverse temperature k_i; rung 0 is the target, the paper's k_1 = 1) have
importance weights w_ij = π(x_ij)/π_{k_i}(x_ij) = exp((1 − k_i) U(x_ij)), U the tempered log factor
(the log-likelihood when the likelihood alone is tempered, the log posterior when the whole
posterior is). Everything here works on log weights, in log space, with per-rung maxima factored
out, so weights of e^(−1000) are no trouble. With n_i draws at rung i (formulas as restored in the
seeds' README):

- W_i = Σ_j w_ij, and the per-rung self-normalised estimator ĥ_i = Σ_j w_ij h(x_ij) / W_i;
- ESS(w) = n/(1 + cv²(w)), cv² = Σ_j (w_j − w̄)² / ((n − 1) w̄²) (seed 001 Eq. 3). Writing
  ℓ = (Σ w)² / Σ w² (Kish's effective size), this is ESS = n (n − 1) ℓ / (n² − ℓ) ≤ ℓ, which is
  how it is computed (scale-free, so in log space); one draw has ESS 1, none ESS 0;
- combinations ĥ = Σ_i λ_i ĥ_i (Eq. 5) on the simplex: *optimal* λ_i* = ℓ_i / Σ_r ℓ_r
  (Proposition 2.1), *naive* λ_i = W_i / Σ_r W_r (one self-normalised sum over all draws, Eq. 2),
  *st* λ = (1, 0, …, 0) (the draws at the target only);
- the ESS of a combination is the ESS of its T = Σ n_i per-draw weights λ_i w_ij / W_i (zeros
  included), so for every λ it is T (T − 1) L / (T² − L) with L = 1/Σ_i λ_i²/ℓ_i; λ* maximises L
  (L* = Σ ℓ_i), hence the ESS, over the whole simplex;
- Remark 2.2: ESS(λ*) ≥ Σ_i ESS_i − 1/4 − 1/T. (With the definitions above it always holds:
  ESS_i ≤ ℓ_i and T(T−1)L/(T²−L) ≥ L − 1/4 − 1/T. It is checked and reported all the same, as a
  check of the computation.)

Monte Carlo standard errors of the weighted means account for the weights *and* the chains'
autocorrelation by the delta method (:func:`tempering.estimators.delta.delta_mcse`): the
estimator is a smooth function of chain averages, whose MCSE ArviZ estimates.

Arrays are (chain, draw, slot): one slot per draw for simulated tempering, one per rung for PT
with every rung kept. Only NumPy (and JAX for the delta method) is used.
"""

from __future__ import annotations

from typing import Literal, NamedTuple

import numpy as np
from scipy.special import logsumexp

from tempering.estimators.delta import delta_mcse

Weights = Literal["optimal", "naive", "st"]
WEIGHTS: tuple[Weights, ...] = ("optimal", "naive", "st")


def ess_from_kish(n: np.ndarray, kish: np.ndarray) -> np.ndarray:
    """n/(1 + cv²) = n (n − 1) ℓ / (n² − ℓ) from the count n and Kish's ℓ; n ≤ 1 gives ℓ (= n)."""
    n = np.asarray(n, dtype=float)
    kish = np.asarray(kish, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        value = n * (n - 1.0) * kish / (n * n - kish)
    value = np.where(n <= 1, kish, value)
    return np.where(kish > 0, value, 0.0)


def log_kish(log_w: np.ndarray) -> float:
    """log ℓ = 2 log Σ w − log Σ w² of one vector of log weights (−∞ for no positive weight)."""
    log_w = np.asarray(log_w, dtype=float).ravel()
    if log_w.size == 0 or not np.any(np.isfinite(log_w)):
        return -np.inf
    return float(2.0 * logsumexp(log_w) - logsumexp(2.0 * log_w))


def ess(log_w: np.ndarray) -> float:
    """ESS = n/(1 + cv²) of one vector of log weights (seed 001 Eq. 3)."""
    log_w = np.asarray(log_w, dtype=float).ravel()
    return float(ess_from_kish(np.asarray(log_w.size), np.asarray(np.exp(log_kish(log_w)))))


class RungSums(NamedTuple):
    """Per-rung counts and log sums: n_i, log W_i = log Σ_j w_ij, log Σ_j w_ij²."""

    n: np.ndarray
    log_w_sum: np.ndarray
    log_w2_sum: np.ndarray

    @property
    def kish(self) -> np.ndarray:
        """ℓ_i = W_i² / Σ_j w_ij² (0 for a rung without draws or without positive weight)."""
        with np.errstate(invalid="ignore"):
            value = np.exp(2.0 * self.log_w_sum - self.log_w2_sum)
        return np.where(np.isfinite(value), value, 0.0)

    @property
    def ess(self) -> np.ndarray:
        """ESS_i = n_i/(1 + cv²(w_i))."""
        return ess_from_kish(self.n, self.kish)


def rung_sums(log_w: np.ndarray, rung: np.ndarray, num_rungs: int) -> RungSums:
    """Counts and log sums of the weights at each rung (any array shapes, matched)."""
    log_w = np.asarray(log_w, dtype=float).ravel()
    rung = np.asarray(rung).ravel()
    n = np.bincount(rung, minlength=num_rungs).astype(float)[:num_rungs]
    log_w_sum = np.full(num_rungs, -np.inf)
    log_w2_sum = np.full(num_rungs, -np.inf)
    for i in range(num_rungs):
        at = log_w[rung == i]
        if at.size:
            log_w_sum[i] = logsumexp(at)
            log_w2_sum[i] = logsumexp(2.0 * at)
    return RungSums(n, log_w_sum, log_w2_sum)


def _optimal(sums: RungSums) -> np.ndarray:
    kish = sums.kish
    return kish / kish.sum()


def _naive(sums: RungSums) -> np.ndarray:
    finite = np.isfinite(sums.log_w_sum)
    shifted = np.where(finite, sums.log_w_sum - np.max(sums.log_w_sum[finite]), -np.inf)
    weights = np.exp(shifted)
    return weights / weights.sum()


def _target_only(sums: RungSums) -> np.ndarray:
    return np.eye(sums.n.shape[0])[0]


_COMBINATIONS = {"optimal": _optimal, "naive": _naive, "st": _target_only}


def combination(kind: Weights, sums: RungSums) -> np.ndarray:
    """λ on the simplex: ``optimal`` ℓ_i/Σℓ_r, ``naive`` W_i/ΣW_r, ``st`` (1, 0, …, 0)."""
    if kind not in _COMBINATIONS:
        raise ValueError(f"weights must be one of {', '.join(WEIGHTS)} (got {kind!r})")
    return _COMBINATIONS[kind](sums)


def combined_log_weights(log_w: np.ndarray, rung: np.ndarray, lam: np.ndarray,
                         sums: RungSums) -> np.ndarray:
    """log(λ_i w_ij / W_i) for every draw (−∞ where λ_i = 0); sums to one over all draws."""
    rung = np.asarray(rung)
    used = lam > 0
    with np.errstate(divide="ignore"):
        offset = np.where(used, np.log(np.where(used, lam, 1.0)) - np.where(
            used, sums.log_w_sum, 0.0), -np.inf)
    return np.asarray(log_w, dtype=float) + offset[rung]


def combined_ess(log_w: np.ndarray, rung: np.ndarray, lam: np.ndarray, sums: RungSums) -> float:
    """ESS of the combination λ: n/(1 + cv²) over all T draws' weights λ_i w_ij / W_i."""
    return ess(combined_log_weights(log_w, rung, lam, sums))


class ITResult(NamedTuple):
    """Importance-tempering summary of one run (every ESS is the IS effective sample size)."""

    n_per_rung: np.ndarray
    ess_per_rung: np.ndarray
    ess_optimal: float
    ess_naive: float
    ess_st: float
    lambdas: dict[Weights, np.ndarray]
    bound: float  # Σ_i ESS_i − 1/4 − 1/T
    bound_holds: bool

    def ess_of(self, kind: Weights) -> float:
        return {"optimal": self.ess_optimal, "naive": self.ess_naive, "st": self.ess_st}[kind]


def importance_tempering(log_w: np.ndarray, rung: np.ndarray, num_rungs: int) -> ITResult:
    """Per-rung ESS, the three combinations' λ and ESS, and Remark 2.2's bound."""
    sums = rung_sums(log_w, rung, num_rungs)
    lambdas = {kind: combination(kind, sums) for kind in WEIGHTS}
    values = {kind: combined_ess(log_w, rung, lam, sums) for kind, lam in lambdas.items()}
    total = float(np.asarray(log_w).size)
    bound = float(np.sum(sums.ess) - 0.25 - 1.0 / total)
    return ITResult(sums.n, sums.ess, values["optimal"], values["naive"], values["st"], lambdas,
                    bound, bool(values["optimal"] >= bound))


class WeightedMoments(NamedTuple):
    """Weighted mean and sd of one scalar, and the mean's MCSE (weights and autocorrelation)."""

    mean: float
    sd: float
    mcse_mean: float


def weighted_moments(values: np.ndarray, log_w: np.ndarray, rung: np.ndarray,
                     lam: np.ndarray) -> WeightedMoments:
    """ĥ = Σ_i λ_i ĥ_i for h(x) = x and h(x) = x², with the delta-method MCSE of the mean.

    Parameters
    ----------
    values, log_w, rung
        (chain, draw, slot) arrays: the scalar's draws, their log weights and rungs.
    lam
        The combination λ (length m).
    """
    values = np.asarray(values, dtype=float)
    log_w = np.asarray(log_w, dtype=float)
    rung = np.asarray(rung)
    m = lam.shape[0]
    # per-rung weights scaled by each rung's largest, which cancels in ĥ_i
    scaled = np.empty_like(log_w)
    for i in range(m):
        at = rung == i
        if np.any(at):
            scaled[at] = np.exp(log_w[at] - np.max(log_w[at]))
    weights = np.where(np.isfinite(scaled), scaled, 0.0)
    onehot = rung[..., None] == np.arange(m)  # (chain, draw, slot, m)
    w_at = weights[..., None] * onehot
    # chain averages of Σ_slot 1{r = i} w, 1{r = i} w x and 1{r = i} w x² (chain, draw, 3m)
    series = np.concatenate([w_at.sum(2), (w_at * values[..., None]).sum(2),
                             (w_at * values[..., None] ** 2).sum(2)], axis=-1)
    used = lam > 0

    def estimate(means, xp):
        w_sum, wx, wx2 = means[:m], means[m:2 * m], means[2 * m:]
        safe = xp.where(used, w_sum, 1.0)
        mean = xp.sum(xp.where(used, lam * wx / safe, 0.0))
        second = xp.sum(xp.where(used, lam * wx2 / safe, 0.0))
        return mean, second

    mean, second = estimate(series.mean(axis=(0, 1)), np)
    mcse = delta_mcse(series, lambda means: estimate(means, _jnp())[0])
    return WeightedMoments(float(mean), float(np.sqrt(max(second - mean**2, 0.0))), mcse)


def _jnp():
    import jax.numpy as jnp

    return jnp
