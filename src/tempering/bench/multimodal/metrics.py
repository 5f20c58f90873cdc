"""Scoring a run against its target's exact answers.

- **Error** (the headline): for a target with modes, the largest |share of draws in a mode −
  its exact mass| over the modes (weighted draws: the share of weight); for a unimodal target,
  |estimated E f(θ) / exact − 1| with the target's moment f.
- **|Δ log Z|**: the method's own evidence estimate against the exact log Z.
- **Modes found** per chain: modes holding at least 10⁻³ of the chain's draws (one draw in a
  thousand); a weighted population is one "chain".
- **Error-versus-time curve**: for MCMC chains, the error of the first k draws of every chain
  together at ``CURVE_POINTS`` prefixes, each at the time it was reached — the seconds before the
  first kept draw (compilation, pilot, warmup) plus the share k/n of the sampling seconds; a
  weighted population (SMC, dynesty) has one point, its final error at its total time.
- **Time to reach an error**: the first point of a curve after which the error stays at or
  below it (``None``: never within the run); **first reach**: the first point at or below it
  (the seconds to SMC's final error, :func:`smc_comparison`).
- **Monte-Carlo noise of the error** (:func:`error_noise`): the standard error of one mode's
  share (or of the moment's relative estimate) had the run's weighted draws been exact and
  independent: √(Σ wᵢ²) × the largest √(m(1 − m)) over the exact masses m (or × the draws'
  sd of the moment over its exact mean). Real draws are correlated, so their noise is larger.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from tempering.bench.multimodal.result import MethodRun
from tempering.bench.multimodal.targets import Target

CURVE_POINTS = 24
FOUND = 1e-3  #: a mode is found by a chain holding at least this share of its draws


@dataclass
class Scored:
    """A run's metrics (module docstring): ``curve`` is (seconds, errors)."""

    run: MethodRun
    error: float
    log_z_error: float | None
    modes_found: list[int]
    curve: tuple[np.ndarray, np.ndarray]
    shares: np.ndarray | None

    @property
    def seconds(self) -> float:
        return float(self.run.seconds["total"])


def per_draw(target: Target, draws: np.ndarray) -> np.ndarray:
    """Mode index (modal targets) or moment value of each draw: shape ``draws.shape[:-1]``."""
    flat = draws.reshape(-1, draws.shape[-1])
    fn = target.mode_of if target.mode_of is not None else target.moment
    assert fn is not None
    return np.asarray(fn(flat)).reshape(draws.shape[:-1])


def _error(target: Target, totals: np.ndarray) -> float:
    """Error from mode shares (K,) or from a moment estimate (a 0-d array)."""
    if target.masses is not None:
        return float(np.max(np.abs(totals - target.masses)))
    assert target.moment_value is not None
    return float(abs(float(totals) / target.moment_value - 1.0))


def _one_hot(values: np.ndarray, k: int) -> np.ndarray:
    return (values[..., None] == np.arange(k)).astype(float)


def curve(target: Target, run: MethodRun, values: np.ndarray,
          points: int = CURVE_POINTS) -> tuple[np.ndarray, np.ndarray]:
    """(seconds, error) of the module docstring's curve; ``values`` from :func:`per_draw`."""
    if not run.progressive:
        return np.array([run.seconds["total"]]), np.array([final_error(target, run, values)])
    n = values.shape[1]
    ks = np.unique(np.ceil(np.linspace(0, n, points + 1)[1:]).astype(int))
    if target.masses is not None:
        sums = np.cumsum(_one_hot(values, len(target.masses)).sum(axis=0), axis=0)
    else:
        sums = np.cumsum(values.sum(axis=0))
    errors = np.array([_error(target, sums[k - 1] / (k * values.shape[0])) for k in ks])
    seconds = run.setup_seconds + run.seconds.get("sampling", 0.0) * ks / n
    return seconds, errors


def final_error(target: Target, run: MethodRun, values: np.ndarray) -> float:
    """The error of all the run's draws (weighted ones by their weights)."""
    return _error(target, _totals(target, run, values))


