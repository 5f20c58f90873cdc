"""The ``pt`` sampler: parallel tempering on the powered-likelihood ladder
(:func:`tempering.algorithms.pt.algorithm.parallel_tempering`), its options — the fixed or adaptive
schedule, ``rungs=auto``, the swap scheme — and the builder that SPT shares."""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal, Self

import numpy as np
from pydantic import Field, NonNegativeInt, PrivateAttr, model_validator

from tempering.algorithms.base import Algorithm, RunLayout
from tempering.algorithms.cost_model import pt_predicted_cost
from tempering.algorithms.options import TemperingOptions
from tempering.algorithms.pt.algorithm import parallel_tempering
from tempering.algorithms.pt.capacity import RungWindow, padded_line
from tempering.algorithms.pt.pilot import (
    SLOTS,
    pilot_rounds,
    pilot_schedule,
    shared_pilot,
    sharing_pays,
    starting_betas,
)
from tempering.algorithms.pt.rounds import Rounds
from tempering.algorithms.pt.stats import ALL_RUNGS_STATS, PT_STATS
from tempering.algorithms.pt.summary import swap_lines, swap_summary
from tempering.algorithms.pt.trajectory import jitter_steps
from tempering.algorithms.rungs import carried_params, ladder_facts
from tempering.algorithms.spec import SamplerSpec
from tempering.ladders import TemperingLadder, adaptive_power_ladder, power_tempering_ladder
from tempering.ladders.reference import ReferenceKind, path_beta
from tempering.models.base import Model
from tempering.numerics import data_numbers

#: A model of at most this many parameters runs RWM inside PT by default (:class:`PTOptions`).
RWM_DIMS = 3
#: RWM's steps a scan on such a model: SPT's measured choice
#: (:mod:`~tempering.algorithms.pt.spt`).
RWM_STEPS = 3


