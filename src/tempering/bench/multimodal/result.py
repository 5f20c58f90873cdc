"""What every method's runner returns: its draws of θ, its evidence estimate, its seconds (set-up
apart from sampling) and its evaluation count — one shape for all, so the metrics, tables and
plots never ask which method made them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass
class MethodRun:
    """One method's run on one target.

    Attributes
    ----------
    method
        The label in the tables ("pt", "nuts", "smc", ...).
    draws
        θ draws (chains, n, d): an MCMC method's chains in order (prefixes are its draws so far),
        or one population (1, n, d) for a weighted sampler.
    weights
        Normalised weights (n,) of a weighted population (SMC particles, dynesty's dead points);
        ``None`` for equally weighted chains.
    log_z, log_z_se
        The method's own log-evidence estimate and its reported error (``None`` when it makes
        none: NUTS).
    seconds
        Wall seconds by phase: ``compile`` (JAX compilation, the pilot's included), ``pilot``
        (PT's rung-placing pilot run, compilation excluded), ``warmup`` (adaptation or burn-in),
        ``sampling`` (the kept draws) and ``total`` (the whole call, Python included).
    evals
        Log-density (or likelihood) evaluations over the whole run, warmup and pilot included;
        ``evals_kind`` says what is counted ("gradient": one per leapfrog step).
    info
        Method-specific facts for the report (rungs, Λ̂, stages, iterations, settings).
    """

    method: str
    draws: np.ndarray
    weights: np.ndarray | None
    log_z: float | None
    log_z_se: float | None
    seconds: dict[str, float]
    evals: float | None
    evals_kind: str
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def chains(self) -> int:
        return int(self.draws.shape[0])

    @property
    def setup_seconds(self) -> float:
        """Seconds before the first kept draw: everything but ``sampling``."""
        return max(self.seconds["total"] - self.seconds.get("sampling", 0.0), 0.0)

    @property
    def progressive(self) -> bool:
        """Whether prefixes of the draws are estimates of their own (MCMC chains), so an
        error-versus-time curve exists; a weighted population has only its final point."""
        return self.weights is None
