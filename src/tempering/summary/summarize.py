"""Run summary: per-parameter mean, sd, ESS, R-hat and MCSE, and the run's totals.

ArviZ supplies the rank-normalised split R-hat and the bulk/tail ESS and MCSE (Vehtari et al.
2021); the seed papers' Gelman–Rubin R-hat and between-chain ESS (seed 000 Eqs. 4–8) are reported
beside them as ``rhat_gr`` and ``ess_gr``. Efficiency is the smallest bulk ESS per second of
sampling and per unit of cost (full-data-equivalent likelihood evaluations during sampling).
"""

from __future__ import annotations

import warnings
from typing import Any

import arviz as az
import numpy as np

from tempering.diagnostics.paper import (
    ess_between_chain,
    ess_per_cost,
    ess_per_second,
    gelman_rubin,
)
from tempering.errors import UserInputError
from tempering.run.output import run_attr


def _scalar_series(posterior) -> dict[str, np.ndarray]:
    """Every scalar component as a (chain, draw) array, vector components named ``name[i]``."""
    out = {}
    for name, var in posterior.data_vars.items():
        values = np.asarray(var.values)
        if values.ndim == 2:
            out[name] = values
        else:
            flat = values.reshape(values.shape[0], values.shape[1], -1)
            for i in range(flat.shape[2]):
                index = np.unravel_index(i, values.shape[2:])
                out[f"{name}[{','.join(str(j) for j in index)}]"] = flat[:, :, i]
    return out


def _diagnostic(fn, values: np.ndarray, **kwargs) -> float:
    """An ArviZ diagnostic of a (chain, draw) array; NaN where it is undefined (under 4 draws).

    With one chain, ArviZ warns that it cannot validate the shape; the value is still defined
    (split-chain R-hat and ESS), so the warning is silenced rather than shown to the user.
    """
    if values.shape[1] < 4:
        return float("nan")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return float(fn(values, **kwargs))


def _param_row(values: np.ndarray) -> dict[str, float]:
    """Mean, sd and diagnostics of one (chain, draw) series, and the share of draws defining it.

    A component that is NaN in some draws — an unused slot of a variable-dimension model, such as
    a change point beyond k (:mod:`tempering.models.changepoint`) — gets its mean and sd over the
    draws where it is defined (``defined`` < 1) and no ESS, R-hat or MCSE: those need a series
    with every draw.
    """
    defined = ~np.isnan(values)
    share = float(np.mean(defined))
    if share < 1.0:
        picked = values[defined]
        nan = float("nan")
        return {"mean": float(np.mean(picked)) if picked.size else nan,
                "sd": float(np.std(picked, ddof=1)) if picked.size > 1 else nan,
                "ess_bulk": nan, "ess_tail": nan, "rhat": nan, "mcse_mean": nan,
                "rhat_gr": nan, "ess_gr": nan, "defined": share}
    multi_chain = values.shape[0] >= 2
    gr = gelman_rubin(values) if multi_chain else None
    return {
        "mean": float(np.mean(values)),
        "sd": float(np.std(values, ddof=1)),
        "ess_bulk": _diagnostic(az.ess, values, method="bulk"),
        "ess_tail": _diagnostic(az.ess, values, method="tail"),
        "rhat": _diagnostic(az.rhat, values, method="rank"),
        "mcse_mean": _diagnostic(az.mcse, values, method="mean"),
        "rhat_gr": float(gr.rhat) if gr else float("nan"),
        "ess_gr": float(ess_between_chain(values)) if multi_chain else float("nan"),
        "defined": share,
    }


def tempering_stats(stats) -> dict[str, Any]:
    """Swap rates per adjacent pair and round trips (PT family), or the tempered-transition
    acceptance rate (TT family); empty for other samplers.

    A pair's swap rate is its summed acceptance probability over the iterations that proposed it
    (with the ``deo`` scheme each pair is proposed every other iteration).
    """
    out: dict[str, Any] = {}
    if "swap_accept_prob" in stats:
        prob = np.asarray(stats["swap_accept_prob"].values)
        proposed = np.asarray(stats["swap_proposed"].values)
        counts = proposed.sum(axis=(0, 1))
        out["swap_rate"] = [float(p) if c else None for p, c in
                            zip(prob.sum(axis=(0, 1)) / np.maximum(counts, 1), counts, strict=True)]
        out["round_trips"] = int(np.asarray(stats["round_trips"].values)[:, -1].sum())
    if "tt_accept_prob" in stats:
        out["tt_accept_rate"] = float(np.mean(stats["tt_accept_prob"].values))
    return out