class PTOptions(TemperingOptions):
    """PT's options.

    ``inner`` defaults to HMC: on the 10-D, 4-mode ``gauss_mixture`` (4 chains × 1000 draws at
    the CLI's defaults) PT with RWM left a chain in 3 of the 4 modes (4 round trips), with HMC
    every chain visited every mode (83 round trips) at the same wall time, compilation and pilot
    included; every built-in model is differentiable. On a model of at most :data:`RWM_DIMS`
    parameters, when no inner kernel or kernel option is given, it is RWM with
    :data:`RWM_STEPS` steps a scan (:meth:`resolve`): there HMC's trajectories buy little that
    three random-walk steps do not, at several gradient evaluations each. Measured (2 cores,
    4 chains, 500 or 1000 warmup, 1000 draws, seeds 0–3, 2026-11-29): tall label switching
    (``mixture``, K = 3, n = 10⁴) largest ordering error 0.037, 0.059, 0.044, 0.071 in 48–56 s
    with RWM against 0.092, 0.028 (seeds 0–1) in 104–118 s with HMC (0.092, 0.028, 0.089, 0.062
    a session before); ``bench multimodal``'s label switching (n = 150) 0.035, 0.059, 0.043,
    0.030 against 0.032, 0.031, 0.022, 0.061, sampling 1.9–2.2 s against 4.0–4.7 s and 0.8–1.7 s
    less to build; its egg-box (2-D, seeds 0–2) 0.041, 0.036, 0.056 against 0.053, 0.040, 0.048,
    16–18 of the 18 peaks per chain against 13–18, 4.3–5.2 s in all against 5.4–5.8 s. On the
    tall mixture at 4 × 4000 draws (seed 0): 0.012 in 125 s, where HMC's bench row had 0.049 in
    227 s. ``inner=rwm`` (one evaluation per rung per scan instead of ``num_steps``) also suits a
    model without gradients or a likelihood too costly for ten evaluations a scan. With HMC
    inside, ``jitter_steps`` (the default) makes scan t run ⌈h_t · ``num_steps``⌉ leapfrog steps
    on every rung, h_t a Halton sequence over the scans (:mod:`tempering.algorithms.pt.trajectory`):
    on average (L + 1)/2 steps, and as accurate or more on every ``bench multimodal`` target as L
    fixed.

    ``schedule``: ``adaptive`` (the default, unless ``keep_all_rungs``) moves the β's during
    warmup, in rounds of doubling length, to equal estimated communication barrier
    (:mod:`tempering.algorithms.pt.rounds`; at most ``rounds`` rounds), then freezes them;
    ``fixed`` (called ``geometric`` before this release; the old value still works, with a
    warning) keeps the ladder of ``spacing``/``rungs``/``beta_min`` (geometric unless
    ``spacing`` says otherwise), as the seed papers' runs do. The adaptive schedule runs from the
    target to the prior (``prior_rung`` defaults to true with it, as Pigeons.jl's reference is the
    prior): Λ is then the whole barrier and ``beta_min`` only places the first schedule's
    second-last rung. ``rungs=auto`` (adaptive only; the default there, 7 rungs with a fixed
    schedule) chooses about 2Λ̂ + 1 rungs from a pilot (:mod:`tempering.algorithms.pt.pilot`), which
    records the schedule it placed as ``start_betas``. ``swap``: ``deo`` (even/odd pairs
    alternately, non-reversible; the default of the adaptive schedule), ``seo`` (even or odd at
    random: reversible, for comparison) or ``sweep`` (every pair, m = M..1; the default of a fixed
    one). ``reference`` (:mod:`tempering.ladders.reference`): ``stabilized`` by default with the
    adaptive schedule — a Gaussian q fitted to the target in warmup on one leg, the prior on the
    other, joined at the target. On ``tempering bench multimodal`` (2026-11-26, 2 cores, 4 × 1000
    draws) it cut the largest mode-mass error against the prior reference on the label-switching
    mixture (0.045 against 0.064), the spike-and-slab's phase transition (0.024 against 0.236) and
    the egg-box (0.039 against 0.092) at about the same wall time; ``variational`` alone
    collapsed where the modes are apart (the egg-box: 1–8 of 18 modes per chain), since each chain
    fits q to what its target rung has seen — the prior leg is what keeps the modes. ``prior``
    with a fixed schedule (q is fitted in warmup's rounds) and with fewer than 5 rungs (two legs of
    3). ``keep_all_rungs``: write every rung's draws (IMC3,
    for importance tempering and evidence estimates), not only the target's; it needs a fixed
    schedule, since its importance weights use the file's β's.
    """

    RENAMED_VALUES = {"schedule": {"geometric": "fixed"}}  # any spacing, not only geometric
    #: Whether the adaptive schedule's last rung is the prior (β = 0) unless told otherwise.
    PRIOR_REFERENCE: ClassVar[bool] = True
    #: The references this sampler's ladder can start from (SPT's subset rungs: the prior only).
    REFERENCES: ClassVar[tuple[str, ...]] = ("prior", "variational", "stabilized")
    _schedule_by_default: bool = PrivateAttr(default=False)
    _notes: list[str] = PrivateAttr(default_factory=list)
    #: the pilot's algorithm, whose compiled programs the run shares (``capacity`` kept)
    _programs: Any = PrivateAttr(default=None)

    inner: str = Field("hmc", description="any registered kernel (default hmc: each rung "
                                           "tunes its step size and a diagonal mass matrix; "
                                           "rwm, 3 steps a scan, on a model of at most 3 "
                                           "parameters)")
    swap: Literal["sweep", "deo", "seo"] | None = Field(
        None, description="default: deo with the adaptive schedule, sweep with a fixed one")
    keep_all_rungs: bool = False
    prior_rung: bool | None = Field(  # type: ignore[assignment]
        None, description="default: true with pt's adaptive schedule")
    schedule: Literal["adaptive", "fixed"] | None = Field(
        None, description="default: adaptive, fixed with keep_all_rungs (fixed was called "
                          "geometric)")
    rounds: int = Field(10, ge=1, le=24)
    jitter_steps: bool = Field(
        True, description="with hmc inside: scan t runs ceil(h_t num_steps) leapfrog steps on "
                          "every rung, h_t a Halton sequence over the scans (false: num_steps "
                          "every scan)")
    rungs: Annotated[int, Field(ge=2)] | Literal["auto"] | None = Field(  # type: ignore[assignment]
        None, description="default: auto with the adaptive schedule (a pilot places them), 7 "
                          "with a fixed one")
    start_betas: list[float] | None = Field(
        None, description="the schedule warmup starts from (rungs=auto's pilot writes it); "
                          "with reference=stabilized, coordinates 2 (q) → 1 (target) → 0")
    pilot_seed: NonNegativeInt = 0
    reference: ReferenceKind | None = Field(
        None, description="where the path starts: prior, variational (a Gaussian fitted to the "
                          "target in warmup) or stabilized (both, two legs joined at the "
                          "target); default: stabilized with the adaptive schedule (5 rungs or "
                          "more), prior with a fixed one")
    reference_covariance: Literal["diagonal", "full"] = "diagonal"
    capacity: list[Annotated[int, Field(ge=2)]] | None = Field(
        None, description="rung slots per leg of the run's program: the rungs=auto pilot sets "
                          "it when the run shares the pilot's compiled program, whose rungs in "
                          "use are then a window of the slots")

    @model_validator(mode="after")
    def _schedule_defaults(self) -> Self:
        if self.schedule is None:
            self.schedule = "fixed" if self.keep_all_rungs else "adaptive"
            self._schedule_by_default = True
        if self.rungs is None:
            self.rungs = (len(self.start_betas) if self.start_betas is not None
                          else "auto" if self.schedule == "adaptive" else 7)
        if self.swap is None:
            self.swap = "deo" if self.schedule == "adaptive" else "sweep"
        if self.prior_rung is None:
            self.prior_rung = self.PRIOR_REFERENCE and self.schedule == "adaptive"
            if self.prior_rung and isinstance(self.rungs, int) and self.rungs < 3:
                raise ValueError("rungs: the adaptive schedule ends at the prior, so it needs 3 "
                                 "rungs at least (or prior_rung=false)")
        if self.keep_all_rungs and self.schedule == "adaptive":
            raise ValueError("keep_all_rungs: needs schedule=fixed (the importance weights "
                             "use the run file's β's)")
        if self.rungs == "auto" and self.schedule != "adaptive":
            raise ValueError("rungs: auto needs schedule=adaptive")
        if self.rungs == "auto" and self.rounds < 2 and self.swap != "sweep":
            raise ValueError("rounds: the rungs=auto pilot needs 2 rounds or more (even/odd "
                             "swaps see every pair from the second round on)")
        if self.reference is None:  # two legs need 5 rungs: fewer keep the prior's one leg
            two_legs = self.schedule == "adaptive" and (self.rungs == "auto" or (
                isinstance(self.rungs, int) and self.rungs >= 5))
            self.reference = ("stabilized" if two_legs and "stabilized" in self.REFERENCES
                              else "prior")
        if self.reference not in self.REFERENCES:
            raise ValueError(f"reference: {self.reference} is not available here (subset rungs "
                             "start from the prior)")
        if self.reference == "stabilized" and isinstance(self.rungs, int) and self.rungs < 5:
            raise ValueError("rungs: a stabilized path has two legs of 3 rungs at least (q, …, "
                             "target, …, prior): give 5 or more, or reference=prior")
        if self.reference != "prior" and self.schedule != "adaptive":
            raise ValueError(f"reference: {self.reference} needs schedule=adaptive (the "
                             "reference is fitted in warmup's rounds)")
        if self.start_betas is not None:
            _check_start(self.start_betas, self.rungs, self.reference == "stabilized")
        if self.capacity is not None:
            _check_capacity(self.start_betas, self.capacity, self.reference == "stabilized")
        return self

    def resolve(self, model: Any) -> Self:
        """The inner kernel's options made explicit; on a model of at most :data:`RWM_DIMS`
        parameters, RWM with :data:`RWM_STEPS` steps a scan where none of ``inner``,
        ``inner_steps``, ``jitter_steps`` (HMC's) or a kernel option was given (class
        docstring)."""
        hmc_options = {"inner", "inner_steps", "jitter_steps"}
        chosen = hmc_options & self.model_fields_set or self.model_extra
        if model.dim <= RWM_DIMS and not chosen:
            return self.model_copy(update={"inner": "rwm", "inner_steps": RWM_STEPS}
                                   ).resolve(model)
        return super().resolve(model)

    def betas(self) -> np.ndarray:
        """The schedule warmup starts from (``start_betas``, else the fixed ladder)."""
        return starting_betas(self)

    def run_pilot(self, model: Any, layout: RunLayout | None = None) -> Self:
        """With ``rungs=auto``, the rungs and schedule a pilot places on the run's own programs
        (:func:`~tempering.algorithms.pt.pilot.shared_pilot`, for ``layout``: default
        :class:`~tempering.algorithms.base.RunLayout`). The run keeps the pilot's programs
        (``capacity`` set, the pilot's algorithm riding along) when the placed rungs fit its
        slots (:meth:`~tempering.algorithms.pt.pilot.SharedPilot.worth_sharing`). On a
        costly model (:func:`costly`), or where the run could not keep the shared programs
        whatever the pilot placed (:func:`~tempering.algorithms.pt.pilot.sharing_pays`), the
        pilot is one chain on ``PILOT_RUNGS`` rungs per leg instead
        (:func:`~tempering.algorithms.pt.pilot.pilot_schedule`), of as many rounds as
        fit in one chain's warmup (339 scans for the default 500, where the full 10 rounds are
        1363: on tall label switching, n = 10⁴, the pilot was 20% of the run's seconds), and the
        run compiles its own programs on its rungs alone."""
        if self.rungs != "auto":
            return self
        layout = layout or RunLayout()
        if costly(model) or not sharing_pays(layout, data_numbers(model)):
            # a pilot of one chain, on rungs and a program of its own
            return self.placed(model, build(model, self, pilot=True), choose_rungs=True,
                               scans=layout.warmup)
        slots = list(SLOTS) if self.reference == "stabilized" else [SLOTS[1]]
        line = [float(b) for b in starting_betas(self, SLOTS)]
        pilot = build(model, self.model_copy(update={"rungs": len(line), "start_betas": line,
                                                     "capacity": slots}))
        found = shared_pilot(model, pilot, layout, seed=self.pilot_seed, choose_rungs=True)
        start = [float(b) for b in found.placed]
        keep = found.worth_sharing(fits(start, slots), layout, free=len(line) - len(start),
                                   numbers=data_numbers(model))
        placed = self.model_copy(update={"rungs": len(start), "start_betas": start,
                                         "capacity": slots if keep else None})
        placed._programs = pilot if keep else None
        return placed.carrying({**found.record.as_fact(), "shared_programs": keep})

    def placed(self, model: Model, pilot: Algorithm, *, choose_rungs: bool,
               scans: int | None = None) -> Self:
        """These options with ``start_betas`` (and ``rungs``) placed by ``pilot``'s rounds — at
        most ``rounds``, and with ``scans``, only as many as fit that many scans (at least 2:
        :func:`~tempering.algorithms.pt.pilot.pilot_rounds`); the pilot's record rides along
        (``pilot_record``) for the sampler's facts."""
        adapts = self.bind_inner(model.dim)[1].warmup is not None
        rounds = self.rounds if scans is None else pilot_rounds(self.rounds, adapts, scans)
        betas, record = pilot_schedule(model, pilot, rounds=rounds, seed=self.pilot_seed,
                                       choose_rungs=choose_rungs, adapts=adapts)
        start = [float(b) for b in betas]
        placed = self.model_copy(update={"rungs": len(start), "start_betas": start})
        return placed.carrying(record.as_fact())


