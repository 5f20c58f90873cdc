"""Run summary: per-parameter mean, sd, ESS, R-hat and MCSE, the run's totals, and what the
sampler's spec adds.

ArviZ supplies the rank-normalised split R-hat and the bulk/tail ESS and MCSE (Vehtari et al.
2021); the seed papers' Gelman–Rubin R-hat and between-chain ESS (seed 000 Eqs. 4–8) are reported
beside them as ``rhat_gr`` and ``ess_gr`` (:mod:`tempering.summary.params`). Efficiency is the
smallest bulk ESS per second of sampling and per unit of cost (full-data-equivalent likelihood
evaluations during sampling). A sampler's own statistics (swap rates, evaluation counts, ...) are
summarised by its spec's ``summarize`` hook, found in the registry by the run's sampler name; a run
of a sampler that is not registered in this process is summarised without them. A run that kept
every rung's draws with importance weights is summarised by importance tempering
(:mod:`tempering.summary.weighted`). A run of a model with a held-out test set (``logistic``,
``bnn``) gets test-set predictive checks (:mod:`tempering.summary.predictive`). The sampler's
headline statistics and the warnings (R-hat, ESS, stuck chains, divergences, headlines below
their floors, importance-sampling ESS) come from :mod:`tempering.summary.checks`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from tempering.algorithms import SAMPLERS
from tempering.errors import UserInputError
from tempering.estimators import Weights, ess_per_cost, ess_per_second
from tempering.run.output import run_attr
from tempering.summary.checks import headline_values, run_headlines, summary_warnings
from tempering.summary.params import param_row, scalar_series
from tempering.summary.predictive import predictive_summary
from tempering.summary.weighted import has_rungs, it_summary

if TYPE_CHECKING:
    import arviz as az


def sampler_summary(idata: az.InferenceData) -> dict[str, Any]:
    """The run's sampler's own summary of its statistics (empty without a hook, or when the
    sampler is not registered in this process)."""
    spec = SAMPLERS.find(run_attr(idata, "sampler"))
    if spec is None or spec.summarize is None:
        return {}
    stats = idata["sample_stats"]
    return spec.summarize({str(key): np.asarray(stats[key].values) for key in stats.data_vars})


def summarize(idata: az.InferenceData, weights: Weights | None = None) -> dict[str, Any]:
    """The summary as one JSON-ready dict.

    Keys: ``params`` (name → mean, sd, ess_bulk, ess_tail, rhat, mcse_mean, rhat_gr, ess_gr),
    ``rhat_max``, ``ess_bulk_min``, ``ess_bulk_median``, ``wall_seconds`` (warmup, sampling, total),
    ``cost_total``, ``ess_per_second``, ``ess_per_cost``, plus ``sampler``, ``model``, ``chains``,
    ``draws``, ``cost_per_draw``, ``unfinished`` (committed and planned draws per chain, for a
    run still being written), what the sampler's spec adds (:func:`sampler_summary`) and, for
    a model with a held-out test set, the ``predictive`` block
    (:func:`~tempering.summary.predictive.predictive_summary`); last, ``headline`` (label → value
    of each statistic the sampler puts forward) and ``warnings`` (one line per problem found,
    :func:`~tempering.summary.checks.summary_warnings`; empty for a healthy run).

    A run that kept every rung's draws (``st``, ``pt`` with ``keep_all_rungs``) is summarised by
    importance tempering with the combination ``weights`` (``optimal`` by default, ``naive``,
    ``st``; :func:`~tempering.summary.weighted.it_summary`), adding the ``it`` and
    ``evidence`` blocks; ``weights`` on any other run is a :class:`UserInputError`.
    """
    rungs = has_rungs(idata)
    if weights is not None and not rungs:
        raise UserInputError(f"--weights {weights}: this run has no rungs to weight (use "
                             "--sampler st, or pt with --set sampler.keep_all_rungs=true)")
    it = it_summary(idata, weights or "optimal") if rungs else {}
    params = it.pop("params", {})
    for name, values in (() if rungs else scalar_series(idata["posterior"])):
        params[name] = param_row(values)
    # partly defined components (NaN in some draws) have no diagnostics: leave them out of totals
    full = [p for p in params.values() if p.get("defined", 1.0) == 1.0] or list(params.values())
    rhats = [p["rhat"] for p in full]
    ess = [p["ess_bulk"] for p in full]
    warm = float(run_attr(idata, "wall_seconds_warmup", 0.0))
    samp = float(run_attr(idata, "wall_seconds_sampling", 0.0))
    cost = float(run_attr(idata, "cost_total", float("nan")))
    committed = run_attr(idata, "committed_draws")
    if committed is not None:  # a run still being written: its committed draws' cost
        cost = float(idata["sample_stats"]["cost"].sum())
    ess_min = float(np.min(ess))
    result = {
        "sampler": run_attr(idata, "sampler"),
        "inner": (run_attr(idata, "sampler_options", {}) or {}).get("inner"),
        "model": run_attr(idata, "model"),
        "chains": int(idata["posterior"].sizes["chain"]),
        "draws": int(idata["posterior"].sizes["draw"]),
        "precision": run_attr(idata, "precision"),
        "params": params,
        "rhat_max": float(np.max(rhats)),
        "ess_bulk_min": ess_min,
        "ess_bulk_median": float(np.median(ess)),
        "wall_seconds": {"warmup": warm, "sampling": samp, "total": warm + samp},
        "cost_total": cost,
        **_facts_summary(idata),
        "ess_per_second": float(ess_per_second(ess_min, samp)),
        "ess_per_cost": float(ess_per_cost(ess_min, cost)),
        "cost_per_draw": float(np.mean(idata["sample_stats"]["cost"].values)),
        **sampler_summary(idata),
        **it,
        **predictive_summary(idata),
        **({"unfinished": {"committed_draws": int(committed),
                           "planned_draws": int(run_attr(idata, "planned_draws"))}}
           if committed is not None else {}),
    }
    headlines = run_headlines(idata)
    result["headline"] = headline_values(idata, headlines)
    result["warnings"] = summary_warnings(result, idata, headlines)
    return result


def _facts_summary(idata) -> dict[str, Any]:
    """What the sampler's facts add: ``pilot`` (a PT or SPT schedule placed before the run: its
    scans, rungs, Λ̂, seconds with compilation apart, and cost) when one ran, and ``notes`` (e.g.
    a default that fell back to what fits the model)."""
    facts = run_attr(idata, "sampler_facts", {})
    facts = facts if isinstance(facts, dict) else {}
    out: dict[str, Any] = {}
    if isinstance(facts.get("pilot"), dict):
        out["pilot"] = dict(facts["pilot"])
    if facts.get("notes"):
        out["notes"] = [str(note) for note in facts["notes"]]
    return out
