"""PT's and SPT's block of ``tempering summary``: swap rates per pair, round trips, the schedule
in force, the local barrier profile, the stepping-stone log normalising constant and the mixing
report (:mod:`tempering.algorithms.pt.mixing`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from tempering.algorithms.pt.legs import leg_lines, leg_summary, prior_round_trips
from tempering.algorithms.pt.mixing import mixing_lines, mixing_summary, stepping_stone
from tempering.algorithms.pt.stats import (
    BETA,
    REPLICA_AT_RUNG,
    ROUND_TRIPS,
    SWAP_LOG_DOWN,
    SWAP_LOG_UP,
    SWAP_PROB,
    SWAP_PROPOSED,
)
from tempering.algorithms.spec import StatArrays
from tempering.ladders import barrier_profile


def swap_summary(stats: StatArrays) -> dict[str, Any]:
    """Swap rate per adjacent pair and round trips. A pair's rate is its summed acceptance
    probability over the iterations that proposed it (with ``deo``, every other iteration)."""
    prob, proposed = stats[SWAP_PROB.name], stats[SWAP_PROPOSED.name]
    counts = proposed.sum(axis=(0, 1))
    rates = prob.sum(axis=(0, 1)) / np.maximum(counts, 1)
    swap_rate = [float(p) if c else None for p, c in zip(rates, counts, strict=True)]
    betas = np.asarray(stats[BETA.name])[:, -1, :] if BETA.name in stats else None
    extra: dict[str, Any] = {}
    if betas is not None:  # (chain, rung): fixed during sampling
        extra["schedule"] = betas.tolist()
        if all(r is not None for r in swap_rate):
            mids, local = barrier_profile(betas[0], 1.0 - np.asarray(swap_rate, dtype=float))
            extra["lambda_profile"] = {"beta": np.asarray(mids).tolist(),
                                       "lambda": np.asarray(local).tolist()}
    if SWAP_LOG_UP.name in stats:
        extra |= stepping_stone(stats[SWAP_LOG_UP.name], None if betas is None else betas[0])
    if betas is not None:
        known = all(r is not None for r in swap_rate)
        extra |= leg_summary(stats, betas[0],
                             1.0 - np.asarray(swap_rate, dtype=float) if known else None,
                             stats.get(SWAP_LOG_UP.name), stats.get(SWAP_LOG_DOWN.name))
        through = prior_round_trips(stats.get(REPLICA_AT_RUNG.name), betas[0])
        if through is not None:
            extra["round_trips_prior"] = through
    # the counter's last value, as the progress bar and the headline show it (warmup's trips
    # included; the rate and round_trips_prior count sampling's only)
    return {"swap_rate": swap_rate, "round_trips": int(stats[ROUND_TRIPS.name][:, -1].sum()),
            **extra, **mixing_summary(swap_rate, stats[ROUND_TRIPS.name])}


def swap_lines(summary: Mapping[str, Any]) -> list[str]:
    rates = " ".join("—" if r is None else f"{r:.2f}" for r in summary["swap_rate"])
    lines = [f"swap acceptance by pair (0-1, 1-2, ...): {rates}   "
             f"round trips {summary['round_trips']} ({_ends(summary)})"]
    through = summary.get("round_trips_prior")
    if through is not None:
        per = through["per_chain"]
        lines.append(f"round trips through the prior (target → prior → target): {through['total']}"
                     f" (per chain {min(per)}–{max(per)}); each brings back a fresh state, in "
                     "the proportions the rungs between the prior and the target give the modes")
    if "schedule" in summary:
        first = summary["schedule"][0]
        same = all(np.allclose(row, first) for row in summary["schedule"])
        coordinate = "s (2 − β on the variational leg)" if max(first) > 1.0 else "β"
        lines.append(f"schedule: {len(first)} rungs, {coordinate} (chain 0"
                     f"{'' if same else '; each chain adapted its own'}): "
                     + " ".join(f"{b:.3g}" for b in first))
    return lines + leg_lines(summary) + mixing_lines(summary)


def _ends(summary: Mapping[str, Any]) -> str:
    """What the full line's round trips run between."""
    if summary.get("reference") == "stabilized":
        return "q end → prior end → q end"
    return "target → last rung → target"
