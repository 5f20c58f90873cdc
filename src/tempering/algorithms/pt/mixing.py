"""How well a PT run communicates between its rungs: the communication barrier and round trips
(Syed, Bouchard-Côté, Deligiannidis & Doucet 2021, JRSS-B, §3-4).

With r_i the swap rejection rate of the adjacent pair (i−1, i), the global communication barrier
is estimated by the sum of rejections, Λ̂ = Σ_i r_i (their sum-of-rejections estimator; Λ does
not depend on the schedule, only how evenly the schedule spreads it), and λ̂ per pair is r_i
(the local barrier times the pair's β gap). Their Theorem 3 gives the round-trip rate — round
trips completed per iteration, all replicas together — on a schedule with these rejections,

    non-reversible (DEO):  τ = 1 / (2 + 2 Σ_i r_i / (1 − r_i)),
    reversible (sweep-like random pairs): τ = 1 / (2N + 2 Σ_i r_i / (1 − r_i)),

with N the number of pairs; as the rungs get dense, Σ r/(1 − r) → Λ and the DEO rate tends to
1 / (2 + 2Λ). The measured rate is the round trips made during sampling per recorded draw (per
iteration when ``thin`` is 1), all replicas of a chain together, averaged over chains (on a
6-rung DEO run with well-mixing rungs: 0.234 measured, 0.235 predicted). Written by hand:
neither BlackJAX nor ArviZ has it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np


def mixing_summary(swap_rate: Sequence[float | None], round_trips: np.ndarray) -> dict[str, Any]:
    """Λ̂, the per-pair rejections, and the measured round-trip rate beside the two predictions.

    Parameters
    ----------
    swap_rate
        Mean swap acceptance probability per adjacent pair (``None`` for a pair never proposed).
    round_trips
        The running round-trip count, (chain, draw): all replicas of a chain together.
    """
    rates = [r for r in swap_rate if r is not None]
    if not rates:
        return {}
    rejection = np.clip(1.0 - np.asarray(rates, dtype=float), 0.0, 1.0)
    pairs = len(rejection)
    odds = float(np.sum(rejection / np.maximum(1.0 - rejection, 1e-12)))
    counts = np.asarray(round_trips, dtype=float)
    draws = counts.shape[1]
    made = counts[:, -1] - counts[:, 0]  # the counter carries warmup's trips: sampling's only
    measured = float(np.mean(made) / max(draws - 1, 1))
    return {"barrier": float(np.sum(rejection)), "local_barrier": rejection.tolist(),
            "round_trip_rate": measured, "round_trip_rate_deo": 1.0 / (2.0 + 2.0 * odds),
            "round_trip_rate_optimal": 1.0 / (2.0 + 2.0 * float(np.sum(rejection))),
            "round_trip_rate_reversible": 1.0 / (2.0 * pairs + 2.0 * odds),
            "suggested_rungs": int(np.ceil(2.0 * np.sum(rejection))) + 1}


def stepping_stone(log_up: np.ndarray, betas: np.ndarray | None,
                   batches: int = 20) -> dict[str, Any]:
    """log Z(β_0) − log Z(β_M) by stepping stones over the swap proposals (Xie et al. 2011 over
    the run's schedule): Z_{m−1}/Z_m = E_{π_m}[L(θ)^(β_{m−1} − β_m)], estimated by the mean of
    exp(``log_up``) over the draws that proposed pair (m − 1, m), per chain, and averaged over
    chains; with the prior as the last rung (β_M = 0) and a normalised prior, log Z(β_M) = 0 and
    this is the log evidence.

    Its Monte-Carlo error is by batch means and the delta method, over the chain's whole sum:
    per chain, each pair's draws of w = exp(``log_up``) are cut into ``batches`` consecutive
    batches, batch b's sum over pairs of mean_b(w)/mean(w) is formed, and the variance of the
    mean of those sums is the chain's; summed over chains and divided by the chains squared.
    Adjacent pairs share replicas through the swaps, so their estimates covary: the sum of
    each pair's variance alone (before 2026-11-29) understated the error about twofold (ten
    seeds of ``tests/pt/test_pt_reference.py``'s run: errors of 2.3 such units on average,
    1.2 of these).

    Parameters
    ----------
    log_up
        (chain, draw, pair): log h_{m−1}(θ_m) − log h_m(θ_m), NaN where not proposed.
    betas
        The schedule of chain 0 (to say whether the last rung is the prior), or ``None``.
    """
    values = np.asarray(log_up, dtype=float)
    estimates, variances = [], []
    for chain in values:
        total, linear = 0.0, np.zeros(batches)
        for pair in chain.T:
            seen = pair[np.isfinite(pair)]
            if seen.size < batches:
                return {}
            w = np.exp(seen - seen.max())
            total += float(seen.max() + np.log(np.mean(w)))
            linear += np.array([b.mean() for b in np.array_split(w, batches)]) / np.mean(w)
        estimates.append(total)
        variances.append(float(linear.var(ddof=1) / batches))
    chains = len(estimates)
    return {"log_z_ratio": float(np.mean(estimates)), "log_z_ratio_chains": estimates,
            "log_z_ratio_se": float(np.sqrt(np.sum(variances)) / chains),
            "log_z_is_evidence": bool(betas is not None and float(betas[-1]) == 0.0)}


def mixing_lines(summary: Mapping[str, Any]) -> list[str]:
    """Λ̂, λ̂ per pair and the round-trip rates, for ``tempering summary``."""
    if "barrier" not in summary:
        return []
    local = " ".join(f"{r:.2f}" for r in summary["local_barrier"])
    lines = []
    if "log_z_ratio" in summary:
        what = ("log evidence log Z (the last rung is a normalised reference)"
                if summary["log_z_is_evidence"] else "log Z(target) − log Z(last rung)")
        error = summary["log_z_ratio_se"]
        lines.append(f"{what}, stepping stone over the swaps: {summary['log_z_ratio']:.3f}"
                     + f" ± {error:.3f} (MCSE, batch means)")
    if "lambda_profile" in summary:
        profile = summary["lambda_profile"]
        pairs = zip(profile["beta"], profile["lambda"], strict=True)
        lines.append("local barrier λ(β) at the pairs' midpoints (chain 0): "
                     + ", ".join(f"{b:.3g}: {v:.2f}" for b, v in pairs))
    return [f"communication barrier Λ {summary['barrier']:.2f} (rejection per pair: {local}); "
            f"about {summary['suggested_rungs']} rungs suit DEO (2Λ + 1)",
            f"round trips per draw {summary['round_trip_rate']:.4f}; optimal DEO rate "
            f"1/(2 + 2Λ) {summary['round_trip_rate_optimal']:.4f}; for this schedule "
            f"(Theorem 3): DEO {summary['round_trip_rate_deo']:.4f}, reversible "
            f"{summary['round_trip_rate_reversible']:.4f}", *lines]
