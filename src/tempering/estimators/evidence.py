"""Log-evidence estimates from the rungs of a tempering run: thermodynamic integration and
stepping stones.

With tempered targets π_k ∝ exp(b + k U) and Z(k) = ∫ exp(b + k U), d log Z/dk = E_k[U] and
d² log Z/dk² = Var_k[U]. Over a ladder k_0 = 1 > k_1 > … > k_{m−1}, with Δ_i = k_i − k_{i+1}:

- thermodynamic integration (Gelman & Meng 1998; Friel & Pettitt 2008) with the trapezoid rule
  corrected by the variances (Friel, Hurn & Wyse 2014), whose error is O(Δ⁴) instead of O(Δ²):

      log Z(k_0) − log Z(k_{m−1}) ≈ Σ_i Δ_i (E_i + E_{i+1})/2 − Δ_i² (V_i − V_{i+1})/12;

- stepping stones (Xie et al. 2011), each ratio estimated from the draws of the hotter rung:

      log Z(k_0) − log Z(k_{m−1}) ≈ Σ_i log Ê_{k_{i+1}}[exp(Δ_i U)],

  computed in log space (each term's largest exponent factored out).

When the likelihood alone is tempered (U = log-likelihood) and the last rung is the prior (k = 0),
Z(0) = ∫ p(θ) dθ = 1 for a normalised prior, so both are estimates of the log evidence log p(X);
otherwise they estimate the log ratio log Z(1) − log Z(k_min). E_i, V_i are per-rung means of the
draws (a tempering chain's draws at rung i, or PT's rung-i replica); MCSEs come from the delta
method over the chains' averages (:func:`tempering.estimators.delta.delta_mcse`), so they account
for autocorrelation and for the correlation between rungs.
"""

from __future__ import annotations

from typing import NamedTuple

import jax.numpy as jnp
import numpy as np

from tempering.estimators.delta import delta_mcse
from tempering.precision import in_float64


class EvidenceResult(NamedTuple):
    """log Z(k_0) − log Z(k_{m−1}) by TI and by stepping stones, with MCSEs."""

    ti: float
    ti_mcse: float
    ss: float
    ss_mcse: float
    k_low: float


def _series(energy: np.ndarray, rung: np.ndarray, betas: np.ndarray):
    """Per-draw series (chain, draw, K) of the per-rung sums, and the constants they use."""
    m = betas.shape[0]
    onehot = (rung[..., None] == np.arange(m)).astype(float)  # (chain, draw, slot, m)
    counts = onehot.sum(axis=(0, 1, 2))
    finite = np.where(np.isfinite(energy), energy, np.nan)
    centre = np.array([np.nanmean(finite[rung == i]) if counts[i] else 0.0 for i in range(m)])
    deltas = betas[:-1] - betas[1:]
    # stepping stone i uses rung i + 1's draws: exp(Δ_i U − c_i), c_i its largest exponent
    exponent = deltas[None, None, None, :] * energy[..., None]  # (chain, draw, slot, m−1)
    hot = onehot[..., 1:] > 0
    shift = np.array([np.max(exponent[..., i][hot[..., i]]) if counts[i + 1] else 0.0
                      for i in range(m - 1)])
    dev = np.where(onehot > 0, energy[..., None] - centre, 0.0)
    stones = np.where(hot, np.exp(exponent - shift), 0.0)
    series = np.concatenate([onehot.sum(2), dev.sum(2), (dev**2).sum(2), stones.sum(2)], axis=-1)
    return series, centre, shift, deltas


@in_float64
def log_evidence(energy: np.ndarray, rung: np.ndarray, betas: np.ndarray) -> EvidenceResult:
    """TI and stepping-stone estimates of log Z(k_0) − log Z(k_{m−1}).

    Parameters
    ----------
    energy, rung
        (chain, draw, slot) arrays of U and of the rung index of each draw.
    betas
        k_0 = 1 > … > k_{m−1} (length m ≥ 2).
    """
    betas = np.asarray(betas, dtype=float)
    energy = np.asarray(energy, dtype=float)
    rung = np.asarray(rung)
    m = betas.shape[0]
    series, centre, shift, deltas = _series(energy, rung, betas)

    def moments(means):
        count, dev, dev2 = means[:m], means[m:2 * m], means[2 * m:3 * m]
        mean_dev = dev / count
        return centre + mean_dev, dev2 / count - mean_dev**2

    def ti(means):
        e, v = moments(means)
        return jnp.sum(deltas * (e[:-1] + e[1:]) / 2.0 - deltas**2 * (v[:-1] - v[1:]) / 12.0)

    def ss(means):
        count, stones = means[:m], means[3 * m:]
        return jnp.sum(shift + jnp.log(stones / count[1:]))

    means = jnp.asarray(series.mean(axis=(0, 1)))
    with np.errstate(all="ignore"):
        ti_value, ss_value = float(ti(means)), float(ss(means))
    return EvidenceResult(ti_value, delta_mcse(series, ti), ss_value, delta_mcse(series, ss),
                          float(betas[-1]))
