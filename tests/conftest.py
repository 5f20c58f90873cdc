"""Shared helpers for the statistical tests: z-scores from ArviZ's Monte-Carlo standard errors."""

from __future__ import annotations

import arviz as az
import numpy as np

import tempering  # noqa: F401  (enables float64 before any test builds arrays)


def z_mean(draws: np.ndarray, truth: float) -> float:
    """(mean − truth) / MCSE(mean) for a (chain, draw) array."""
    return float((np.mean(draws) - truth) / az.mcse(draws, method="mean"))


def z_sd(draws: np.ndarray, truth: float) -> float:
    """(sd − truth) / MCSE(sd) for a (chain, draw) array."""
    return float((np.std(draws, ddof=1) - truth) / az.mcse(draws, method="sd"))
