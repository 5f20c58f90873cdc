"""A pilot that places a PT or SPT schedule before the run: the warmup rounds of one chain
(:mod:`tempering.algorithms.pt_rounds`), each round's schedule placed at equal estimated barrier
from the rejections of the round before (:func:`tempering.ladders.adaptive.equal_barrier_betas`).

It serves what a compiled warmup cannot change: the number of rungs (``rungs=auto``: about
2Λ̂ + 1 rungs, Syed et al. 2021 §5.3's advice for non-reversible swaps, from the last round's
Λ̂ = Σ r_i on ``PILOT_RUNGS`` rungs) and the subset sizes N_m = round(β_m N) of SPT, which are
static shapes (the pilot's subset rungs mask the data instead, so it compiles once). The pilot
runs once per run, from its own
``pilot_seed``, so every chain of the run (and every chain layout) gets the same schedule, which
the resolved options record as ``start_betas``; its scans are not part of the run's cost.
Written by hand: Pigeons.jl does this in Julia; no JAX library does.
"""

from __future__ import annotations

from typing import Any

import jax
import numpy as np

from tempering.algorithms.base import Algorithm
from tempering.errors import UserInputError
from tempering.ladders import equal_barrier_betas, ladder_betas
from tempering.models.base import Model

#: Rungs of the pilot that chooses the number of rungs (Pigeons.jl's default is 10 chains).
PILOT_RUNGS = 10


def pilot_schedule(model: Model, adaptive: Algorithm, *, rounds: int, seed: int,
                   choose_rungs: bool) -> tuple[np.ndarray, float]:
    """The placed schedule and Λ̂ from the warmup rounds of ``adaptive`` (PT on a ladder that
    carries its β's: :func:`~tempering.ladders.adaptive_power_ladder`, or
    :func:`~tempering.ladders.adaptive_subset_ladder` for SPT): one compilation, 2^rounds − 1
    scans of one chain. Λ̂ and the placement come from the last round that measured every pair;
    with ``choose_rungs``, ⌈2Λ̂⌉ + 1 rungs (at least 2, or 3 with the prior) at equal Λ̂, else
    as many as now."""
    k_start, k_init, k_warm = jax.random.split(jax.random.PRNGKey(seed), 3)
    state = adaptive.init(k_init, model.init_position(k_start))
    warmup = jax.jit(adaptive.warmup, static_argnums=3)
    _, params, _ = warmup(k_warm, state, adaptive.params, 2 ** int(rounds) - 1)
    rejection, schedule = np.asarray(params["rejection"]), np.asarray(params["schedule"])
    measured = [r for r in range(len(rejection)) if np.all(np.isfinite(rejection[r]))]
    if not measured:
        raise UserInputError("sampler.rounds: the pilot measured no round (even/odd swaps "
                             "see every pair from the second round on); give 2 rounds or more")
    last = measured[-1]
    ran_on = schedule[last - 1] if last > 0 else np.asarray(adaptive.facts["betas"])
    barrier = float(np.sum(np.clip(rejection[last], 0.0, 1.0)))
    fewest = 3 if ran_on[-1] == 0.0 else 2  # 1, a β > 0 and the prior
    count = max(fewest, int(np.ceil(2.0 * barrier)) + 1) if choose_rungs else len(ran_on)
    return np.asarray(equal_barrier_betas(ran_on, rejection[last], rungs=count)), barrier


def starting_betas(options: Any) -> np.ndarray:
    """``start_betas`` when given, else the ``ladder``/``rungs``/``beta_min`` schedule (with
    ``rungs=auto``, ``PILOT_RUNGS`` rungs)."""
    if options.start_betas is not None:
        return np.asarray(options.start_betas, dtype=float)
    rungs = PILOT_RUNGS if options.rungs == "auto" else int(options.rungs)
    return ladder_betas(options.ladder, rungs, options.beta_min, options.prior_rung)
