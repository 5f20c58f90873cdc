"""The legs of a PT run's path in ``tempering summary``: which reference each leg starts from,
its schedule, its communication barrier Λ̂, its round trips (target → the leg's reference →
target, read off the index process) and its stepping-stone log evidence.

A one-leg path runs from the target to the prior, or to a Gaussian q fitted in warmup
(``reference=variational``; :mod:`tempering.ladders.reference`). A ``stabilized`` path is one line
q → … → target → … → prior, whose schedule coordinates s run 2 → 1 → 0 (β = 2 − s on the
variational leg). Each leg estimates log Z by stepping stones over its own pairs (both references
are normalised): the prior leg from the hotter rung of each pair, as a one-leg path does; the
variational leg, whose rungs run q (m = 0) → target, from its wider side too: Z_m/Z_{m−1} =
E_{π_{m−1}}[exp(h_m − h_{m−1})] over the draws of rung m − 1 (``swap_log_down``; the reciprocal
direction, from the narrower rung, is a harmonic-mean-like estimate whose bias and MCSE were
worse). The run's log evidence is the variational leg's, as Pigeons.jl reports it, with the prior
leg's beside it as a check; the
round trips count the replicas' trips between the two ends. Written by hand: nothing in ArviZ or
BlackJAX knows PT's legs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from tempering.algorithms.pt.mixing import stepping_stone
from tempering.algorithms.pt.stats import REFERENCE_ACTIVE, REPLICA_AT_RUNG
from tempering.ladders.reference import leg_slices, target_index


def leg_summary(stats: Mapping[str, np.ndarray], schedule: np.ndarray,
                rejection: np.ndarray | None, log_up: np.ndarray | None,
                log_down: np.ndarray | None = None) -> dict[str, Any]:
    """``reference`` (prior, variational or stabilized) and, for two legs, each leg's rungs,
    β's, Λ̂ and log evidence; the run's log evidence then is the variational leg's."""
    name = REFERENCE_ACTIVE.name
    active = name in stats and bool(np.all(np.asarray(stats[name])[:, -1]))
    slices = leg_slices(schedule)
    if "" in slices:
        return {"reference": "variational" if active else "prior"}
    legs = []
    index = stats.get(REPLICA_AT_RUNG.name)
    for name, rungs in slices.items():
        pairs = slice(rungs.start, rungs.stop - 1)
        beta = np.where(schedule[rungs] > 1.0, 2.0 - schedule[rungs], schedule[rungs])
        leg: dict[str, Any] = {"name": name, "betas": beta.tolist()}
        if index is not None:
            end = rungs.start if name == "variational" else rungs.stop - 1
            leg["round_trips"] = leg_round_trips(np.asarray(index), target_index(schedule), end)
        if rejection is not None:
            leg["barrier"] = float(np.sum(np.clip(rejection[pairs], 0.0, 1.0)))
        stones = log_down if name == "variational" else log_up
        if stones is not None:
            stone = stepping_stone(stones[..., pairs], np.array([0.0]))
            if stone:
                leg["log_evidence"] = stone["log_z_ratio"]
                leg["log_evidence_se"] = stone["log_z_ratio_se"]
        legs.append(leg)
    out: dict[str, Any] = {"reference": "stabilized", "legs": legs}
    if "log_evidence" in legs[0]:
        out |= {"log_z_ratio": legs[0]["log_evidence"], "log_z_ratio_se":
                legs[0]["log_evidence_se"], "log_z_is_evidence": True}
    return out


def leg_round_trips(index: np.ndarray, target: int, end: int) -> int:
    """Trips target → ``end`` → target made in sampling, all replicas and chains, read off the
    index process ``index`` (chain, draw, rung): the replica id on each rung per draw."""
    return int(np.sum(trips_per_chain(index, target, end)))


def trips_per_chain(index: np.ndarray, target: int, end: int) -> np.ndarray:
    """:func:`leg_round_trips` per chain, (chains,). Post hoc, from the recorded index process
    (nothing in the sampling loop), and without a loop over draws: keep, per replica, only the
    draws it sits at the target or at ``end``; its trips are its runs of target visits after
    the first (each later run began with a return from ``end``)."""
    chains, draws, _ = index.shape
    at_rung = np.argsort(index, axis=-1)  # (chain, draw, replica): each replica's rung
    label = np.where(at_rung == target, 1, np.where(at_rung == end, 2, 0))
    seen = np.where(label > 0, np.arange(draws)[None, :, None], -1)
    last = np.maximum.accumulate(seen, axis=1)  # the latest draw at the target or the end
    before = np.concatenate([np.full_like(last[:, :1], -1), last[:, :-1]], axis=1)
    previous = np.where(before >= 0, np.take_along_axis(label, np.maximum(before, 0), axis=1),
                        0)
    runs = np.sum((label == 1) & (previous != 1), axis=1)  # (chain, replica)
    return np.sum(np.maximum(runs - 1, 0), axis=-1).astype(np.int64)


def prior_round_trips(index: np.ndarray | None, schedule: np.ndarray) -> dict[str, Any] | None:
    """The round trips through the prior: a replica leaves the target rung, reaches the prior
    (the last rung, β = 0) and comes back to the target — per chain and in all. ``None`` when
    the line does not end at the prior (a fixed ladder with β_min > 0, a variational one-leg
    path) or the index process was not recorded.

    Unlike the full line's count (``round_trips``: rung 0 → last rung → rung 0, with
    ``stabilized`` q end → prior end → q end), this one is anchored at the target, whose draws are
    kept, and names the reference every mode's mass is taken from. It is still a count of the
    index process: each trip refreshes the replica's state, but only in the proportions the
    tempered rungs between the prior and the target give the modes — a narrow mode that vanishes
    at small β comes back on none of them (``gauss_mixture`` with ``widths=unequal``: 0 of ~1 800
    arrivals), so the summary checks the trips against the draws' ESS
    (:func:`tempering.summary.checks.trip_warnings`)."""
    schedule = np.asarray(schedule, dtype=float)
    if index is None or schedule[-1] != 0.0:
        return None
    per_chain = trips_per_chain(np.asarray(index), target_index(schedule), len(schedule) - 1)
    return {"total": int(per_chain.sum()), "per_chain": per_chain.tolist()}


def leg_lines(summary: Mapping[str, Any]) -> list[str]:
    """One line per leg of a stabilized path; one line naming a variational reference."""
    if summary.get("reference") == "variational":
        return ["reference: a Gaussian q fitted to the target in warmup (variational PT); the "
                "last rung is q"]
    lines = []
    for leg in summary.get("legs", []):
        what = "q → target" if leg["name"] == "variational" else "target → prior"
        text = (f"{leg['name']} leg ({what}): {len(leg['betas'])} rungs, β "
                + " ".join(f"{b:.3g}" for b in leg["betas"]))
        if "barrier" in leg:
            text += f"; Λ {leg['barrier']:.2f}"
        if "round_trips" in leg:
            text += f"; round trips {leg['round_trips']}"
        if "log_evidence" in leg:
            text += f"; log Z {leg['log_evidence']:.3f} ± {leg['log_evidence_se']:.3f}"
        lines.append(text)
    return lines
