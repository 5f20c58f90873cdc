"""Subsampled parallel tempering, SPT (seed 000 §3.1, Algorithm 1): parallel tempering whose
rung m is the posterior given a subset X_m of N_m = round(β_m N) data points, h_m(θ) =
log p(θ) + log p(X_m | θ) (Eq. 9), at cost (N_m/N)^α per evaluation (Eq. 10). The subsets are
drawn once and kept (``redraw=False``): each chain runs exact PT on a fixed ladder. By default
(``shared_subsets``) they are the run's, drawn from ``pilot_seed`` (:func:`subsets_key`), the same
for the pilot and every chain: a subset path's barrier is lumpy and belongs to its subsets, so the
pilot's schedule fits only the subsets it ran on (with each chain's own subsets, on the tall
mixture below at 4 × 1000 draws, one chain's pairs accepted 0.23–0.60 and it made 4 round trips,
another's 0.07–0.65 and none; at 4 × 4000 draws, seeds 0–3, error 0.067, 0.108, 0.043, 0.081 shared
against 0.091, 0.109, 0.088, 0.127). The algorithm is
:func:`tempering.algorithms.pt.algorithm.parallel_tempering`; this module only picks the ladder.

With ``schedule=adaptive`` (the default) the β's, and so the subset sizes, are placed before the
run by a pilot on masked subset ladders (:mod:`tempering.algorithms.pt.pilot`): the sizes are
static shapes, so a compiled warmup cannot move them, and the chains' warmup adapts only the inner
kernel. The resolved options record the placed schedule as ``start_betas``.

The hot end. The adaptive schedule runs from the full data down to a subset of
:data:`HOT_POINTS` points by default (``beta_min`` = 4/N, at most PT's 0.125): a rung that sees
few points is nearly the prior, flat enough for a chain to cross between modes, and costs almost
nothing (issue 46). Measured on tall label switching (``mixture``, K = 3 at −3, 0, 3, σ = 1, prior
sd 3; 4 chains, 1000 warmup, 4000 draws, seed 0): at N = 2000 the old hot end of N/8 points left
1, 3, 5 and 2 of the 6 orderings in the chains, error 0.227, where 4 points gave all 6 in every
chain, error 0.094; at N = 10⁴, 2, 4, 5, 3 orderings and error 0.171 (25.1 s) against all 6
and 0.126 (22.4 s: the pilot placed 15 rungs for 9, but the rungs' points summed to 2.35 N a
scan instead of 4.1 N).

Inner steps. Syed et al.'s round-trip rate, 1/(2 + 2 Σ r_m/(1 − r_m)) a scan, assumes each
rung's kernel draws afresh between swaps; with one RWM step a scan the replicas barely move, so a
pair's swap stays accepted or refused for scans on end (lag-1 autocorrelation of its acceptance
0.2–0.46) and the index process stalls. Measured on the tall mixture (N = 10⁴, 15–16 rungs,
4 chains, 1000 warmup, 2000 draws, seed 0, 2 cores): 1 inner step a scan, 2–6 round trips a
chain against 28 predicted, 24.6 s; 3 steps, 10–21 (autocorrelation gone at 10 steps: 18–24
against 30), 26.6 s; 5 steps 36.8 s, 10 steps 56.7 s. At 4000 draws: 1 step 45 trips in all,
27.5 s; 2 steps 128, 31.6 s; 3 steps 150–173 over seeds 0–3, 37 s. Hence :data:`INNER_STEPS`
= 3, about the most round trips a second. Each round trip brings the cold rung a fresh
ordering, so the ordering error falls as 1/√(trips): 0.061, 0.032, 0.057, 0.111 over seeds 0–3
at 4 × 4000 draws (one step: 0.067, 0.108, 0.043, 0.081).

Where the subsampled swap limits it. A swap between nested subsets X_{m+1} ⊂ X_m, D = X_m \
X_{m+1}, has log ratio ℓ_D(θ_{m+1}) − ℓ_D(θ_m): the power path's (β_m − β_{m+1})(ℓ(θ_{m+1}) −
ℓ(θ_m)) plus the noise of which points D holds, whose sd grows as √|D| where the first term
grows as |D|. So Σ r_m does not settle at a path's barrier as rungs are added, as a power
ladder's does: on the tall mixture (N = 10⁴, 4 × 4000 draws, seed 0, 2026-11-29) Σ r was 5.8,
7.6, 8.6 and 10.2 with 8, 11, 15 (the pilot's count) and 20 rungs, where PT's prior leg has Λ
4.4, and the chains made 29, 32, 48 and 49 round trips each: 7.6, 5.5, 8.8 and 5.3 a second of
sampling. Tried and not kept, since neither beat 8.8 a second: more inner steps on the cheap
hot rungs (up to 10 or 30 a scan by cost: 52 and 57 trips, 8.0 and 7.8 a second), and a path
that stops subsampling at M points and tempers that subset's likelihood below (M = 300, 1000:
Σ r 7.8, 7.0; 51, 64 trips; 7.3, 7.9 a second). Round trips a second are what SPT trades on,
and at N = 10⁴ they make it about twice as quick as ``pt`` to the same ordering error, not five
times (``docs/benchmarks.md``).
"""

from __future__ import annotations

from typing import Any, Self

import jax
from pydantic import Field, PositiveInt, field_validator

from tempering.algorithms.base import Algorithm
from tempering.algorithms.cost_model import pt_predicted_cost
from tempering.algorithms.options import SubsetOptions
from tempering.algorithms.pt.sampler import PTOptions, build_over
from tempering.algorithms.pt.stats import PT_STATS
from tempering.algorithms.pt.summary import swap_lines, swap_summary
from tempering.algorithms.spec import SamplerSpec
from tempering.errors import UserInputError
from tempering.ladders import adaptive_subset_ladder, subset_tempering_ladder
from tempering.models.base import Model

