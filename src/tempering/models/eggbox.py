"""The egg-box: a standard two-dimensional test of samplers for many modes (Feroz, Hobson &
Bridges 2009, MultiNest §7.2), with exact mode masses by symmetry and log Z by quadrature.

    x ~ Uniform([0, 10π]²),      log L(x) = (2 + cos(x₁/2) cos(x₂/2))^5,

    log Z = log (10π)⁻² ∫∫ exp((2 + cos(x₁/2) cos(x₂/2))^5) dx = 235.856

(:func:`eggbox_log_evidence`, trapezoid rule on the box: the integrand is symmetric about both
edges, so the rule converges geometrically; 235.85594 at 2001² points).

**Parametrisation.** The library's models live on ℝ^d, so θ ∈ ℝ² and x = 10π σ(θ) (σ the
logistic function, coordinate-wise). The uniform prior on the box becomes the density of θ
that the change of variables gives, p(θ) = Π_i σ(θ_i)(1 − σ(θ_i)) (the Jacobian |dx/dθ| / (10π)²
= Π σ'(θ_i)): :func:`log_prior` is that log Jacobian, so log_prior(θ) + log L(x(θ)) is the
posterior in θ and log Z is unchanged. ``constrain`` reports x. A prior transform for nested
sampling is θ = logit(u), i.e. x = 10π u.

**Modes.** L peaks (at 3^5 = 243) where cos(x₁/2) cos(x₂/2) = 1: the points (2πi, 2πj) with
i + j even, 18 of them in the box — 8 inside, 8 on its edges, 2 at its corners
((0, 0) and (10π, 10π)). Each peak owns the diamond |x₁ − 2πi| + |x₂ − 2πj| ≤ 2π (area 8π²);
the integrand is invariant under the lattice's translations and under reflection in the lines
x_k = 2πm, so every whole diamond holds the same mass, and the box's edges (lines of symmetry
through peaks) cut edge diamonds in half and corner diamonds in quarters: the 12.5 diamonds'
worth of the box give masses 0.08 (inside), 0.04 (edge) and 0.02 (corner) exactly
(:func:`eggbox_mode_masses`, :func:`eggbox_mode_of`).

The option ``exponent`` (p, default 5; the model's only option) changes log Z, then computed by
the trapezoid rule when the model is built, but neither the peaks nor the masses: L stays an
increasing function of cos(x₁/2) cos(x₂/2).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from numpy.typing import ArrayLike
from pydantic import BaseModel, ConfigDict, Field
from scipy.special import logsumexp

from tempering.models.base import Model, ModelSpec, ParamSpec

SIDE = 10.0 * np.pi  #: the box is [0, SIDE]²
LOG_Z = 235.85594  #: log Z to 5 decimals (the trapezoid rule; :func:`eggbox_log_evidence`)


def _peaks() -> np.ndarray:
    """The 18 peaks (2πi, 2πj), i + j even, 0 ≤ i, j ≤ 5, in row-major order of (i, j)."""
    return np.array([(2 * np.pi * i, 2 * np.pi * j) for i in range(6) for j in range(6)
                     if (i + j) % 2 == 0])


PEAKS = _peaks()


class EggboxOptions(BaseModel):
    """The exponent p of log L = (2 + cos(x₁/2) cos(x₂/2))^p (the standard egg-box: 5)."""

    model_config = ConfigDict(extra="forbid", coerce_numbers_to_str=True, allow_inf_nan=False)

    exponent: int = Field(5, ge=1, le=8, description="p; the peaks and masses stay, log Z moves")


def box_point(theta: ArrayLike) -> jax.Array:
    """x = 10π σ(θ), coordinate-wise (θ ∈ ℝ² to the box)."""
    return SIDE * jax.nn.sigmoid(jnp.asarray(theta))


def log_likelihood_x(x: ArrayLike, exponent: int = 5) -> jax.Array:
    """log L(x) = (2 + cos(x₁/2) cos(x₂/2))^p on the box's coordinates (last axis 2)."""
    x = jnp.asarray(x)
    return (2.0 + jnp.cos(x[..., 0] / 2) * jnp.cos(x[..., 1] / 2)) ** exponent


