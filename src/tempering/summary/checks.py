"""What makes a run summary warn: the summary's ``headline`` values and ``warnings`` lines.

The checks follow Stan's and ArviZ's conventions (Vehtari et al. 2021), each a one-line warning
naming the problem and its numbers:

* rank R-hat above :data:`RHAT_MAX` (1.01), naming the worst parameter; an R-hat that is
  infinite or NaN for a parameter with every draw defined (chains that never mix, or all stuck at
  one value) warns too;
* bulk or tail ESS under :data:`ESS_PER_CHAIN` (100) per chain, i.e. below 100 × chains in total
  (Stan's rule), naming the worst parameter; with fewer than 4 draws per chain neither R-hat nor
  ESS is defined, and that is the warning;
* chains that never moved: every parameter constant over the chain's draws, or its mean
  ``acceptance_rate`` 0 — the chains are named;
* divergent transitions, when ``sample_stats`` has ``diverging`` (any at all, as Stan): count
  and share of the draws;
* a sampler's headline statistic (:class:`~tempering.algorithms.base.Headline`) below its
  ``floor`` (e.g. TT accept under 0.05);
* for a tempering run whose line ends at the prior (``round_trips_prior`` in the summary), a
  bulk ESS below :data:`TRIP_ESS_SHARE` × the round trips through the prior: each such trip
  refreshes a replica from the prior, so the draws should hold about as many independent states
  as trips; far fewer means the path between the prior and the target loses part of the
  posterior (a narrow mode) and its share rests on the few replicas holding it. (No statistic
  of the run sees a mode that every chain misses: the R-hat check and this one need a chain
  that found it.)
* for a PT run, a round-trip rate under :data:`EXPLORATION_SHARE` (half) of the rate that
  Syed et al.'s Theorem 3 gives its schedule (``round_trip_rate_deo``), once that rate
  predicts :data:`MIN_PREDICTED_TRIPS` (20) trips over the run: the theorem assumes each
  replica forgets its state between swaps (efficient local exploration); far fewer trips mean
  the inner moves between swaps are too few, so the swaps keep refusing the same replicas and
  each trip brings back less than its count suggests; the line names ``inner_steps``;
* for a PT run on a stabilized path, a variational leg that made under :data:`DEAD_LEG_SHARE`
  (10%) of the prior leg's round trips, the prior leg having made :data:`MIN_LEG_TRIPS` (20) or
  more: q, a Gaussian fitted to the target in warmup, is too far from it to bring replicas back,
  so the line's round trips (the headline's) understate the mixing, which rests on the prior
  leg, and the leg's rungs cost work that brings back no states; the line names
  ``reference=prior``;
* for a run summarised by importance tempering, an importance-sampling ESS of the chosen
  weights under 100 per chain, or under :data:`IS_ESS_SHARE` (1%) of the weighted draws (a few
  draws carry most of the weight). The IS ESS ignores autocorrelation, so it bounds the effective
  size from above: below either line the weighted estimates are not to be trusted.

* for a stochastic-gradient run (SGLD, SGHMC: the statistics ``step_inflation`` and
  ``noise_inflation``), a predicted standard deviation more than :data:`SGMCMC_SD_BIAS` (10%) off:
  the product of the step's factor on the variance and the mean over draws of the gradient
  noise's (:mod:`tempering.algorithms.minibatch.sgmcmc`), its square root against 1, in either
  direction; the line says which factor dominates. A run without warmup has no predicted step
  factor (NaN) and says so.

R-hat and tail ESS of importance-weighted estimates are not defined (NaN) and are not checked.
Components undefined in some draws (unused slots of a variable-dimension model) are left out, as
they are from the summary's totals.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from tempering.algorithms.base import ACCEPTANCE_HEADLINE, Headline, headline_value
from tempering.run.output import run_attr
from tempering.summary.params import component_blocks

if TYPE_CHECKING:
    import arviz as az

#: Rank R-hat above this warns (Vehtari et al. 2021; ArviZ's and Stan's threshold).
RHAT_MAX = 1.01
#: Bulk or tail ESS (and the IS ESS) under this many per chain warns (Stan's rule).
ESS_PER_CHAIN = 100
#: An IS ESS under this share of the weighted draws warns (weights degenerate).
IS_ESS_SHARE = 0.01
#: A bulk ESS under this share of the round trips through the prior warns. Calibrated on 24 runs
#: of the 12-D three-mode ``gauss_mixture`` (4 × 4 000 and 4 × 16 000 draws; issue 44): runs whose
#: modes mixed had ESS ≥ 1.9 × the trips, runs that lost the narrow mode 0.02–0.34 ×.
TRIP_ESS_SHARE = 1.0
#: A variational leg with under this share of the prior leg's round trips warns. Measured
#: (2026-11-28, default ``pt``, 4 × 1000 draws): tall label switching (``mixture``, n = 10⁴)
#: 1, 10 and 3 against 79, 97 and 61 over seeds 0–2 — its q, fitted over several orderings, met
#: the target through an end pair accepting 0.05 — while the legs of every other target carried
#: their share: label switching with n = 150, 197 and 210; the 10-D ``gauss_mixture`` 539 and 81;
#: the spike and slab 441 and 44.
DEAD_LEG_SHARE = 0.1
#: ... once the prior leg has made this many round trips (fewer: too few to compare).
MIN_LEG_TRIPS = 20
#: A round-trip rate under this share of the schedule's Theorem-3 rate warns. Measured
#: (2026-11-29, default ``pt``, 4 × 1000 draws, the 2-core machine): ``mvn_mean`` 0.64 and the
#: 10-D ``gauss_mixture`` 0.55 of it; the egg-box (RWM, 3 steps a scan) 0.24, its trips 41, 74
#: and 112 with 3, 10 and 30 steps (`docs/benchmarks.md`); the PyMC label-switching example
#: (`tempering sample`'s defaults, 4 × 2000 draws) 0.26.
EXPLORATION_SHARE = 0.5
#: ... once the schedule's rate predicts this many round trips over the run (fewer: too few).
MIN_PREDICTED_TRIPS = 20
#: ArviZ's R-hat and ESS need at least this many draws per chain.
MIN_DRAWS = 4
#: A stochastic-gradient run whose predicted sd is off by more than this share warns.
SGMCMC_SD_BIAS = 0.10


def run_headlines(idata: az.InferenceData) -> tuple[Headline, ...]:
    """The headline statistics the run's sampler declared (its file's ``headline`` attr); a run
    file without them (written before headlines existed) gets the mean acceptance."""
    recorded = run_attr(idata, "headline")
    if not recorded:
        return (ACCEPTANCE_HEADLINE,)
    return tuple(Headline(**entry) for entry in recorded)


def headline_values(idata: az.InferenceData,
                    headlines: tuple[Headline, ...]) -> dict[str, float]:
    """``{label: value}`` of each headline over the run's ``sample_stats`` (NaN where a statistic
    it needs was not recorded)."""
    stats = idata["sample_stats"]
    record = {str(name): np.asarray(stats[name].values) for name in stats.data_vars}
    return {h.label: headline_value(h, record) for h in headlines}


def _chains(indices: list[int]) -> str:
    """``chain 1`` or ``chains 0, 2``."""
    return (f"chain{'s' if len(indices) > 1 else ''} "
            f"{', '.join(str(i) for i in indices)}")


def _per_chain(chains: int) -> str:
    """``100 per chain × 4 chains``."""
    return f"{ESS_PER_CHAIN} per chain × {chains} chain{'s' if chains != 1 else ''}"


def _full_rows(summary: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Parameter rows with every draw defined (those that enter the totals)."""
    return {name: row for name, row in summary["params"].items()
            if row.get("defined", 1.0) == 1.0}