def _check_start(betas: list[float], rungs: int | str, two_legs: bool) -> None:
    decreasing = all(a > b for a, b in zip(betas, betas[1:], strict=False))
    starts = (betas[0] <= 2.0 and betas.count(1.0) == 1 and betas[0] > 1.0) if two_legs \
        else betas[0] == 1.0
    if len(betas) < 2 or not starts or not decreasing:
        raise ValueError("start_betas: must start at 1 and decrease strictly, two at least"
                         + (" (stabilized: coordinates from at most 2 down, through 1 once)"
                            if two_legs else ""))
    if betas[-1] < 0.0:
        raise ValueError("start_betas: must be non-negative")
    if rungs != len(betas):
        raise ValueError(f"start_betas: {len(betas)} β's for rungs={rungs} (give both, equal)")


def build(model: Model, options: PTOptions, pilot: bool = False) -> Algorithm:
    """PT on the powered-likelihood ladder of ``options``, adaptive or fixed (``pilot``: the
    ``rungs=auto`` pilot's build, whose warmup ends with its last round). With ``capacity``
    the ladder is a line of slots and the schedule a window of it
    (:mod:`~tempering.algorithms.pt.capacity`); the functions are then the pilot's, when it
    ran in this process, so that the run reuses its compiled programs."""
    adaptive = options.schedule == "adaptive"
    line, window = options.betas(), None
    if options.capacity is not None:
        line, window = padded_line(line, tuple(options.capacity))
    ladder = (adaptive_power_ladder(model, line, options.reference or "prior",
                                    options.reference_covariance == "full") if adaptive
              else power_tempering_ladder(model, line))
    algorithm = build_over(model, options, ladder,
                           keep_all_rungs=model if options.keep_all_rungs else None,
                           adaptive=adaptive, pilot=pilot, window=window)
    programs = options._programs
    if programs is None or window is None:
        return algorithm
    return programs._replace(params=algorithm.params, facts=algorithm.facts, trim=algorithm.trim)