def discretizing_stats(stats) -> dict[str, Any]:
    """Evaluation counts of a sampler that reports them per iteration (the discretizing chain,
    seed 002 §3): π and π* evaluations, cache hits — totals over all chains and draws, and means
    per iteration — the share of mark moves served from the cache, and the mark acceptance rate;
    empty for other samplers."""
    if "n_pi_evals" not in stats:
        return {}
    counts = {}
    for key in ("n_pi_evals", "n_approx_evals", "cache_hits"):
        values = np.asarray(stats[key].values)
        counts[key] = {"total": float(values.sum()), "per_iteration": float(values.mean())}
    moves = counts["n_pi_evals"]["total"] + counts["cache_hits"]["total"]
    return {"evaluations": {
        **counts,
        "cache_hit_rate": counts["cache_hits"]["total"] / moves if moves else float("nan"),
        "mark_accept_rate": float(np.mean(stats["mark_accept"].values)),
    }}


def summarize(idata: az.InferenceData, weights: str | None = None) -> dict[str, Any]:
    """The summary as one JSON-ready dict.

    Keys: ``params`` (name → mean, sd, ess_bulk, ess_tail, rhat, mcse_mean, rhat_gr, ess_gr),
    ``rhat_max``, ``ess_bulk_min``, ``ess_bulk_median``, ``wall_seconds`` (warmup, sampling, total),
    ``cost_total``, ``ess_per_second``, ``ess_per_cost``, plus ``sampler``, ``model``, ``chains``,
    ``draws``, ``cost_per_draw`` and, for tempering samplers, :func:`tempering_stats`; for samplers
    that count their evaluations, :func:`discretizing_stats`.

    A run that kept every rung's draws (``st``, ``pt`` with ``keep_all_rungs``) is summarised by
    importance tempering with the combination ``weights`` (``optimal`` by default, ``naive``,
    ``st``; :func:`~tempering.diagnostics.it_summary.it_summary`), adding the ``it`` and
    ``evidence`` blocks; ``weights`` on any other run is a :class:`UserInputError`.
    """
    from tempering.diagnostics.it_summary import has_rungs, it_summary

    rungs = has_rungs(idata)
    if weights is not None and not rungs:
        raise UserInputError(f"--weights {weights}: this run has no rungs to weight (use "
                             "--sampler st, or pt with --set sampler.keep_all_rungs=true)")
    it = it_summary(idata, weights or "optimal") if rungs else {}
    params = it.pop("params", {})
    for name, values in ({} if rungs else _scalar_series(idata.posterior)).items():
        params[name] = _param_row(values)
    # partly defined components (NaN in some draws) have no diagnostics: leave them out of totals
    full = [p for p in params.values() if p.get("defined", 1.0) == 1.0] or list(params.values())
    rhats = [p["rhat"] for p in full]
    ess = [p["ess_bulk"] for p in full]
    warm = float(run_attr(idata, "wall_seconds_warmup", 0.0))
    samp = float(run_attr(idata, "wall_seconds_sampling", 0.0))
    cost = float(run_attr(idata, "cost_total", float("nan")))
    ess_min = float(np.min(ess))
    return {
        "sampler": run_attr(idata, "sampler"),
        "model": run_attr(idata, "model"),
        "chains": int(idata.posterior.sizes["chain"]),
        "draws": int(idata.posterior.sizes["draw"]),
        "params": params,
        "rhat_max": float(np.max(rhats)),
        "ess_bulk_min": ess_min,
        "ess_bulk_median": float(np.median(ess)),
        "wall_seconds": {"warmup": warm, "sampling": samp, "total": warm + samp},
        "cost_total": cost,
        "ess_per_second": float(ess_per_second(ess_min, samp)),
        "ess_per_cost": float(ess_per_cost(ess_min, cost)),
        "cost_per_draw": float(np.mean(idata.sample_stats["cost"].values)),
        **tempering_stats(idata.sample_stats),
        **discretizing_stats(idata.sample_stats),
        **it,
    }
