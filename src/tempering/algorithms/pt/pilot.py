"""A pilot that places a PT or SPT schedule before the run: the warmup rounds of one chain
(:mod:`tempering.algorithms.pt.rounds`), each round's schedule placed at equal estimated barrier
from the rejections of the round before (:func:`tempering.ladders.adaptive.equal_barrier_betas`).

It serves what a compiled warmup cannot change: the number of rungs (``rungs=auto``: about
2Λ̂ + 1 rungs, Syed et al. 2021 §5.3's advice for non-reversible swaps, from the last round's
Λ̂ = Σ r_i on ``PILOT_RUNGS`` rungs) and the subset sizes N_m = round(β_m N) of SPT, which are
static shapes (the pilot's subset rungs mask the data instead, so it compiles once). The pilot
runs once per run, from its own
``pilot_seed``, so every chain of the run (and every chain layout) gets the same schedule, which
the resolved options record as ``start_betas``. Like the chains' warmup it first tunes each rung's
inner kernel (when the kernel adapts, as it does by default), so the barrier it measures is that
of tuned kernels, not of the untuned default step size.

The pilot is counted: :class:`PilotRecord` (its scans, rungs, Λ̂, seconds with compilation apart,
and its cost in full-data-equivalent evaluations) goes into the sampler's facts as ``pilot``, and
the driver adds its seconds and cost to the run's (``wall_seconds_pilot``, ``cost_pilot``).
Written by hand: Pigeons.jl does this in Julia; no JAX library does.
"""

from __future__ import annotations

import time
from typing import Any, NamedTuple

import jax
import numpy as np

from tempering.algorithms.base import Algorithm
from tempering.algorithms.pt.algorithm import tuning_steps
from tempering.algorithms.pt.rounds import Rounds, rounds_in
from tempering.errors import UserInputError
from tempering.ladders import equal_barrier_betas, ladder_betas
from tempering.ladders.reference import line_schedule, target_index
from tempering.models.base import Model
from tempering.numerics import compile_lowered

#: Rungs of the pilot that chooses the number of rungs (Pigeons.jl's default is 10 chains).
PILOT_RUNGS = 10


class PilotRecord(NamedTuple):
    """What a pilot did: it is part of the run, shown and counted.

    Attributes
    ----------
    scans
        PT scans of the pilot's one chain (inner tuning steps included).
    rungs
        Rungs it ran on, and rungs it placed.
    barrier
        Λ̂, the communication barrier of its last measured round.
    seconds, compile_seconds
        Wall seconds of its run and of its compilation.
    cost
        Its likelihood work, full-data-equivalent evaluations.
    leg_barriers
        Λ̂ of each leg (one, or with ``reference=stabilized`` the variational leg's and the
        prior leg's; ``barrier`` is their sum).
    """

    scans: int
    rungs: int
    placed_rungs: int
    barrier: float
    seconds: float
    compile_seconds: float
    cost: float
    leg_barriers: tuple[float, ...] = ()

    def as_fact(self) -> dict[str, Any]:
        return {k: ([float(x) for x in v] if isinstance(v, tuple)
                    else float(v) if isinstance(v, float) else int(v))
                for k, v in self._asdict().items()}


def pilot_steps(adapts: bool, rounds: int) -> int:
    """Scans for ``rounds`` complete schedule rounds, with the inner tuning before them when the
    kernel adapts (:func:`~tempering.algorithms.pt.algorithm.tuning_steps`; a pilot skips the final
    tuning)."""
    plan = Rounds(int(rounds), lambda new, old, inner: inner, final_tune=False)
    steps = 2 ** int(rounds) - 1
    while rounds_in(tuning_steps(steps, adapts, plan)[1], rounds) < rounds:
        steps += 1
    return steps


