"""Inverse-temperature schedules.

Seed 000 §4.3: geometric spacing β_m = β_*^(m/M), m = 0..M, with M = 6 auxiliary distributions and
β_* = 1/8 (so β_m = 2^(−m/2)). ``rungs`` counts every distribution including the target (the
paper's setting is ``rungs = 7``); the same option name has the same meaning for every ladder in
the package.
"""

from __future__ import annotations

import numpy as np


def geometric_betas(rungs: int, beta_min: float) -> np.ndarray:
    """β_m = β_min^(m/M) for m = 0..M, M = rungs − 1 (β_0 = 1, β_M = β_min)."""
    if rungs < 1:
        raise ValueError("rungs must be at least 1")
    if not 0.0 < beta_min <= 1.0:
        raise ValueError("beta_min must lie in (0, 1]")
    if rungs == 1:
        return np.ones(1)
    return beta_min ** (np.arange(rungs) / (rungs - 1))
