"""SMC's moves per stage, chosen as a competent user would choose them: by a sweep in the same run.

BlackJAX's adaptive tempered SMC moves each particle ``m`` times per stage (random-walk
Metropolis with the particles' covariance as proposal, :mod:`.smc_run`). Too few moves leave the
resampled duplicates where they were, and the population's mode shares are those of a few
ancestors; more cost seconds in proportion. A user who wants SMC's best answer tries a few
numbers and keeps the smallest that gives it, so the benchmark does the same, on every target,
in the run that is reported:

- SMC runs once for every ``m`` of ``size.smc_moves`` (full size: 5, 10, 25, 50, 100; quick:
  2, 4), each compiled from nothing and scored against the exact answers;
- the **choice** (:func:`choose_moves`) is the smallest ``m`` whose error is within
  ``TOLERANCE`` Monte-Carlo standard errors of the sweep's best error: the standard error of the
  best run had its weighted particles been exact and independent (:func:`.metrics.error_noise`:
  √(Σ wᵢ²) × max √(m(1 − m)) for mode masses) — "within noise" of the best;
- the chosen run is the SMC row of the main table (its seconds are that run's alone: what the
  number costs a user who knows it); the whole sweep rides along in the row's ``info``
  (``moves``, ``sweep``, ``tolerance``, ``sweep_seconds``), printed as its own table and
  plotted (:func:`.plots.plot_sweep`).

One seed per number of moves: the errors are noisy (a population of 4000 particles carries about
0.01 of noise on a mode share of ¼, more when particles are correlated), which is why the rule
reads "within noise" rather than "the least".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tempering.bench.multimodal.metrics import error_noise, score
from tempering.bench.multimodal.result import MethodRun
from tempering.bench.multimodal.sizes import Size
from tempering.bench.multimodal.smc_run import run_smc
from tempering.bench.multimodal.targets import Target

#: Monte-Carlo standard errors of the best run within which an error counts as the best.
TOLERANCE = 2.0


def choose_moves(moves: Sequence[int], errors: Sequence[float], tolerance: float) -> int:
    """The smallest number of moves whose error is at most the least error plus ``tolerance``.

    Parameters
    ----------
    moves, errors
        The sweep: each number of moves and the error its run reached (any order).
    tolerance
        How far above the least error still counts as reaching it (Monte-Carlo noise).

    Returns
    -------
    int
        The chosen number of moves.
    """
    if len(moves) == 0 or len(moves) != len(errors):
        raise ValueError("choose_moves: needs one error per number of moves")
    best = float(np.min(errors))
    return int(min(m for m, e in zip(moves, errors, strict=True) if e <= best + tolerance))


def sweep_point(target: Target, run: MethodRun) -> dict[str, Any]:
    """One sweep entry: moves, error, its noise, |Δ log Z|, stages and seconds by phase."""
    scored = score(target, run)
    return {"moves": int(run.info["steps"]), "error": scored.error,
            "noise": error_noise(target, run), "log_z_error": scored.log_z_error,
            "stages": int(run.info["stages"]), "seconds": dict(run.seconds)}


def run_smc_swept(target: Target, size: Size, seed: int) -> MethodRun:
    """SMC at every number of moves of ``size.smc_moves``; the run at the chosen number, with the
    sweep in its ``info`` (module docstring)."""
    runs = {m: run_smc(target, size, seed, moves=m) for m in sorted(set(size.smc_moves))}
    points = [sweep_point(target, run) for run in runs.values()]
    best = min(points, key=lambda p: p["error"])
    tolerance = TOLERANCE * best["noise"]
    chosen = choose_moves([p["moves"] for p in points], [p["error"] for p in points], tolerance)
    run = runs[chosen]
    run.info |= {"moves": chosen, "sweep": points, "tolerance": tolerance,
                 "sweep_seconds": sum(p["seconds"]["total"] for p in points)}
    return run