def pilot_schedule(model: Model, adaptive: Algorithm, *, rounds: int, seed: int,
                   choose_rungs: bool, adapts: bool) -> tuple[np.ndarray, PilotRecord]:
    """The placed schedule and the pilot's record from the warmup of ``adaptive`` (PT on a
    ladder that carries its β's: :func:`~tempering.ladders.adaptive_power_ladder`, or
    :func:`~tempering.ladders.adaptive_subset_ladder` for SPT): one compilation, one chain,
    ``rounds`` rounds (2^rounds − 1 scans) after its inner tuning (``adapts``: the inner
    kernel adapts, and ``adaptive`` was built with ``final_tune=False``). Λ̂ and the placement come
    from the last round that measured every pair; with ``choose_rungs``, ⌈2Λ̂⌉ + 1 rungs (at
    least 2, or 3 with the prior) at equal Λ̂, else as many as now."""
    steps = pilot_steps(adapts, rounds)

    def pilot(seed):  # the chain's start and its warmup: one program, nothing op by op
        k_start, k_init, k_warm = jax.random.split(jax.random.PRNGKey(seed), 3)
        state = adaptive.init(k_init, model.init_position(k_start))
        _, params, cost = adaptive.warmup(k_warm, state, adaptive.params, steps)
        return params, cost

    t0 = time.perf_counter()
    compiled = compile_lowered(jax.jit(pilot).lower(np.int64(seed)), sampling=False)
    t1 = time.perf_counter()
    params, cost = jax.block_until_ready(compiled(np.int64(seed)))
    seconds = time.perf_counter() - t1
    rejection, schedule = np.asarray(params["rejection"]), np.asarray(params["schedule"])
    measured = [r for r in range(len(rejection)) if np.all(np.isfinite(rejection[r]))]
    if not measured:
        raise UserInputError("sampler.rounds: the pilot measured no round (even/odd swaps "
                             "see every pair from the second round on); give 2 rounds or more")
    last = measured[-1]
    ran_on = schedule[last - 1] if last > 0 else np.asarray(adaptive.facts["betas"])
    placed, barriers = place_legs(ran_on, rejection[last], choose_rungs)
    record = PilotRecord(steps, len(ran_on), len(placed), float(sum(barriers)), seconds,
                         t1 - t0, float(cost), tuple(barriers))
    return placed, record


def place_legs(ran_on: np.ndarray, rejection: np.ndarray, choose_rungs: bool
               ) -> tuple[np.ndarray, list[float]]:
    """Each leg of the line ``ran_on`` placed at equal Λ̂ from its pairs' ``rejection``: with
    ``choose_rungs``, ⌈2Λ̂⌉ + 1 rungs per leg (at least 2, or 3 when the leg ends at β = 0), else
    as many as now; the legs' Λ̂ (one leg, or the variational leg and then the prior leg)."""
    target = target_index(ran_on)
    legs = [slice(0, target + 1), slice(target, len(ran_on))] if target else [slice(None)]
    lines, counts, barriers = [], [], []
    for leg in legs:
        coordinates = ran_on[leg]
        pairs = rejection[leg.start:(None if leg.stop is None else leg.stop - 1)]
        barrier = float(np.sum(np.clip(pairs, 0.0, 1.0)))
        fewest = 3 if coordinates[-1] in (0.0, 2.0) or coordinates[0] == 2.0 else 2
        counts.append(max(fewest, int(np.ceil(2.0 * barrier)) + 1) if choose_rungs
                      else len(coordinates))
        lines.append((coordinates, pairs))
        barriers.append(barrier)
    placed = [equal_barrier_betas(coordinates, pairs, rungs=count)  # NumPy: no program
              for (coordinates, pairs), count in zip(lines, counts, strict=True)]
    return np.concatenate([placed[0], *(new[1:] for new in placed[1:])]), barriers


def starting_betas(options: Any) -> np.ndarray:
    """``start_betas`` when given, else the ``spacing``/``rungs``/``beta_min`` schedule (with
    ``rungs=auto``, ``PILOT_RUNGS`` rungs; per leg with ``reference=stabilized``, whose ``rungs``
    count the whole line: :func:`~tempering.ladders.reference.line_schedule`)."""
    if options.start_betas is not None:
        return np.asarray(options.start_betas, dtype=float)
    two_legs = getattr(options, "reference", "prior") == "stabilized"
    if options.rungs == "auto":
        upper = lower = PILOT_RUNGS
    elif two_legs:
        upper = (int(options.rungs) + 1) // 2
        lower = int(options.rungs) + 1 - upper
    else:
        upper = lower = int(options.rungs)
    leg = ladder_betas(options.spacing, lower, options.beta_min, options.prior_rung)
    if not two_legs:
        return leg
    return line_schedule("stabilized", leg,
                         ladder_betas(options.spacing, upper, options.beta_min, True))