def _totals(target: Target, run: MethodRun, values: np.ndarray) -> np.ndarray:
    weights = (np.full(values.size, 1.0 / values.size) if run.weights is None
               else np.asarray(run.weights, dtype=float))
    flat = values.reshape(-1)
    if target.masses is not None:
        return np.bincount(flat.astype(int), weights=weights, minlength=len(target.masses))
    return np.asarray(np.sum(weights * flat))


def modes_found(target: Target, run: MethodRun, values: np.ndarray) -> list[int]:
    """Modes found per chain (empty for a unimodal target)."""
    if target.masses is None:
        return []
    k = len(target.masses)
    if run.weights is not None:
        share = np.bincount(values.reshape(-1).astype(int), weights=run.weights, minlength=k)
        return [int(np.sum(share >= FOUND))]
    share = _one_hot(values, k).mean(axis=1)  # (chains, K)
    return [int(c) for c in np.sum(share >= FOUND, axis=1)]


def score(target: Target, run: MethodRun) -> Scored:
    """Every metric of ``run`` against ``target``."""
    values = per_draw(target, run.draws)
    log_z_error = None if run.log_z is None else abs(run.log_z - target.log_z)
    shares = _totals(target, run, values) if target.masses is not None else None
    return Scored(run, final_error(target, run, values), log_z_error,
                  modes_found(target, run, values), curve(target, run, values), shares)


def time_to_reach(curve_: tuple[np.ndarray, np.ndarray], level: float) -> float | None:
    """The first time after which the curve's error stays ≤ ``level`` (``None``: never)."""
    seconds, errors = curve_
    above = np.nonzero(errors > level)[0]
    first = 0 if above.size == 0 else int(above[-1]) + 1
    return None if first >= len(errors) else float(seconds[first])


def comparison(scored: Scored, reference: Scored) -> dict[str, Any]:
    """Ratios of ``scored`` against the reference run (PT at its defaults): error, seconds, and
    the time each needs to reach the other's final error, as a multiple of the other's total
    time (< 1: it gets there sooner than the other finished)."""
    ref_reaches = time_to_reach(reference.curve, scored.error)
    reaches_ref = time_to_reach(scored.curve, reference.error)
    return {
        "error_ratio": scored.error / reference.error if reference.error > 0 else None,
        "seconds_ratio": scored.seconds / reference.seconds,
        "reference_to_this_error": None if ref_reaches is None else ref_reaches / scored.seconds,
        "this_to_reference_error": None if reaches_ref is None else reaches_ref
        / reference.seconds,
    }


def first_reach(curve_: tuple[np.ndarray, np.ndarray], level: float) -> float | None:
    """The first time at which the curve's error is ≤ ``level`` (``None``: never)."""
    seconds, errors = curve_
    at = np.nonzero(errors <= level)[0]
    return None if at.size == 0 else float(seconds[at[0]])


def smc_comparison(scored: Scored, smc: Scored | None) -> dict[str, Any]:
    """The seconds at which ``scored`` first reaches SMC's final error (on its error-against-time
    curve; ``None``: not reached) and their ratio to SMC's total seconds."""
    if smc is None:
        return {"smc_error": None, "seconds_to_smc_error": None, "to_smc_error_over_smc": None}
    reach = first_reach(scored.curve, smc.error)
    return {"smc_error": smc.error, "seconds_to_smc_error": reach,
            "to_smc_error_over_smc": None if reach is None else reach / smc.seconds}


def error_noise(target: Target, run: MethodRun) -> float:
    """The Monte-Carlo standard error of the run's error metric (module docstring)."""
    n = run.draws.shape[0] * run.draws.shape[1]
    weights = (np.full(n, 1.0 / n) if run.weights is None
               else np.asarray(run.weights, dtype=float) / np.sum(run.weights))
    root = float(np.sqrt(np.sum(weights**2)))
    if target.masses is not None:
        masses = np.asarray(target.masses, dtype=float)
        return root * float(np.max(np.sqrt(masses * (1.0 - masses))))
    assert target.moment_value is not None
    values = per_draw(target, run.draws).reshape(-1)
    mean = float(np.sum(weights * values))
    sd = float(np.sqrt(np.sum(weights * (values - mean) ** 2)))
    return root * sd / abs(target.moment_value)
