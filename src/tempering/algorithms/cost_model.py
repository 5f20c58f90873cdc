"""Cost model of tempering by subsampling (seed 000 §3.1, Eqs. 10–18), from the schedule run.

Cost is counted in full-data-equivalent evaluations: one evaluation on rung m costs c_m = (N_m/N)^α
(Eq. 10; c_m = 1 on a power ladder). With e evaluations per inner step and k inner steps per visit,
one iteration costs

- PT / SPT:  Σ_{m=0}^{M} k e c_m  +  Σ_{proposed pairs (m−1, m)} (c_m + c_{m−1})
  (every pair with ``sweep``; with ``deo`` the pairs with m−1 ≡ t (mod 2) at iteration t);
- TT / STT:  2 k e Σ_{m=1}^{M} c_m  +  Σ_{m=1}^{M} c_m  +  Σ_{m=0}^{M−1} c_m  +  k e c_0
  (up and down transitions at levels 1..M, the initialising evaluations π_m(x̂_{m−1}) and
  π_{m−1}(x̌_{m−1}), and the level-0 update).

Dividing by the inner sampler's k e gives the ratios the paper quotes. The paper's closed forms
(Eqs. 15–18) are :func:`paper_cost_ratios`; per the seeds' errata its Eqs. 14 and 16 subtract β_0^α
+ β_1^α, which is what yields the quoted 1.74 (α = 3) and 4.52 (α = 1).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np


def pt_iteration_costs(costs: Sequence[float], evals_per_step: float, inner_steps: int,
                       swap: str, iterations: int, start: int = 0) -> np.ndarray:
    """Cost of each of ``iterations`` PT iterations, the first being iteration ``start``."""
    c = np.asarray(costs, dtype=float)
    sampling = inner_steps * evals_per_step * c.sum()
    pair = c[1:] + c[:-1]  # pair (m−1, m) for m = 1..M
    out = np.empty(iterations)
    for i in range(iterations):
        if swap == "sweep":
            proposed = np.ones_like(pair, dtype=bool)
        else:
            proposed = (np.arange(len(pair)) % 2) == ((start + i) % 2)
        out[i] = sampling + pair[proposed].sum()
    return out


def tt_iteration_cost(costs: Sequence[float], evals_per_step: float, inner_steps: int) -> float:
    """Cost of one tempered transition plus its level-0 update."""
    c = np.asarray(costs, dtype=float)
    per_visit = inner_steps * evals_per_step
    return float(2 * per_visit * c[1:].sum() + c[1:].sum() + c[:-1].sum() + per_visit * c[0])


def paper_cost_ratios(auxiliary: int, beta_min: float, alpha: float) -> dict[str, float]:
    """Seed 000 Eqs. 15–18 with M = ``auxiliary`` distributions beside the target."""
    m = auxiliary
    spt = (1 - beta_min ** (alpha * (1 + 1 / m))) / (1 - beta_min ** (alpha / m))
    stt = 2 * spt - (1 + beta_min ** (alpha / m))
    return {"spt": spt, "stt": stt, "pt": float(m), "tt": float(2 * (m - 1))}


def pt_predicted_cost(run: Mapping[str, Any], evals_per_step: float) -> float:
    """Cost of one PT/SPT iteration (the first, for ``deo``) from a run's options and facts
    (``rung_costs``, ``inner_steps``, ``swap``)."""
    return float(pt_iteration_costs(run["rung_costs"], evals_per_step, int(run["inner_steps"]),
                                    run["swap"], 1)[0])


def tt_predicted_cost(run: Mapping[str, Any], evals_per_step: float) -> float:
    """Cost of one TT/STT iteration from a run's options and facts (``rung_costs``,
    ``inner_steps``)."""
    return tt_iteration_cost(run["rung_costs"], evals_per_step, int(run["inner_steps"]))
