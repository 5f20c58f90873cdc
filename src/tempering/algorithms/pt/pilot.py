"""A pilot that places a PT or SPT schedule before the run: the warmup rounds of one chain
(:mod:`tempering.algorithms.pt.rounds`), each round's schedule placed at equal estimated barrier
from the rejections of the round before (:func:`tempering.ladders.adaptive.equal_barrier_betas`).

Two pilots. ``pt``'s (:func:`shared_pilot`) runs the run's own programs, compiled once before
it: its ladder is a line of slots of fixed capacity (``PILOT_RUNGS`` per leg, all in use for
the pilot) whose window of rungs in use is data (:mod:`tempering.algorithms.pt.capacity`), so
the run that follows, on the rungs the pilot placed, compiles nothing more — unless the placed
rungs do not fit the slots, or the free slots' wasted moves would cost more than compiling the
run's own programs (measured: the pilot's seconds per scan against its compile seconds). Its
chains are the run's batch of chains (from ``pilot_seed``), its length the run's warmup; Λ̂ is
averaged over its chains, and the placed schedule is the average of each chain's placement.
SPT's (:func:`pilot_schedule`, subset rungs of static sizes) runs one chain on a program of its
own.

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

from tempering.algorithms.base import Algorithm, RunLayout
from tempering.algorithms.programs import Compiled, chain_init
from tempering.algorithms.pt.rounds import Rounds, rounds_in
from tempering.algorithms.pt.warmup import tuning_steps
from tempering.errors import UserInputError
from tempering.ladders import equal_barrier_betas, ladder_betas
from tempering.ladders.reference import line_schedule, target_index
from tempering.models.base import Model
from tempering.numerics import compile_lowered, tall_data
from tempering.starts import chain_start

#: Rungs of SPT's pilot that chooses the number of rungs (Pigeons.jl's default is 10 chains).
PILOT_RUNGS = 10
#: Rung slots of ``pt``'s shared program, every one in use in its pilot: (variational leg,
#: prior leg) on a stabilized line, the prior leg's alone on a one-leg line. A leg of Λ̂ ≤ 7.5
#: places ⌈2Λ̂⌉ + 1 ≤ 16 rungs (the 10-D mixture's prior leg had Λ̂ 4.8, 11 rungs, against the
#: 10 slots first tried). Fewer slots measure a smaller Λ̂ (Σ r_i over a coarser ladder) and
#: place fewer rungs: with 8 on the variational leg, ``bench multimodal`` (one seed) placed 12
#: rungs on label switching and the egg-box, not 16 and 15, and their mode-mass errors were
#: 0.085 and 0.119 against 0.026 and 0.036; free slots cost sampling time instead (the 10-D
#: mixture's 4 × 4000 draws: 1.58 s in 31 slots, 0.81 s in 23, 0.75 s on 14 rungs alone).
SLOTS = (16, 16)


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
    chains
        Chains it ran (Λ̂ is their mean).
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
    chains: int = 1

    def as_fact(self) -> dict[str, Any]:
        return {k: ([float(x) for x in v] if isinstance(v, tuple)
                    else float(v) if isinstance(v, float) else int(v))
                for k, v in self._asdict().items()}


def pilot_steps(adapts: bool, rounds: int) -> int:
    """Scans for ``rounds`` complete schedule rounds, with the inner tuning before them when the
    kernel adapts (:func:`~tempering.algorithms.pt.warmup.tuning_steps`; a pilot skips the final
    tuning)."""
    plan = Rounds(int(rounds), lambda new, old, inner: inner, final_tune=False)
    steps = 2 ** int(rounds) - 1
    while rounds_in(tuning_steps(steps, adapts, plan)[1], rounds) < rounds:
        steps += 1
    return steps


def pilot_rounds(rounds: int, adapts: bool, scans: int) -> int:
    """The most rounds, at most ``rounds`` and at least 2 (Λ̂ needs a round that sees every
    pair), whose pilot runs no more than ``scans`` scans (:func:`pilot_steps`)."""
    fitting = [r for r in range(2, max(2, rounds) + 1) if pilot_steps(adapts, r) <= scans]
    return max(fitting, default=2)


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


def place_legs(ran_on: np.ndarray, rejection: np.ndarray, choose_rungs: bool,
               counts: list[int] | None = None) -> tuple[np.ndarray, list[float]]:
    """Each leg of the line ``ran_on`` placed at equal Λ̂ from its pairs' ``rejection``: with
    ``choose_rungs``, ⌈2Λ̂⌉ + 1 rungs per leg (at least 2, or 3 when the leg ends at β = 0), else
    as many as now, or ``counts`` when given; the legs' Λ̂ (one leg, or the variational leg and
    then the prior leg)."""
    target = target_index(ran_on)
    legs = [slice(0, target + 1), slice(target, len(ran_on))] if target else [slice(None)]
    lines, counts_here, barriers = [], [], []
    for leg in legs:
        coordinates = ran_on[leg]
        pairs = rejection[leg.start:(None if leg.stop is None else leg.stop - 1)]
        barrier = float(np.sum(np.clip(pairs, 0.0, 1.0)))
        fewest = 3 if coordinates[-1] in (0.0, 2.0) or coordinates[0] == 2.0 else 2
        counts_here.append(max(fewest, int(np.ceil(2.0 * barrier)) + 1) if choose_rungs
                           else len(coordinates))
        lines.append((coordinates, pairs))
        barriers.append(barrier)
    counts = counts if counts is not None else counts_here
    placed = [equal_barrier_betas(coordinates, pairs, rungs=count)  # NumPy: no program
              for (coordinates, pairs), count in zip(lines, counts, strict=True)]
    return np.concatenate([placed[0], *(new[1:] for new in placed[1:])]), barriers


def starting_betas(options: Any, auto_rungs: tuple[int, int] = (PILOT_RUNGS, PILOT_RUNGS)
                   ) -> np.ndarray:
    """``start_betas`` when given, else the ``spacing``/``rungs``/``beta_min`` schedule (with
    ``rungs=auto``, ``auto_rungs`` = (variational leg, prior leg) rungs, the prior leg's alone on
    one leg; with ``reference=stabilized`` the ``rungs`` count the whole line:
    :func:`~tempering.ladders.reference.line_schedule`)."""
    if options.start_betas is not None:
        return np.asarray(options.start_betas, dtype=float)
    two_legs = getattr(options, "reference", "prior") == "stabilized"
    if options.rungs == "auto":
        upper, lower = auto_rungs
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


#: Free slots × a chain's scans × the data's numbers at which a run compiles a program of its own
#: rungs instead of keeping the pilot's (:meth:`SharedPilot.worth_sharing`): a free slot moves
#: as a rung does, about 0.1–0.3 µs a data number a scan (``mixture``: n = 150, 45 µs a
#: rung-scan; n = 2000, 0.25 ms), and a program of the run's own compiles in 3.5–4.5 s; with 4
#: chains the break-even is about 5 × 10⁶ per chain.
FREE_SLOT_WORK = 5 * 10**6


#: The fewest free slots a shared pilot's placement is taken to leave, to tell before it runs
#: whether the run could keep its programs (:func:`sharing_pays`): ``bench multimodal``'s
#: placements left 13–20 of the 31 slots.
FEWEST_FREE = 8


def sharing_pays(layout: RunLayout, numbers: int) -> bool:
    """Whether a shared pilot can pay, told before it runs: with :data:`FEWEST_FREE` free slots
    the run's free-slot work would stay under :data:`FREE_SLOT_WORK`
    (:meth:`SharedPilot.worth_sharing`). Otherwise the run is all but sure to compile a program
    of its own rungs after the pilot, and the shared pilot's chains (4 × 31 slots × the run's
    warmup) would be work for nothing: the one-chain pilot places the rungs instead, as on a
    costly model. Measured (``bench startup``, label switching, 150 points, 4 × (1000 + 4000)):
    the shared pilot ran 5.8 s and its program compiled for 4.4 s, and the run then compiled its
    own. A count of the run's scans and the data's numbers, nothing of the chain layout."""
    return light_free_slots(FEWEST_FREE, layout, numbers)


def light_free_slots(free: int, layout: RunLayout, numbers: int) -> bool:
    """Whether ``free`` slots' moves over a chain's scans on data of ``numbers`` numbers stay
    under :data:`FREE_SLOT_WORK`."""
    return free * layout.scans * max(numbers, 1) < FREE_SLOT_WORK


class SharedPilot(NamedTuple):
    """What :func:`shared_pilot` found: the placed line and its record."""

    placed: np.ndarray
    record: PilotRecord

    def worth_sharing(self, fits: bool, layout: RunLayout, free: int, numbers: int) -> bool:
        """Whether the run should keep the pilot's programs: the placed rungs ``fits`` the
        slots, the run warms up (its warmup starts the chains on the placed line), and the
        ``free`` slots' moves over a chain's scans on data of ``numbers`` numbers stay under
        :data:`FREE_SLOT_WORK` (else a program of the run's own rungs, compiled once more,
        costs less than they do). No timing enters the choice, and nothing of the chain
        layout, so a seed gives the same draws in every process and layout: weighing the free
        slots' measured seconds against the measured compile seconds made a second run of
        label switching, its programs cached, choose the run's own programs and other draws.
        A model whose evaluations are dear never gets here
        (:func:`~tempering.algorithms.pt.sampler.costly`)."""
        return fits and layout.warmup > 0 and light_free_slots(free, layout, numbers)


def shared_pilot(model: Model, algorithm: Algorithm, layout: RunLayout, *, seed: int,
                 choose_rungs: bool) -> SharedPilot:
    """The schedule placed by ``layout.batch`` chains of ``algorithm`` (PT on every slot of its
    line) warmed up for ``layout.warmup`` steps on the run's own programs
    (:meth:`~tempering.algorithms.programs.Compiled.shared`: compiled here, warmup and chunk
    together, and reused by the run). Per leg, ⌈2Λ̄⌉ + 1 rungs (Λ̄ the chains' mean Λ̂ of their
    last measured round), each chain's equal-barrier placement averaged over the chains."""
    compiled = Compiled.shared(algorithm, layout.thin, tall_data(model), layout.brief(model))
    batch = int(layout.batch)
    # the chains' start compiles on a thread while the run's program is traced with its shapes
    pending = chain_start(model, seed, batch)
    init_shape, warm_shape, sample_shape, position_shape = pending.shapes
    params = jax.device_put(jax.tree.map(
        lambda p: np.broadcast_to(np.asarray(p), (batch, *np.shape(p))), algorithm.params))
    # the jitted start (chain_init) is traced once here and reused by the program's trace
    shapes = jax.eval_shape(jax.vmap(chain_init(algorithm)), init_shape, position_shape)
    t0 = time.perf_counter()
    compiled.prepare((init_shape, position_shape), warm_shape, sample_shape, shapes, params,
                     layout.warmup, layout.chunk)
    init_keys, warm_keys, _, positions = pending.result()
    start = (init_keys, positions)
    t1 = time.perf_counter()
    _, warmed, cost = jax.block_until_ready(
        compiled.warmup(start, warm_keys, params, layout.warmup))
    seconds = time.perf_counter() - t1
    rejection, schedule = np.asarray(warmed["rejection"]), np.asarray(warmed["schedule"])
    measured = [r for r in range(rejection.shape[1]) if np.all(np.isfinite(rejection[:, r]))]
    if not measured:
        raise UserInputError("warmup: the rungs=auto pilot measured no round in the run's "
                             f"{layout.warmup} warmup steps; give more warmup, or rungs")
    last = measured[-1]
    line = np.asarray(algorithm.facts["betas"])
    counts = leg_counts(line, rejection[:, last], choose_rungs)
    placements = [place_legs(schedule[b, last - 1] if last > 0 else line, rejection[b, last],
                             choose_rungs, counts) for b in range(batch)]
    placed = np.mean([p[0] for p in placements], axis=0)
    barriers = np.mean([p[1] for p in placements], axis=0)
    record = PilotRecord(layout.warmup, len(line), len(placed), float(np.sum(barriers)), seconds,
                         t1 - t0, float(np.asarray(cost).sum()), tuple(float(b) for b in barriers))
    return SharedPilot(placed, record._replace(chains=batch))


def leg_counts(line: np.ndarray, rejections: np.ndarray, choose_rungs: bool) -> list[int] | None:
    """Rungs per leg from the chains' mean Λ̂ (``rejections``: (chains, pairs)), as
    :func:`place_legs` counts them for one chain; ``None`` keeps the count."""
    if not choose_rungs:
        return None
    target = target_index(line)
    legs = [slice(0, target), slice(target, None)] if target else [slice(None)]
    counts = []
    for leg in legs:
        barrier = float(np.mean(np.sum(np.clip(rejections[:, leg], 0.0, 1.0), axis=1)))
        ends = line[leg.start or 0], line[-1] if leg.stop is None else line[leg.stop]
        fewest = 3 if 0.0 in ends or 2.0 in ends else 2
        counts.append(max(fewest, int(np.ceil(2.0 * barrier)) + 1))
    return counts