def rhat_warnings(summary: dict[str, Any]) -> list[str]:
    """R-hat above :data:`RHAT_MAX`, or not finite; or no diagnostics at all (under 4 draws)."""
    if "it" in summary:  # importance-weighted estimates have no R-hat
        return []
    if summary["draws"] < MIN_DRAWS:
        return [f"R-hat and ESS are undefined with {summary['draws']} draws per chain (they need "
                f"at least {MIN_DRAWS}): run longer"]
    if summary.get("chains", 2) < 2:  # ArviZ's R-hat needs two chains
        return ["R-hat is undefined with one chain: run at least two (e.g. --chains 4) to "
                "check that they agree"]
    rhats = {name: float(row["rhat"]) for name, row in _full_rows(summary).items()}
    out = []
    broken = {name: value for name, value in rhats.items() if not math.isfinite(value)}
    if broken:
        name, value = next(iter(broken.items()))
        out.append(f"R-hat is {value} for {name} ({len(broken)} of {len(rhats)} parameters "
                   f"without a finite R-hat): the chains do not mix at all (stuck, or all "
                   f"constant at one value)")
    finite = {name: value for name, value in rhats.items() if math.isfinite(value)}
    high = {name: value for name, value in finite.items() if value > RHAT_MAX}
    if high:
        worst = max(high, key=high.__getitem__)
        out.append(f"R-hat {high[worst]:.3f} for {worst} is above {RHAT_MAX} ({len(high)} of "
                   f"{len(rhats)} parameters above): the chains disagree; run longer, or look "
                   f"for modes some chains have not reached")
    return out