#: The adaptive schedule's hot end by default: a subset of this many data points (module
#: docstring).
HOT_POINTS = 4
#: Inner updates on each rung per scan by default (module docstring: the index process needs
#: replicas that move between swaps).
INNER_STEPS = 3
#: Folded into ``pilot_seed``'s key for the run's subsets (:func:`subsets_key`).
SUBSETS_STREAM = 0x5B5E7


class SPTOptions(PTOptions, SubsetOptions):
    """PT's options over a subset ladder; ``keep_all_rungs`` is refused (no power weights), and
    the adaptive schedule ends at ``beta_min`` (a subset rung has one data point at least; by
    default :data:`HOT_POINTS` points, 0.125 with a fixed schedule)."""

    PRIOR_REFERENCE = False
    REFERENCES = ("prior",)

    beta_min: float | None = Field(  # type: ignore[assignment]
        None, gt=0.0, lt=1.0, description="the hot end (a subset of round(beta_min N) points); "
                                          "default: 4 points with the adaptive schedule, 0.125 "
                                          "with a fixed one")

    inner: str = Field("rwm", description="any registered kernel (default rwm: each subset "
                                          "rung has a density of its own, and HMC compiles "
                                          "each one's gradient)")
    inner_steps: PositiveInt = Field(INNER_STEPS, description="inner updates on each rung "
                                     "per scan (default 3: with one, a replica's swaps stay "
                                     "accepted or refused for scans on end)")
    shared_subsets: bool = Field(True, description="every chain and the pilot run on the same "
                                                   "subsets, drawn from pilot_seed, so the "
                                                   "pilot's schedule fits them; false: each "
                                                   "chain draws its own")

    @field_validator("keep_all_rungs")
    @classmethod
    def _power_only(cls, value: bool) -> bool:
        if value:
            raise ValueError("only pt keeps every rung (subset rungs have no power weights)")
        return value

    @field_validator("capacity")
    @classmethod
    def _no_slots(cls, value: list[int] | None) -> list[int] | None:
        if value is not None:
            raise ValueError("only pt's program has rung slots (subset rungs have static sizes)")
        return value

    def geometric_fallback(self, note: str) -> Self:
        """These options on the fixed geometric ladder, with ``note`` saying why (the sampler's
        facts carry it to the run file and the summary)."""
        fallback = self.model_copy(update={"schedule": "fixed", "rungs": (
            7 if self.rungs == "auto" else self.rungs)})
        fallback._notes = [note]
        return fallback

    def resolve(self, model: Any) -> Self:
        """The inner kernel's options; the fixed schedule where the adaptive one cannot be
        placed (the pilot runs in :meth:`run_pilot`)."""
        resolved = super(PTOptions, self).resolve(model)
        if resolved.beta_min is None:
            placed = (resolved.schedule == "adaptive" and resolved.start_betas is None
                      and model.log_lik_terms_fn is not None)
            hot = min(0.125, HOT_POINTS / model.n_data) if placed else 0.125
            resolved = resolved.model_copy(update={"beta_min": hot})
        if resolved.schedule != "adaptive" or resolved.start_betas is not None:
            return resolved
        if model.log_lik_terms_fn is None:
            if not self._schedule_by_default:
                raise UserInputError(f"sampler.schedule: spt places an adaptive schedule with "
                                     f"per-datum likelihood terms, which {model.name} does not "
                                     "have; use schedule=fixed")
            return resolved.geometric_fallback(
                f"schedule: fixed, since the adaptive schedule's pilot masks per-datum "
                f"likelihood terms, which {model.name} does not have (its likelihood on a "
                f"subset is not a sum over points)")
        return resolved

    def run_pilot(self, model: Any, layout: Any = None) -> Self:
        """For the adaptive schedule, the pilot's β's (and rungs, with ``rungs=auto``)."""
        del layout  # its pilot has programs of its own
        if self.schedule != "adaptive" or self.start_betas is not None:
            return self
        ladder = adaptive_subset_ladder(model, self.betas(), subsets=self.subsets,
                                        subsets_key=subsets_key(self))
        pilot = build_over(model, self, ladder, keep_all_rungs=None, adaptive=True, pilot=True)
        return self.placed(model, pilot, choose_rungs=self.rungs == "auto")


def subsets_key(options: SPTOptions) -> jax.Array | None:
    """The key of the run's subsets (``shared_subsets``): :data:`SUBSETS_STREAM` folded into
    ``pilot_seed``'s key, apart from the pilot chain's own keys; ``None``: each chain's."""
    if not options.shared_subsets:
        return None
    return jax.random.fold_in(jax.random.PRNGKey(options.pilot_seed), SUBSETS_STREAM)


def build(model: Model, options: SPTOptions) -> Algorithm:
    """SPT on subsets of ``options``' β's (the run's, or each chain's: ``shared_subsets``)."""
    ladder = subset_tempering_ladder(model, options.betas(), subsets=options.subsets,
                                     redraw=False, subsets_key=subsets_key(options))
    return build_over(model, options, ladder, keep_all_rungs=None)


SPEC = SamplerSpec(
    name="spt",
    summary="subsampled parallel tempering on fixed subsets (seed 000); also takes the inner "
            "kernel's options",
    options=SPTOptions,
    build=build,
    stats=PT_STATS,
    summarize=swap_summary,
    render=swap_lines,
    predicted_cost=pt_predicted_cost,
)
