"""The reference a tempering path starts from: the prior, or a Gaussian fitted to the target
(variational PT: Surjanovic, Syed, Bouchard-Côté & Campbell 2022, "Parallel tempering with a
variational reference", NeurIPS; Pigeons.jl's ``GaussianReference``).

The path between a normalised reference q and the target γ(θ) = p(θ) p(X | θ) is

    h_β(θ) = (1 − β) log q(θ) + β log γ(θ),       β ∈ [0, 1];

with q the prior it is the powered likelihood, log p(θ) + β log p(X | θ). A prior much wider
than the posterior makes the path long — the communication barrier Λ grows with how far the
posterior concentrates — whereas a q close to the posterior makes it short. Here q is a Gaussian
N(μ, Σ) with Σ diagonal (the default) or full, moment-matched to the target rung's draws at the
end of each warmup round from ``FIRST_FIT_ROUND`` on (as Pigeons.jl does), and frozen in sampling.
Until its first fit the reference is the prior.

Three references (``reference`` of PT):

- ``prior``: one leg, target → prior;
- ``variational``: one leg, target → q;
- ``stabilized``: two legs joined at the target, q → … → target → … → prior, one line of rungs
  with the target in it (the paper's stabilized variational PT: the prior leg keeps what the
  prior path gives, so it can do no worse than it by more than the added rungs' cost).

Schedule coordinate. A line of rungs is placed by one decreasing coordinate s per rung: s = β on
the prior leg (and on a one-leg path), s = 2 − β on the stabilized path's variational leg, so the
line reads s = 2 (q) → 1 (the target) → 0 (the prior). Each leg is placed at equal barrier on its
own (:func:`equal_barrier_legs`), the target staying at s = 1; a tuned kernel's parameters are
carried along s. Written by hand: BlackJAX has no variational reference, and Pigeons.jl is Julia.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from tempering.ladders.adaptive import equal_barrier_betas
from tempering.models.base import Model
from tempering.numerics import array_module, finite_or_neg_inf

ReferenceKind = Literal["prior", "variational", "stabilized"]

#: The first warmup round (0-based; round r has 2^r scans) whose target draws fit q: rounds of 32
#: scans or more (Pigeons.jl's ``first_tuning_round = 6`` counts rounds from 1 with 2^r scans).
FIRST_FIT_ROUND = 5
#: Smallest standard deviation (and Cholesky diagonal) of a fitted q, relative jitter for Σ.
MIN_SCALE = 1e-8


class GaussianReference(NamedTuple):
    """q = N(mean, Σ): Σ = diag(scale²) when ``scale`` is (d,), Σ = scale scaleᵀ when it is a
    (d, d) lower Cholesky factor; ``active`` is False until the first fit (the reference is the
    prior until then)."""

    mean: jax.Array
    scale: jax.Array
    active: jax.Array


def initial_reference(dim: int, full: bool) -> GaussianReference:
    """The unfitted reference: standard normal, inactive."""
    scale = jnp.eye(dim) if full else jnp.ones(dim)
    return GaussianReference(jnp.zeros(dim), scale, jnp.zeros((), bool))


def gaussian_log_density(reference: GaussianReference, theta: jax.Array) -> jax.Array:
    """log N(θ; μ, Σ), normalised: −½‖L⁻¹(θ − μ)‖² − Σ_i log L_ii − (d/2) log 2π."""
    centred = theta - reference.mean
    if reference.scale.ndim == 1:
        white = centred / reference.scale
        log_det = jnp.sum(jnp.log(reference.scale))
    else:
        white = jax.scipy.linalg.solve_triangular(reference.scale, centred, lower=True)
        log_det = jnp.sum(jnp.log(jnp.diag(reference.scale)))
    return -0.5 * jnp.sum(white**2) - log_det - 0.5 * theta.shape[-1] * jnp.log(2.0 * jnp.pi)


def fitted_reference(total: jax.Array, outer: jax.Array, count: jax.Array,
                     full: bool) -> GaussianReference:
    """Moment matching from a round's target draws: ``total`` = Σ θ, ``outer`` = Σ θ² (diagonal)
    or Σ θθᵀ (full), over ``count`` draws."""
    n = jnp.maximum(count, 1.0)
    mean = total / n
    if not full:
        variance = jnp.maximum(outer / n - mean**2, 0.0)
        scale = jnp.maximum(jnp.sqrt(variance), MIN_SCALE)
        return GaussianReference(mean, scale, jnp.ones((), bool))
    covariance = outer / n - jnp.outer(mean, mean)
    covariance = 0.5 * (covariance + covariance.T)
    jitter = MIN_SCALE * (1.0 + jnp.trace(covariance) / mean.shape[0])
    chol = jnp.linalg.cholesky(covariance + jitter * jnp.eye(mean.shape[0]))
    return GaussianReference(mean, chol, jnp.ones((), bool))


def second_moment(theta: jax.Array, full: bool) -> jax.Array:
    """θ² (diagonal) or θθᵀ (full): one draw's contribution to ``outer``."""
    return jnp.outer(theta, theta) if full else theta**2