def ess_warnings(summary: dict[str, Any]) -> list[str]:
    """Bulk or tail ESS under :data:`ESS_PER_CHAIN` per chain, naming the worst parameter."""
    if summary["draws"] < MIN_DRAWS:
        return []  # rhat_warnings says it
    chains = summary["chains"]
    floor = ESS_PER_CHAIN * chains
    rows = _full_rows(summary)
    out = []
    for kind, consequence in (("bulk", "the means and R-hat are unreliable"),
                              ("tail", "the quantiles and intervals are unreliable")):
        ess = {name: float(row[f"ess_{kind}"]) for name, row in rows.items()
               if math.isfinite(row[f"ess_{kind}"])}
        low = {name: value for name, value in ess.items() if value < floor}
        if low:
            worst = min(low, key=low.__getitem__)
            out.append(f"{kind} ESS {low[worst]:.0f} for {worst} is below {floor} "
                       f"({_per_chain(chains)}; {len(low)} of {len(ess)} parameters below)"
                       f": {consequence}; run longer")
    return out


def stuck_warnings(idata: az.InferenceData) -> list[str]:
    """Chains whose draws of every parameter are constant, or whose mean acceptance is 0."""
    posterior = idata["posterior"]
    chains, draws = posterior.sizes["chain"], posterior.sizes["draw"]
    constant = np.full(chains, draws > 1)
    for var in posterior.data_vars.values():
        for _, block in component_blocks(var):
            values = block.astype(float)
            first = values[:, :1]
            same = (values == first) | (np.isnan(values) & np.isnan(first))
            constant &= same.all(axis=(1, 2))
    idle = np.zeros(chains, dtype=bool)
    if "acceptance_rate" in idata["sample_stats"]:
        rate = np.asarray(idata["sample_stats"]["acceptance_rate"].values, dtype=float)
        idle = np.mean(rate.reshape(chains, draws, -1), axis=(1, 2)) == 0
    stuck = [int(c) for c in np.flatnonzero(constant | idle)]
    if not stuck:
        return []
    same, zero = f"every parameter constant over {draws} draws", "mean acceptance_rate 0"
    if np.array_equal(constant, idle):
        reason = f"{same}, {zero}"
    else:
        reason = "; ".join(f"{what} in {_chains([int(c) for c in np.flatnonzero(where)])}"
                           for what, where in ((same, constant), (zero, idle)) if where.any())
    return [f"{_chains(stuck)} of {chains} never moved ({reason}): their draws say nothing "
            f"about the posterior; check the step size and the initial point"]


def divergence_warnings(idata: az.InferenceData) -> list[str]:
    """Divergent transitions, when the sampler records ``diverging``."""
    if "diverging" not in idata["sample_stats"]:
        return []
    diverging = np.asarray(idata["sample_stats"]["diverging"].values, dtype=float)
    count = int(np.sum(diverging != 0))
    if count == 0:
        return []
    return [f"{count} divergent transitions ({count / diverging.size:.1%} of {diverging.size} "
            f"draws): the sampler could not follow the posterior's curvature and the draws may be "
            f"biased; use a smaller step size (a higher target acceptance) or reparametrise"]