#: Data of at least this many numbers make PT's shared pilot dearer than a one-chain pilot
#: (:func:`costly`).
COSTLY_DATA = 2**11


def costly(model: Model) -> bool:
    """Whether each evaluation of ``model`` is dear — a Gaussian process's O(n³), or data of
    :data:`COSTLY_DATA` numbers or more — so that the shared pilot's chains and free slots
    (4 × 23 × 500 = 46 000 rung-scans at the defaults, against the one-chain pilot's
    19 × 1363 = 25 900 when this was measured; 19 × 339 = 6 400 since it fits one chain's
    warmup) would cost more than the compilation they save (2.8–3.3 s): the break-even
    is about 0.14 ms a rung-scan. Measured (2 cores): ``mixture`` with n = 10⁴ (2 parameters),
    1.1 ms a rung-scan, the shared pilot 51.5 s against 33.2 s; ``gp_regression`` (n = 100,
    float64), 165 s against 65 s; ``gauss_mixture`` (no data), 2 µs."""
    return model.gp is not None or data_numbers(model) >= COSTLY_DATA


def fits(start: list[float], capacity: list[int]) -> bool:
    """Whether the line ``start`` fits ``capacity`` slots per leg."""
    try:
        padded_line(np.asarray(start), tuple(capacity))
    except ValueError:
        return False
    return True


