"""Exact posterior of the change-point model over k, by quadrature and a forward recursion.

With Gamma(α, β) heights the heights integrate out (Gamma–Poisson conjugacy): a segment of width w
holding n events contributes

    M(n, w) = β^α Γ(α + n) / (Γ(α) (β + w)^(α + n)),

and, with the position prior p(s | k) = (2k + 1)! Π_j (s_{j+1} − s_j) on [0, 1] (rescaled units, as
in :mod:`tempering.models.changepoint`),

    p(k | t) ∝ p(k) (2k + 1)! ∫_{0 < s_1 < … < s_k < 1} Π_{j=0}^{k} f(s_j, s_{j+1}) ds,
    f(a, b) = (b − a) M(n(a, b), b − a).

The integrand factorises over consecutive positions, so the k-fold integral is a chain of
matrix–vector products over a grid of positions: Gauss–Legendre nodes inside every gap between
consecutive distinct events (where n(a, b) is constant and f smooth). Ordered pairs of nodes in one
gap are kept with their product weights, so two change points falling in the same gap — a region of
relative size about (gap)³ — are the only quadrature error. The sums run in log space.

For k = 1 the single position's posterior is explicit on the grid, which gives E[s_1 | k = 1, t]
and the conditional means of the two heights, E[h_j | s, t] = (α + n_j)/(β + w_j). These are the
known answers of the change-point tests and of seed 001's coal-mining reproduction.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy.special import gammaln, logsumexp

from tempering.models.base import Model


class ExactChangepoint(NamedTuple):
    """p(k | t) for k = 0..k_max, and the k = 1 conditional means in the data's units."""

    prob_k: np.ndarray
    position_given_1: float
    height_before_given_1: float
    height_after_given_1: float


def _log_marginal(n: np.ndarray, w: np.ndarray, alpha: float, beta: float) -> np.ndarray:
    """log M(n, w): a segment's heights integrated against their Gamma(α, β) prior."""
    return (alpha * np.log(beta) - gammaln(alpha) + gammaln(alpha + n)
            - (alpha + n) * np.log(beta + w))


def changepoint_exact_posterior(model: Model, nodes_per_gap: int = 8) -> ExactChangepoint:
    """The exact posterior of a :func:`~tempering.models.changepoint.changepoint_model` over k."""
    from tempering.models.changepoint import Prior

    opts, attrs = model.options, model.attrs
    length = attrs["t_max"] - attrs["t_min"]
    prior = Prior(int(opts["k_max"]), float(opts["lam"]), float(opts["alpha"]),
                  float(opts["beta"]) / length)
    alpha, beta = prior.alpha, prior.beta
    events = np.sort(np.asarray(model.data["u"]))
    cuts = np.unique(np.concatenate([[0.0], events, [1.0]]))
    g, gw = np.polynomial.legendre.leggauss(nodes_per_gap)
    lo, hi = cuts[:-1, None], cuts[1:, None]
    nodes = (lo + (hi - lo) * (g + 1) / 2).ravel()
    log_weights = np.log(((hi - lo) * gw / 2).ravel())
    count = np.searchsorted(events, nodes, side="right").astype(float)  # events ≤ node

    def log_f(a, n_a, b, n_b):
        width = b - a
        with np.errstate(divide="ignore", invalid="ignore"):
            value = np.log(width) + _log_marginal(n_b - n_a, width, alpha, beta)
        return np.where(width > 0, value, -np.inf)

    n_total = float(events.size)
    from_start = log_f(0.0, 0.0, nodes, count)  # f(0, s)
    to_end = log_f(nodes, count, 1.0, n_total)  # f(s, 1)
    between = log_f(nodes[:, None], count[:, None], nodes[None, :], count[None, :])
    log_prob_k = prior.log_prob_k()
    log_post = np.empty(prior.k_max + 1)
    log_post[0] = log_f(0.0, 0.0, 1.0, n_total)
    message = from_start  # ∫ over s_1 < … < s_m = node of the first m + 1 factors
    for k in range(1, prior.k_max + 1):
        log_post[k] = logsumexp(message + log_weights + to_end)
        message = logsumexp((message + log_weights)[:, None] + between, axis=0)
    log_post += log_prob_k + gammaln(2 * np.arange(prior.k_max + 1) + 2.0)
    prob_k = np.exp(log_post - logsumexp(log_post))

    post_s = from_start + to_end + log_weights
    post_s = np.exp(post_s - logsumexp(post_s))
    h_before = (alpha + count) / (beta + nodes)
    h_after = (alpha + n_total - count) / (beta + 1.0 - nodes)
    return ExactChangepoint(prob_k, attrs["t_min"] + length * float(post_s @ nodes),
                            float(post_s @ h_before) / length, float(post_s @ h_after) / length)