def headline_warnings(headlines: tuple[Headline, ...], values: dict[str, float]) -> list[str]:
    """Each headline with a ``floor`` whose value is below it."""
    out = []
    for headline in headlines:
        value = values.get(headline.label, float("nan"))
        if headline.floor is not None and value < headline.floor:  # NaN: not recorded, no warning
            advice = headline.advice or ("see `tempering samplers` for the sampler's "
                                         "options")
            out.append(f"{headline.label} {value:.3g} is below {headline.floor:g}: these moves "
                       f"are seldom accepted, so the chains may not mix; {advice}")
    return out


def trip_warnings(summary: dict[str, Any]) -> list[str]:
    """A bulk ESS below :data:`TRIP_ESS_SHARE` × the round trips through the prior."""
    through = summary.get("round_trips_prior")
    if through is None or summary["draws"] < MIN_DRAWS or "it" in summary:
        return []
    ess = {name: float(row["ess_bulk"]) for name, row in _full_rows(summary).items()
           if math.isfinite(row["ess_bulk"])}
    if not ess:
        return []
    worst = min(ess, key=ess.__getitem__)
    trips = through["total"]
    if ess[worst] >= TRIP_ESS_SHARE * trips:
        return []
    return [f"bulk ESS {ess[worst]:.0f} for {worst} is below the {trips} round trips through the "
            f"prior: the trips do not bring back fresh states of {worst} — the rungs between the "
            f"prior and the target lose part of the posterior (e.g. a narrow mode, which vanishes "
            f"at small β) and its share rests on the few replicas that hold it; the round trips "
            f"overstate the independent visits (run longer; more rungs do not help)"]


def exploration_warnings(summary: dict[str, Any], options: Any = None) -> list[str]:
    """A round-trip rate under :data:`EXPLORATION_SHARE` × the schedule's Theorem-3 rate, for
    DEO swaps (the sampler's ``options``: a run file's ``sampler_options``)."""
    measured, predicted = summary.get("round_trip_rate"), summary.get("round_trip_rate_deo")
    if measured is None or predicted is None or not isinstance(options, dict) \
            or options.get("swap") != "deo":
        return []
    if predicted * summary["draws"] * summary["chains"] < MIN_PREDICTED_TRIPS:
        return []
    if measured >= EXPLORATION_SHARE * predicted:
        return []
    return [f"round trips {measured:.4f} a draw, {measured / predicted:.0%} of the "
            f"{predicted:.4f} that Syed et al.'s Theorem 3 gives this schedule if each replica "
            f"forgets its state between swaps: the inner moves between swaps are too few, so "
            f"the swaps keep refusing the same replicas and each round trip brings back less "
            f"than its count suggests (raise inner_steps: more moves a scan)"]


def leg_warnings(summary: dict[str, Any]) -> list[str]:
    """A stabilized path's variational leg with under :data:`DEAD_LEG_SHARE` of the prior
    leg's round trips (the prior leg with :data:`MIN_LEG_TRIPS` or more)."""
    legs = {leg["name"]: leg for leg in summary.get("legs", []) if "round_trips" in leg}
    if summary.get("reference") != "stabilized" or set(legs) != {"variational", "prior"}:
        return []
    q, prior = legs["variational"], legs["prior"]
    if prior["round_trips"] < MIN_LEG_TRIPS or q["round_trips"] >= (
            DEAD_LEG_SHARE * prior["round_trips"]):
        return []
    trips = f"{q['round_trips']} round trip" + ("" if q["round_trips"] == 1 else "s")
    return [f"the variational leg made {trips} against the prior leg's "
            f"{prior['round_trips']}: q (a Gaussian fitted to the target in warmup) is too far "
            f"from the target to bring replicas back, so the line's round trips (q end → prior "
            f"end) understate the mixing, which rests on the prior leg, and the leg's "
            f"{len(q['betas']) - 1} rungs add work that brings back no states; reference=prior "
            f"drops them"]