def _check_capacity(start: list[float] | None, capacity: list[int], two_legs: bool) -> None:
    if start is None:
        raise ValueError("capacity: needs start_betas (the rungs placed in the slots)")
    if len(capacity) != (2 if two_legs else 1):
        raise ValueError(f"capacity: {'two legs' if two_legs else 'one leg'} take "
                         f"{2 if two_legs else 1} slot counts, got {len(capacity)}")
    padded_line(np.asarray(start), tuple(capacity))


def build_over(model: Model, options: PTOptions, ladder: TemperingLadder,
               keep_all_rungs: Model | None, adaptive: bool = False,
               pilot: bool = False, window: RungWindow | None = None) -> Algorithm:
    """PT over ``ladder`` with the inner kernel of ``options`` (shared with SPT); with
    ``adaptive``, warmup moves the schedule (the ladder carries it in its view), carrying a
    tuned kernel's parameters along (:func:`~tempering.algorithms.rungs.carried_params`) or
    re-applying a fixed kernel's per-rung rule. The facts record the ladder and, when a pilot
    placed it in this process, the pilot's record."""
    spec, bound = options.bind_inner(model.dim)
    rounds = None
    if adaptive:
        inner_for = ((lambda new, old, inner: carried_params(inner, old, new))
                     if bound.warmup is not None
                     else (lambda new, old, inner: spec.rung_params(bound, path_beta(new))))
        fit = (None if options.reference in (None, "prior")
               else options.reference_covariance == "full")
        rounds = Rounds(options.rounds, inner_for, final_tune=not pilot, target=ladder.target,
                        fit_reference=fit)
    betas = np.asarray(path_beta(np.asarray(ladder.betas)))
    leapfrog = options.inner_options().model_dump().get("num_steps")  # a kernel with a count
    steps_at = jitter_steps(int(leapfrog)) if options.jitter_steps and leapfrog else None
    algorithm = parallel_tempering(ladder, bound, spec.rung_params(bound, betas),
                                   swap=str(options.swap), inner_steps=options.inner_steps,
                                   keep_all_rungs=keep_all_rungs, rounds=rounds,
                                   window=window, steps_at=steps_at)
    facts: dict[str, Any] = {**ladder_facts(ladder), "schedule": [options.schedule],
                             **options.pilot_facts()}
    if window is not None:  # the record keeps the window's rungs: so do the facts
        rungs = slice(window.lo, window.hi + 1)
        facts |= {name: facts[name][rungs] for name in ("betas", "sizes", "rung_costs")}
        facts["rung_window"] = list(window)
    if options._notes:
        facts["notes"] = list(options._notes)
    return algorithm._replace(facts=facts)


SPEC = SamplerSpec(
    name="pt",
    summary="parallel tempering, powered likelihood (seed 000); also takes the inner kernel's "
            "options",
    options=PTOptions,
    build=build,
    stats=PT_STATS + ALL_RUNGS_STATS,
    summarize=swap_summary,
    render=swap_lines,
    predicted_cost=pt_predicted_cost,
)
