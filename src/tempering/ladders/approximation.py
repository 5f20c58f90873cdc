"""Cheap approximations π* of a posterior as rungs, and ladders of them (seed 002 §§3–4, §5.2).

A rung built from an approximation has the log density

    log π*(θ) = log p(θ) + log p̂(y | θ),

with log p̂ the SOD, Nyström–Cholesky or eigen-exact approximation of the GP likelihood
(:func:`approximate_log_lik`, Eqs. 31 and 39–42) on a subset of m of the n
points (for eigen-exact, m eigenpairs), and the relative cost of one evaluation in full-Cholesky
units (:func:`tempering.gp.approx.approx_cost`: (m/n)³ for SOD, (m/n)² for Nyström, 1 for
eigen-exact). SOD needs no GP structure, so it is also offered for any model with a data axis; its
cost is then (m/n)^α with the model's own cost exponent (equal to approx_cost for GP models,
α = 3).

The tempered-transitions ladder of §4 (π_0 = π, π_1, …, π_M with sizes m_1 > m_2 > … > m_M) uses
nested subsets S_M ⊂ … ⊂ S_1, all drawn once from ``subset_seed``: S_1 = draw_subset(seed, n, m_1)
(the subset a discretizing chain with m = m_1 uses) and S_{i+1} a uniform m_{i+1}-subset of S_i.
They are fixed for the whole run (``redraw=False``); the rungs are not tempered, so every β is 1.

Sizes are checked once, where a sampler's options are resolved against the model
(:func:`check_approximation`, called by the options' ``resolve``); the builders here take them as
valid.
"""

from __future__ import annotations

from collections.abc import Sequence

import jax
import numpy as np

from tempering.errors import UserInputError
from tempering.gp.approx import Approximation, approx_cost, draw_subset, lowrank_log_lik
from tempering.ladders.base import Rung
from tempering.ladders.tempering import TemperingLadder
from tempering.models.base import Model
from tempering.numerics import array_module, finite_or_neg_inf

GP_ONLY = ("nystrom", "eigen")


def check_approximation(model: Model, approx: Approximation, m: int, option: str = "m") -> None:
    """Raise a one-line :class:`UserInputError` if ``approx`` with size ``m`` cannot be used.

    SOD and Nyström need 1 ≤ m < n (m = n would be the exact likelihood at a higher price);
    eigen-exact allows m = n (all eigenpairs: the exact likelihood, a reference point).
    """
    n = model.n_data
    if m < 1:
        raise UserInputError(f"sampler.{option}: the {approx} size must be at least 1 (got {m})")
    if approx in GP_ONLY and model.gp is None:
        raise UserInputError(f"sampler.approx: {approx} needs a GP model (gp_regression, "
                             f"gp_const); model {model.name} has no GP structure")
    limit_ok = m <= n if approx == "eigen" else m < n
    if not limit_ok:
        bound = "at most" if approx == "eigen" else "less than"
        raise UserInputError(f"sampler.{option}: the {approx} size must be {bound} the number "
                             f"of data points n = {n} (got {m})")


def approximate_log_lik(model: Model, kind: Approximation, subset: np.ndarray | None = None,
                        jitter: float = 1e-8):
    """θ ↦ the ``kind`` approximation of log p(y | θ), with ``subset`` the m chosen indices.

    ``exact`` and ``sod`` are the model's own likelihood (with its fast gradient) on all data or
    on the subset — SOD needs no GP structure, so it serves any model with a data axis;
    ``nystrom`` and ``eigen`` are :func:`tempering.gp.approx.lowrank_log_lik` on the model's
    :class:`~tempering.gp.structure.GPParts`. Non-finite values become −∞.
    """
    if kind == "exact":
        return model.log_lik
    if subset is None:
        raise ValueError(f"approximation {kind!r} needs a subset")
    if kind == "sod":
        xp = array_module(model.data)  # data as numbers: taken on the host, no program
        view = jax.tree.map(lambda a: xp.take(xp.asarray(a), np.asarray(subset), axis=0),
                            model.data)
        view = view if xp is not np else jax.device_put(view)
        return lambda theta: model.log_lik(theta, view)
    if model.gp is None:
        raise TypeError(f"model {model.name} is not a GP model: no {kind} approximation")
    return lowrank_log_lik(model.gp, model.data["x"], model.data["y"], kind, subset, jitter)


def approximation_cost(model: Model, approx: Approximation, m: int) -> float:
    """Full-evaluation-equivalent cost of one π* evaluation: approx_cost for a GP model, and
    (m/n)^α for SOD on any other model."""
    if model.gp is None and approx == "sod":
        return (m / model.n_data) ** model.alpha
    return approx_cost(approx, m, model.n_data)


def approximate_rung(model: Model, approx: Approximation, subset: np.ndarray,
                     jitter: float) -> Rung:
    """The rung log p(θ) + log p̂(y | θ) for the approximation on ``subset`` (β = ``None``: an
    approximation, not a temperature)."""
    log_lik = approximate_log_lik(model, approx, subset, jitter)

    def log_density(theta):
        return finite_or_neg_inf(model.log_prior(theta) + log_lik(theta))

    return Rung(log_density, approximation_cost(model, approx, len(subset)), None)


def nested_subsets(seed: int, n: int, sizes: Sequence[int]) -> tuple[np.ndarray, ...]:
    """S_1 = draw_subset(seed, n, m_1), S_{i+1} = m_{i+1} entries of S_i drawn uniformly (seed
    ``seed + i``), each sorted: S_M ⊂ … ⊂ S_1."""
    subsets = [draw_subset(seed, n, sizes[0])]
    for i, size in enumerate(sizes[1:], start=1):
        previous = subsets[-1]
        subsets.append(np.sort(previous[draw_subset(seed + i, len(previous), size)]))
    return tuple(subsets)


def approximation_ladder(model: Model, approx: Approximation, sizes: Sequence[int], *,
                         subset_seed: int = 0,
                         jitter: float = 1e-8) -> TemperingLadder:
    """π_0 = π and π_i the ``approx`` approximation on the nested subset of size m_i.

    ``sizes`` must be strictly decreasing and each valid for ``approx`` (see
    :func:`check_approximation`). Returns a :class:`TemperingLadder` of kind ``"approx"``: fixed
    rungs (no view, never redrawn), β = 1 on every rung, sizes (n, m_1, …, m_M) and costs
    (1, cost(m_1), …).
    """
    subsets = nested_subsets(subset_seed, model.n_data, sizes)
    rungs = (Rung(model.log_density, 1.0, 1.0),
             *(approximate_rung(model, approx, s, jitter) for s in subsets))
    return TemperingLadder("approx", (1.0,) * len(rungs), (model.n_data, *map(int, sizes)),
                           tuple(float(r.cost) for r in rungs), False, lambda key: (),
                           lambda view: rungs)
