"""The inner-sampler contract of simulated tempering: one kernel for every inverse temperature.

Simulated tempering (seed 001 §2) moves on pairs (x, i) with x in *any* state space — a flat
parameter vector, or a user's own pytree such as (model index, padded parameters) for a
reversible-jump sampler — and i a rung of the ladder k_0 = 1 > k_1 > … . Its tempered targets are

    π_k(x) ∝ exp(b(x) + k U(x)),

with ``b`` the untempered factor and ``U`` the tempered one: b = log prior and U = log-likelihood
when the likelihood alone is tempered (the default), b = 0 and U = log prior + log-likelihood when
the whole posterior is. What ST needs from its inner sampler is only:

- ``make(k, params) -> Kernel`` whose ``step`` leaves π_k invariant (``k`` is a traced scalar, so
  one compiled kernel serves every rung; ``params`` are one rung's tunable parameters). Kernel
  states follow :mod:`tempering.kernels.base`: they have ``position`` (any pytree) and the cached
  ``logdensity`` of π_k;
- ``energy(state, k) -> (U(x), evaluations)``, the tempered factor at the state's position (it may
  be read off the cached density, at no cost);
- ``retemper(state, k_new, U, params) -> (state, evaluations)``, the same position with its
  cache belonging to π_{k_new} (after an accepted rung move; ``params`` are the new rung's);
- ``base(position)``, the untempered factor (cheap: no likelihood work);
- ``params`` stacked over rungs (leading axis = rung), and an optional warmup-only adaptation
  ``warmup(key, k, position, num_steps, params_i) -> (state, params_i, evaluations)``.

A reversible-jump kernel plugs in by providing these six fields for its own state; nothing in
:mod:`tempering.algorithms.st.sampler` looks inside a position. :func:`flat_family` builds them for
a :class:`~tempering.models.base.Model` and any bound inner kernel (RWM, HMC, NUTS, slice).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, NamedTuple

import jax
import jax.numpy as jnp

from tempering.kernels.base import BoundKernel, Kernel
from tempering.models.base import Model
from tempering.numerics import finite_or_neg_inf

Array = jax.Array
Tempering = Literal["likelihood", "posterior"]


class TemperedFamily(NamedTuple):
    """An inner sampler for every inverse temperature; see the module docstring.

    Attributes
    ----------
    make
        (k, params of one rung) ↦ Kernel leaving π_k ∝ exp(b + k U) invariant.
    energy
        (state, k) ↦ (U at state.position, likelihood evaluations spent).
    retemper
        (state, k_new, U, params of the new rung) ↦ (state whose cache belongs to π_{k_new},
        evaluations spent).
    base
        position ↦ b(position), the untempered log factor (no likelihood work).
    params
        Tunable inner parameters stacked over rungs.
    warmup
        ``None`` or (key, k, position, num_steps, params_i) ↦ (state, params_i, evaluations):
        adaptation of one rung's parameters on π_k, run in warmup only.
    eval_cost
        Full-data-equivalent cost of one evaluation of U (or of π_k).
    """

    make: Callable[[Array, Any], Kernel]
    energy: Callable[[Any, Array], tuple[Array, Array]]
    retemper: Callable[[Any, Array, Array, Any], tuple[Any, Array]]
    base: Callable[[Any], Array]
    params: Any
    warmup: Callable[..., tuple[Any, Any, Array]] | None = None
    eval_cost: float = 1.0


def tempered_log_density(base: Callable[[Array], Array], energy: Callable[[Array], Array],
                         k: Array) -> Callable[[Array], Array]:
    """θ ↦ b(θ) + k U(θ), with k U read as 0 at k = 0 (even where U = −∞); −∞ where not finite."""

    def log_density(theta):
        u = energy(theta)
        return finite_or_neg_inf(base(theta) + jnp.where(k == 0, 0.0, k * u))

    return log_density


def flat_family(model: Model, bound: BoundKernel, params: Any,
                tempering: Tempering = "likelihood") -> TemperedFamily:
    """The family for a model's flat θ and a bound inner kernel.

    ``energy`` reads U = (cached log π_k − b)/k off the state when k > 0 (no evaluation; float64
    keeps the cancellation error near 1e-16 |log π_k| / k) and evaluates U at k = 0 (the prior
    rung), counted. ``retemper`` rewrites the cached density of a state that caches nothing else
    (RWM, slice: free) and re-initialises one that caches a gradient (HMC, NUTS: one evaluation).
    """
    if tempering == "likelihood":
        def base(theta):
            return model.log_prior(theta)

        def energy_fn(theta):
            return model.log_lik(theta)
    elif tempering == "posterior":
        def base(theta):
            return jnp.zeros((), theta.dtype)

        def energy_fn(theta):
            return model.log_density(theta)
    else:
        raise ValueError(f"tempering must be likelihood or posterior (got {tempering!r})")

    def make(k, rung_params):
        return bound.make(tempered_log_density(base, energy_fn, k), rung_params)

    def energy(state, k):
        safe_k = jnp.where(k > 0, k, 1.0)
        u = jax.lax.cond(k > 0, lambda: (state.logdensity - base(state.position)) / safe_k,
                         lambda: energy_fn(state.position))
        return u, jnp.where(k > 0, 0.0, 1.0)

    def retemper(state, k_new, u, rung_params):
        if set(state._fields) == {"position", "logdensity"}:
            logdensity = finite_or_neg_inf(base(state.position)
                                           + jnp.where(k_new == 0, 0.0, k_new * u))
            return state._replace(logdensity=logdensity), jnp.zeros(())
        return make(k_new, rung_params).init(state.position), jnp.ones(())

    warmup = None
    if bound.warmup is not None:
        def warmup(key, k, position, num_steps, rung_params):
            return bound.warmup(key, tempered_log_density(base, energy_fn, k), position,
                                num_steps, rung_params)

    return TemperedFamily(make, energy, retemper, base, params, warmup, 1.0)
