"""Convergence and efficiency diagnostics: ArviZ's, and the seed papers' own estimators."""

from tempering.diagnostics.paper import (
    autocorrelation,
    autocorrelation_time,
    effective_sample_size_act,
    ess_between_chain,
    ess_per_cost,
    ess_per_second,
    gelman_rubin,
)
from tempering.diagnostics.summary import summarize

__all__ = [
    "autocorrelation",
    "autocorrelation_time",
    "effective_sample_size_act",
    "ess_between_chain",
    "ess_per_cost",
    "ess_per_second",
    "gelman_rubin",
    "summarize",
]
