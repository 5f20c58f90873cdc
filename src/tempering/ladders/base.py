"""Rung / Ladder contract (docs/architecture.md, "Contracts").

A rung is a log density on the common state space plus its relative cost: the full-data-equivalent
work of one evaluation, e.g. (N_m/N)^α for a subset of N_m of N points with cost exponent α. A
ladder is a tuple of rungs, rung 0 always the target, later rungs flatter or cheaper; that ordering
convention holds everywhere in the package.

This module holds the powered-likelihood ladder (seed 000 Eq. 1 with the prior untempered, h_m(θ) =
β_m log p(X | θ) + log p(θ)); subset, approximation, mini-batch and energy ladders build the same
``Rung`` from their own log densities.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

import jax

from tempering.models.base import Model
from tempering.numerics import finite_or_neg_inf


class Rung(NamedTuple):
    """One distribution of a ladder.

    Attributes
    ----------
    log_density
        θ ↦ unnormalised log density of this rung (−∞ where not finite).
    cost
        Full-data-equivalent cost of one evaluation of ``log_density``.
    beta
        Inverse temperature of the likelihood (1 for the target; ``None`` for non-power rungs).
    """

    log_density: Callable[[jax.Array], jax.Array]
    cost: float
    beta: float | None = None


Ladder = tuple[Rung, ...]


def power_ladder(model: Model, betas: Sequence[float]) -> Ladder:
    """Rungs h_m(θ) = β_m log p(X | θ) + log p(θ) on the full data (each costs one evaluation),
    each jitted: a program that uses a rung's density several times (a chain's start, its
    warmup, its steps) traces the model once per rung (NUTS on ``gauss_mixture``: tracing
    0.36 → 0.29 s, 2026-11-29; :func:`~tempering.ladders.tempering.traced_once_per_shape`)."""
    if not betas or float(betas[0]) != 1.0:
        raise ValueError("a ladder starts at the target: betas[0] must be 1")

    def rung(beta: float) -> Rung:
        def log_density(theta):
            if beta == 0.0:  # the prior rung: 0 · log p(X | θ) is 0 even where p(X | θ) = 0
                return model.log_prior(theta)
            return finite_or_neg_inf(model.log_prior(theta) + beta * model.log_lik(theta))

        return Rung(jax.jit(log_density), 1.0, float(beta))

    return tuple(rung(float(b)) for b in betas)


def target_rung(model: Model) -> Rung:
    """The target posterior as a one-rung ladder's rung 0."""
    return power_ladder(model, [1.0])[0]