def path_beta(s: ArrayLike) -> jax.Array:
    """β of a rung at schedule coordinate s: s on the prior leg, 2 − s on the variational one
    (NumPy for a schedule given as numbers, as a builder has it: no compiled program)."""
    xp = array_module(s)
    coordinate = xp.asarray(s)
    return xp.where(coordinate > 1.0, 2.0 - coordinate, coordinate)


def uses_q(kind: ReferenceKind, s: jax.Array) -> jax.Array | bool:
    """Whether the rung at s starts from q (else from the prior): every rung with
    ``variational``, the rungs above the target (s > 1) with ``stabilized``."""
    if kind == "prior":
        return False
    return True if kind == "variational" else s > 1.0


def path_density(model: Model, s: jax.Array, kind: ReferenceKind,
                 reference: GaussianReference | None,
                 log_q: Callable[[GaussianReference, jax.Array], jax.Array]
                 = gaussian_log_density,
                 log_lik: Callable[[jax.Array], jax.Array] | None = None
                 ) -> Callable[[jax.Array], jax.Array]:
    """θ ↦ h(θ) at schedule coordinate s (traced): log p(θ) + β log p(X | θ) from the prior, or
    (1 − β) log q(θ) + β log γ(θ) from q (log q at β = 0, even where γ(θ) = 0); −∞ where not
    finite. ``log_q`` is replaceable only to show that a wrongly normalised q is caught;
    ``log_lik`` is the full data's log p(X | θ) (default ``model.log_lik``; a ladder passes
    :func:`~tempering.models.blocked.blocked_log_lik`'s, made once)."""
    beta = path_beta(s)
    log_lik_of = model.log_lik if log_lik is None else log_lik

    def prior_path(log_prior, log_lik):
        tempered = jnp.where(beta > 0, beta * jnp.where(beta > 0, log_lik, 0.0), 0.0)
        return finite_or_neg_inf(log_prior + tempered)

    if kind == "prior" or reference is None:
        return lambda theta: prior_path(model.log_prior(theta), log_lik_of(theta))

    def log_density(theta):
        log_prior, log_lik = model.log_prior(theta), log_lik_of(theta)
        log_ref = log_q(reference, theta)
        safe = jnp.where(beta > 0, log_prior + log_lik, 0.0)
        from_q = jnp.where(beta > 0, (1.0 - beta) * log_ref + beta * safe, log_ref)
        on_q = jnp.logical_and(reference.active, uses_q(kind, s))
        return jnp.where(on_q, finite_or_neg_inf(from_q), prior_path(log_prior, log_lik))

    return log_density


def target_index(schedule: np.ndarray) -> int:
    """The target rung's place in a line of schedule coordinates (the one at s = 1)."""
    return int(np.argmin(np.abs(np.asarray(schedule, dtype=float) - 1.0)))


def equal_barrier_legs(schedule: Any, rejection: Any, target: int,
                       window: Any = None) -> jax.Array:
    """Each leg of a line placed at equal estimated barrier on its own
    (:func:`~tempering.ladders.adaptive.equal_barrier_betas`), the ends and the target (s = 1,
    at index ``target``, static) kept: a one-leg line (``target`` = 0) as a whole. With a rung
    ``window`` (lo, hi) only its slots are placed; the others keep their leg's end
    (:mod:`tempering.algorithms.pt.capacity`)."""
    xp = array_module(schedule, rejection, window)
    if target == 0:
        return equal_barrier_betas(schedule, rejection,
                                   active=None if window is None else (window[0], window[1]))
    upper = equal_barrier_betas(schedule[:target + 1], rejection[:target],
                                active=None if window is None else (window[0], target))
    lower = equal_barrier_betas(schedule[target:], rejection[target:],
                                active=None if window is None else (0, window[1] - target))
    return xp.concatenate([upper, lower[1:]])


def line_schedule(kind: ReferenceKind, leg: np.ndarray, upper: np.ndarray | None = None
                  ) -> np.ndarray:
    """The schedule coordinates of a line from per-leg β's (each decreasing from 1): one leg as
    is; ``stabilized`` joins the variational leg ``upper`` (default: ``leg``) as s = 2 − β,
    reversed, and the prior leg, sharing the target."""
    leg = np.asarray(leg, dtype=float)
    if kind != "stabilized":
        return leg
    upper = leg if upper is None else np.asarray(upper, dtype=float)
    return np.concatenate([2.0 - upper[::-1], leg[1:]])


def leg_slices(schedule: np.ndarray) -> dict[str, slice]:
    """Rung slices of each leg of a line (by its coordinates): ``{"prior": ...}`` for one leg
    (the reference named by the caller), else the variational leg (q … target) and the prior
    leg (target … prior)."""
    target = target_index(schedule)
    if target == 0:
        return {"": slice(0, len(schedule))}
    return {"variational": slice(0, target + 1), "prior": slice(target, len(schedule))}
