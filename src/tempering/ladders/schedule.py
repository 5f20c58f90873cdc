"""Inverse-temperature schedules.

Seed 000 §4.3: geometric spacing β_m = β_*^(m/M), m = 0..M, with M = 6 auxiliary distributions and
β_* = 1/8 (so β_m = 2^(−m/2)). ``rungs`` counts every distribution including the target (the
paper's setting is ``rungs = 7``); the same option name has the same meaning for every ladder in
the package.

Seed 001 (importance tempering, §2; formulas restored in the seeds' README, as in the R package
tgp's ``default.itemps``) writes the ladder 1 = k_1 > k_2 > … > k_m = k_min with m = ``rungs`` and
k_min = ``beta_min``, and offers three spacings, all implemented here with tgp's definitions:

- geometric:  k_i = (1 + Δ)^(1−i),  Δ = k_min^(1/(1−m)) − 1   (the same ladder as seed 000's);
- harmonic:   k_i = 1 / (1 + Δ (i − 1)),  Δ = (1/k_min − 1)/(m − 1);
- sigmoidal:  k_i = 1.01 − 1.01 / (1 + e^(−t_i)),  t_1..t_m equally spaced from
  log(0.01/1) to log((1.01 − k_min)/k_min), the logit-like ends at which k = 1 and k = k_min.

Index i = 1..m of the paper is rung i − 1 here (rung 0 is always the target). ``prior_rung``
appends k = 0 (the prior, for likelihood tempering) after k_min, so that thermodynamic
integration and stepping-stone estimates reach the log evidence itself; the schedule then places
the first ``rungs − 1`` rungs and the prior is the last.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

LadderKind = Literal["geometric", "harmonic", "sigmoidal"]


def _check(rungs: int, beta_min: float) -> None:
    if rungs < 1:
        raise ValueError("rungs must be at least 1")
    if not 0.0 < beta_min <= 1.0:
        raise ValueError("beta_min must lie in (0, 1]")


def geometric_betas(rungs: int, beta_min: float) -> np.ndarray:
    """β_m = β_min^(m/M) for m = 0..M, M = rungs − 1 (β_0 = 1, β_M = β_min).

    This is seed 001's geometric ladder k_i = (1 + Δ)^(1−i) with Δ = k_min^(1/(1−m)) − 1, since
    (1 + Δ)^(1−i) = k_min^((i−1)/(m−1)).
    """
    _check(rungs, beta_min)
    if rungs == 1:
        return np.ones(1)
    return beta_min ** (np.arange(rungs) / (rungs - 1))


def harmonic_betas(rungs: int, beta_min: float) -> np.ndarray:
    """k_i = 1 / (1 + Δ (i − 1)), Δ = (1/k_min − 1)/(m − 1), i = 1..m (tgp's harmonic ladder)."""
    _check(rungs, beta_min)
    if rungs == 1:
        return np.ones(1)
    delta = (1.0 / beta_min - 1.0) / (rungs - 1)
    return 1.0 / (1.0 + delta * np.arange(rungs))


def sigmoidal_betas(rungs: int, beta_min: float) -> np.ndarray:
    """k_i = 1.01 − 1.01/(1 + e^(−t_i)), t equally spaced between log((1.01 − x)/x) at x = 1 and
    x = k_min (tgp's sigmoidal ladder), so k_1 = 1 and k_m = k_min up to rounding (set exactly)."""
    _check(rungs, beta_min)
    if rungs == 1:
        return np.ones(1)
    ends = np.log((1.01 - np.array([1.0, beta_min])) / np.array([1.0, beta_min]))
    t = np.linspace(ends[0], ends[1], rungs)
    betas = 1.01 - 1.01 / (1.0 + np.exp(-t))
    betas[0], betas[-1] = 1.0, beta_min
    return betas


SCHEDULES = {"geometric": geometric_betas, "harmonic": harmonic_betas,
             "sigmoidal": sigmoidal_betas}


def ladder_betas(kind: LadderKind, rungs: int, beta_min: float,
                 prior_rung: bool = False) -> np.ndarray:
    """The ``kind`` ladder with ``rungs`` rungs in all; with ``prior_rung`` the last one is k = 0.

    Raises
    ------
    ValueError
        An unknown ``kind``, or ``prior_rung`` with fewer than 3 rungs (1, k_min and 0).
    """
    if kind not in SCHEDULES:
        raise ValueError(f"unknown ladder {kind!r} (known: {', '.join(SCHEDULES)})")
    if not prior_rung:
        return SCHEDULES[kind](rungs, beta_min)
    if rungs < 3:
        raise ValueError("a ladder with a prior rung needs at least 3 rungs (1, beta_min, 0)")
    return np.append(SCHEDULES[kind](rungs - 1, beta_min), 0.0)
