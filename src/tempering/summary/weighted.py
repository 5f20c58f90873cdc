"""The summary of a run that kept every rung's draws (``st``; ``pt`` with ``keep_all_rungs``):
importance-tempering estimates and log-evidence estimates (seed 001).

Such a run holds, per draw, ``sample_stats.rung`` (0 = the target), ``sample_stats.log_weight``
((1 − k) U) and ``sample_stats.log_tempered`` (U) (declared by
:func:`tempering.algorithms.base.rung_weight_stats`), and the ladder's β in the run's
``sampler_facts``; ``posterior`` holds the draws as run —
(chain, draw, *shape) for ST, (chain, draw, rung, *shape) for PT. Parameters are summarised by
the chosen combination of per-rung importance estimators (:mod:`importance`): weighted mean and sd,
the delta-method MCSE of the mean (weights and autocorrelation), ``ess_bulk`` = (sd / MCSE)², the
effective size that accounts for both, and ``ess_is``, the importance-sampling ESS of the
combination (the paper's, which ignores autocorrelation). R-hat and tail ESS are not defined for
weighted estimates and are NaN.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from tempering.algorithms.base import LOG_TEMPERED, LOG_WEIGHT, RUNG
from tempering.estimators import Weights, importance_tempering, log_evidence, weighted_moments
from tempering.run.output import run_attr

if TYPE_CHECKING:
    import arviz as az


def has_rungs(idata: az.InferenceData) -> bool:
    """Whether the run kept every rung's draws with their importance weights."""
    return all(name in idata["sample_stats"] for name in (RUNG, LOG_WEIGHT, LOG_TEMPERED))


def _with_slot(values: np.ndarray, slotted: bool) -> np.ndarray:
    """(chain, draw, slot, ...) from (chain, draw, ...) (one slot) or as is."""
    return values if slotted else values[:, :, None]


def _scalar_components(posterior, slotted: bool) -> dict[str, np.ndarray]:
    """Every scalar component as a (chain, draw, slot) array, vector components ``name[i]``."""
    out = {}
    for name, var in posterior.data_vars.items():
        values = _with_slot(np.asarray(var.values), slotted)
        shape = values.shape[3:]
        if not shape:
            out[name] = values
            continue
        flat = values.reshape(*values.shape[:3], -1)
        for i in range(flat.shape[3]):
            index = np.unravel_index(i, shape)
            out[f"{name}[{','.join(str(j) for j in index)}]"] = flat[..., i]
    return out


def it_summary(idata: az.InferenceData, weights: Weights = "optimal") -> dict[str, Any]:
    """``params`` rows, the ``it`` block and the ``evidence`` block of a run with rungs."""
    stats = idata["sample_stats"]
    # "ladder": the rung dim's name in run files written before it was renamed "rung"
    slotted = bool({"rung", "ladder"} & set(idata["posterior"].dims))
    rung = _with_slot(np.asarray(stats[RUNG].values), slotted)
    log_w = _with_slot(np.asarray(stats[LOG_WEIGHT].values, dtype=float), slotted)
    energy = _with_slot(np.asarray(stats[LOG_TEMPERED].values, dtype=float), slotted)
    options = run_attr(idata, "sampler_options", {}) or {}
    facts = run_attr(idata, "sampler_facts", {}) or {}
    betas = np.asarray(facts["betas"] if "betas" in facts else options["betas"], dtype=float)
    m = betas.shape[0]

    it = importance_tempering(log_w, rung, m)
    lam = it.lambdas[weights]
    ess_is = it.ess_of(weights)
    params = {}
    for name, values in _scalar_components(idata["posterior"], slotted).items():
        moments = weighted_moments(values, log_w, rung, lam)
        ess = (moments.sd / moments.mcse_mean) ** 2 if moments.mcse_mean > 0 else float("nan")
        params[name] = {"mean": moments.mean, "sd": moments.sd, "ess_bulk": float(ess),
                        "ess_tail": float("nan"), "rhat": float("nan"),
                        "mcse_mean": moments.mcse_mean, "rhat_gr": float("nan"),
                        "ess_gr": float("nan"), "ess_is": float(ess_is)}
    evidence = log_evidence(energy, rung, betas)
    tempering = options.get("tempering", "likelihood")
    exact = tempering == "likelihood" and betas[-1] == 0.0
    return {
        "params": params,
        "it": {
            "weights": weights,
            "ess_optimal": it.ess_optimal, "ess_naive": it.ess_naive, "ess_st": it.ess_st,
            "ess_per_rung": it.ess_per_rung.tolist(), "n_per_rung": it.n_per_rung.tolist(),
            "lambda": lam.tolist(), "sum_ess_per_rung": float(np.sum(it.ess_per_rung)),
            "bound": it.bound, "bound_holds": it.bound_holds, "betas": betas.tolist(),
        },
        "evidence": {
            "quantity": "log_evidence" if exact else "log_Z(1)-log_Z(k_min)",
            "ti": evidence.ti, "ti_mcse": evidence.ti_mcse,
            "ss": evidence.ss, "ss_mcse": evidence.ss_mcse, "k_min": evidence.k_low,
            "tempering": tempering,
        },
    }
