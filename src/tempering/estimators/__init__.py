"""Pure estimators on arrays of draws, below the driver and the run file: the seed papers' R-hat,
between-chain ESS and autocorrelation time (:mod:`paper`), importance-tempering weights and their
combinations (:mod:`importance`, seed 001), thermodynamic-integration and stepping-stone evidence
(:mod:`evidence`), and delta-method MCSEs (:mod:`delta`). ArviZ supplies the standard diagnostics;
these are what it does not have. Nothing here reads a run file.
"""

import tempering.jax_setup  # noqa: F401  # JAX's settings first (the LAPACK rule)
from tempering.estimators.evidence import EvidenceResult, log_evidence
from tempering.estimators.importance import (
    WEIGHTS,
    ITResult,
    Weights,
    combined_log_weights,
    importance_tempering,
    rung_sums,
    weighted_moments,
)
from tempering.estimators.paper import (
    autocorrelation,
    autocorrelation_time,
    effective_sample_size_act,
    ess_between_chain,
    ess_per_cost,
    ess_per_second,
    gelman_rubin,
)

__all__ = [
    "WEIGHTS",
    "EvidenceResult",
    "ITResult",
    "Weights",
    "autocorrelation",
    "autocorrelation_time",
    "combined_log_weights",
    "effective_sample_size_act",
    "ess_between_chain",
    "ess_per_cost",
    "ess_per_second",
    "gelman_rubin",
    "importance_tempering",
    "log_evidence",
    "rung_sums",
    "weighted_moments",
]