def is_ess_warnings(summary: dict[str, Any]) -> list[str]:
    """An importance-sampling ESS under 100 per chain or under 1% of the weighted draws."""
    if "it" not in summary:
        return []
    it = summary["it"]
    ess = float(it[f"ess_{it['weights']}"])
    total = float(np.sum(it["n_per_rung"]))
    floor = ESS_PER_CHAIN * summary["chains"]
    problems = []
    if not ess >= floor:
        problems.append(f"below {floor} ({_per_chain(summary['chains'])})")
    if total > 0 and not ess >= IS_ESS_SHARE * total:
        problems.append(f"{ess / total:.2%} of the {total:.0f} weighted draws, below "
                        f"{IS_ESS_SHARE:.0%}")
    if not problems:
        return []
    return [f"importance-sampling ESS {ess:.0f} ({it['weights']} weights) is "
            f"{' and '.join(problems)}: a few draws carry most of the weight and the weighted "
            f"estimates are unreliable; run longer or use closer rungs"]


def sgmcmc_bias_warnings(idata: az.InferenceData) -> list[str]:
    """A predicted sd more than :data:`SGMCMC_SD_BIAS` off, from ``step_inflation`` ×
    ``noise_inflation`` (means over the draws, then over the chains)."""
    stats = idata["sample_stats"]
    if "step_inflation" not in stats or "noise_inflation" not in stats:
        return []
    step = float(np.mean(np.asarray(stats["step_inflation"].values, dtype=float)))
    noise = float(np.mean(np.asarray(stats["noise_inflation"].values, dtype=float)))
    if math.isnan(step):
        if math.isfinite(noise) and math.sqrt(noise) - 1.0 <= SGMCMC_SD_BIAS:
            return ["stochastic-gradient run without warmup: no mode, curvature or step size "
                    "was found, so the step's bias on the posterior sds is not predicted (the "
                    "gradient noise alone puts them "
                    f"{math.sqrt(noise) - 1.0:+.0%} off); run with warmup"]
        step = 1.0
    inflation = step * noise
    off = math.sqrt(inflation) - 1.0 if inflation >= 0 else math.inf
    if abs(off) <= SGMCMC_SD_BIAS:
        return []
    if noise - 1.0 >= abs(step - 1.0):
        options = run_attr(idata, "sampler_options") if "posterior" in idata else None
        off_cv = isinstance(options, dict) and options.get("control_variates") is False
        advice = ("the gradient noise dominates: "
                  + ("turn control_variates on, or " if off_cv else "")
                  + "use a larger batch or a smaller step_size")
    else:
        advice = ("the step dominates: use a smaller step_size (unset, it is chosen from the "
                  "curvature at the mode), or temperature 1 with SGHMC")
    return [f"stochastic-gradient bias: the predicted posterior sd is {off:+.0%} off in the "
            f"worst coordinate (variance × {inflation:.3g}: step × {step:.3g}, gradient noise × "
            f"{noise:.3g}), beyond ±{SGMCMC_SD_BIAS:.0%}; {advice}"]


def summary_warnings(summary: dict[str, Any], idata: az.InferenceData,
                     headlines: tuple[Headline, ...]) -> list[str]:
    """Every warning for the run, in the order: stuck chains (the likely cause of the rest),
    R-hat, ESS, round trips, a variational leg without them, divergences, stochastic-gradient
    bias, headlines below their floors, importance-sampling ESS."""
    return [*stuck_warnings(idata), *rhat_warnings(summary), *ess_warnings(summary),
            *trip_warnings(summary), *exploration_warnings(summary, _options(idata)),
            *leg_warnings(summary), *divergence_warnings(idata),
            *sgmcmc_bias_warnings(idata),
            *headline_warnings(headlines, summary.get("headline", {})),
            *is_ess_warnings(summary)]


def _options(idata: az.InferenceData) -> Any:
    """The run's sampler options (``None`` where the file has none)."""
    return run_attr(idata, "sampler_options") if "posterior" in idata else None