def log_prior(theta: ArrayLike) -> jax.Array:
    """log p(θ) = Σ_i log σ(θ_i)(1 − σ(θ_i)): the uniform prior on the box, carried to θ."""
    theta = jnp.asarray(theta)
    return jnp.sum(-jax.nn.softplus(-theta) - jax.nn.softplus(theta), axis=-1)


def eggbox_log_evidence(points: int = 2001, exponent: int = 5) -> float:
    """log Z by the trapezoid rule on ``points``² nodes of the box (235.85594 at the defaults)."""
    x = np.linspace(0.0, SIDE, points)
    weights = np.full(points, x[1] - x[0])
    weights[[0, -1]] *= 0.5
    cx = np.cos(x / 2)
    log_l = (2.0 + cx[:, None] * cx[None, :]) ** exponent
    return float(logsumexp(log_l, b=np.outer(weights, weights)) - 2 * np.log(SIDE))


def eggbox_mode_masses() -> np.ndarray:
    """The exact posterior mass of each peak's region (18,): 0.08 inside, 0.04 on an edge, 0.02
    at a corner, in the order of :data:`PEAKS`."""
    on_edge = (np.isclose(PEAKS, 0.0) | np.isclose(PEAKS, SIDE)).sum(axis=1)
    return 0.08 / 2.0**on_edge


def eggbox_mode_of(x: ArrayLike) -> jax.Array:
    """Index into :data:`PEAKS` of the diamond holding each box point x (last axis 2; use
    :func:`box_point` on θ first): a = round((x₁ + x₂)/4π), b = round((x₁ − x₂)/4π) name the
    peak (2π(a + b), 2π(a − b)). Jittable, vectorised over leading axes."""
    x = jnp.asarray(x)
    a = jnp.round((x[..., 0] + x[..., 1]) / (4 * np.pi))
    b = jnp.round((x[..., 0] - x[..., 1]) / (4 * np.pi))
    i = jnp.clip(a + b, 0, 5).astype(jnp.int32)
    j = jnp.clip(a - b, 0, 5).astype(jnp.int32)
    lookup = np.full((6, 6), -1, dtype=np.int32)
    for k, (pi, pj) in enumerate(np.rint(PEAKS / (2 * np.pi)).astype(int)):
        lookup[pi, pj] = k
    return jnp.asarray(lookup)[i, j]


def build(options: EggboxOptions) -> Model:
    """Registry entry: θ ∈ ℝ², one pseudo datum carrying log L(x(θ)); chains start at a prior
    draw (a uniform point of the box)."""

    exponent = options.exponent

    def log_lik_terms(theta, data):
        return log_likelihood_x(box_point(theta), exponent) + jnp.zeros(data["x"].shape[0])

    def init(key):
        u = jax.random.uniform(key, (2,), minval=1e-6, maxval=1 - 1e-6)
        return jnp.log(u) - jnp.log1p(-u)

    return Model(
        name="eggbox",
        data={"x": jnp.zeros((1, 1))},
        log_prior_fn=log_prior,
        log_lik_fn=lambda theta, data: jnp.sum(log_lik_terms(theta, data)),
        log_lik_terms_fn=log_lik_terms,
        alpha=1.0,
        params=(ParamSpec("x", (2,)),),
        constrain_fn=lambda theta: {"x": box_point(theta)},
        init_fn=init,
        options=options.model_dump(),
        attrs={"exact_mode_masses": eggbox_mode_masses().tolist(),
               "log_evidence": LOG_Z if exponent == 5 else eggbox_log_evidence(
                   exponent=exponent)},
    )


SPEC = ModelSpec(
    "eggbox",
    "the egg-box on [0, 10π]² (18 modes), θ = logit(x/10π): exact masses, log Z 235.856",
    EggboxOptions,
    build,
)
