"""Pigeons.jl's scaled-precision normal path (``ScaledPrecisionNormalPath``; Syed et al. 2021,
JRSS-B, §I.4.1): a tempering path of centred normals whose communication barrier is known in
closed form — the target for checking a PT run's Λ̂, its schedule and its evidence.

With prior N(0, I_d/p₀) and the unnormalised Gaussian likelihood L(θ) = exp(−½ (p₁ − p₀) |θ|²),
the power path π_β ∝ p(θ) L(θ)^β is N(0, I_d / p(β)) with p(β) = (1 − β) p₀ + β p₁: Pigeons's
path exactly (its defaults p₀ = 1, p₁ = 10). Then

    log Z = log ∫ p(θ) L(θ) dθ = (d/2) log(p₀/p₁)              (:func:`scaled_normal_log_evidence`)

and, with V = −log L and X, X' independent draws from π_β, the local barrier λ(β) =
½ E|V(X) − V(X')| integrates to the cumulative barrier of Predescu et al. (2003) that Pigeons.jl
uses in its tests,

    Λ(β) = ∫_0^β λ = 2^{2−d} / B(d/2, d/2) · ½ log(p(β)/p₀)     (:func:`scaled_normal_barrier`)

(written here from that formula: (1/π) log(p(β)/p₀) at d = 1, ½ log(p(β)/p₀) at d = 2, as
:mod:`tempering.models.barrier` finds for one component); :func:`scaled_normal_local_barrier` is
its derivative. Λ(0, 1) = 1.15 at d = 2, 2.83 at d = 10,
4.06 at d = 20, 6.46 at d = 50 (p₁/p₀ = 10). Posterior: E|θ|² = d/p₁.

The model is unimodal: it measures what a sampler pays for the path (rungs, evidence error), not
mode hopping. Defaults: d = 50, p₀ = 1, p₁ = 10 (Λ = 6.46).
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from numpy.typing import ArrayLike
from pydantic import BaseModel, ConfigDict, Field, PositiveFloat, PositiveInt, model_validator
from scipy.special import betaln

from tempering.models.base import Model, ModelSpec, ParamSpec
from tempering.models.options import options_of


class ScaledNormalOptions(BaseModel):
    """Dimension and the precisions of the reference (prior) and of the target."""

    model_config = ConfigDict(extra="forbid", coerce_numbers_to_str=True, allow_inf_nan=False)

    dim: PositiveInt = 50
    precision0: PositiveFloat = Field(1.0, description="prior precision p₀")
    precision1: PositiveFloat = Field(10.0, description="target precision p₁ > p₀")

    @model_validator(mode="after")
    def _target_tighter(self) -> ScaledNormalOptions:
        if self.precision1 <= self.precision0:
            raise ValueError(f"precision1: must exceed precision0 ({self.precision0}), got "
                             f"{self.precision1}")
        return self


def _options(source: ScaledNormalOptions | Model | dict[str, Any]) -> ScaledNormalOptions:
    return options_of(ScaledNormalOptions, source)


def path_precision(source: Any, beta: ArrayLike) -> np.ndarray:
    """p(β) = (1 − β) p₀ + β p₁."""
    o = _options(source)
    beta = np.asarray(beta, dtype=float)
    return (1.0 - beta) * o.precision0 + beta * o.precision1


def _barrier_constant(dim: int) -> float:
    """2^{2−d} / B(d/2, d/2), in logs for large d."""
    return float(np.exp((2 - dim) * np.log(2.0) - betaln(dim / 2, dim / 2)))


def scaled_normal_barrier(source: Any, beta: ArrayLike = 1.0) -> np.ndarray:
    """Λ(β) = ∫_0^β λ(b) db in closed form (module docstring); Λ(1) is the global barrier."""
    o = _options(source)
    return _barrier_constant(o.dim) * 0.5 * np.log(path_precision(o, beta) / o.precision0)


def scaled_normal_local_barrier(source: Any, beta: ArrayLike) -> np.ndarray:
    """λ(β) = dΛ/dβ = 2^{2−d} / B(d/2, d/2) · ½ (p₁ − p₀) / p(β)."""
    o = _options(source)
    return (_barrier_constant(o.dim) * 0.5 * (o.precision1 - o.precision0)
            / path_precision(o, beta))


def scaled_normal_log_evidence(source: Any) -> float:
    """log Z = (d/2) log(p₀/p₁)."""
    o = _options(source)
    return float(0.5 * o.dim * np.log(o.precision0 / o.precision1))


def build(options: ScaledNormalOptions) -> Model:
    """Registry entry: θ ∈ ℝ^d, one pseudo datum carrying −½ (p₁ − p₀)|θ|²; a normalised
    N(0, I/p₀) prior; chains start at a prior draw."""
    p0, gap, dim = options.precision0, options.precision1 - options.precision0, options.dim
    prior_const = 0.5 * dim * np.log(p0 / (2 * np.pi))

    def log_lik_terms(theta, data):
        return -0.5 * gap * jnp.sum(theta**2) + jnp.zeros(data["x"].shape[0])

    return Model(
        name="scaled_normal",
        data={"x": jnp.zeros((1, 1))},
        log_prior_fn=lambda theta: -0.5 * p0 * jnp.sum(theta**2) + prior_const,
        log_lik_fn=lambda theta, data: jnp.sum(log_lik_terms(theta, data)),
        log_lik_terms_fn=log_lik_terms,
        alpha=1.0,
        params=(ParamSpec("theta", (dim,)),),
        constrain_fn=lambda theta: {"theta": theta},
        init_fn=lambda key: jax.random.normal(key, (dim,)) / np.sqrt(p0),
        options=options.model_dump(),
        attrs={"log_evidence": scaled_normal_log_evidence(options),
               "communication_barrier": float(scaled_normal_barrier(options, 1.0)),
               "mean_sq_radius": dim / options.precision1},
    )


SPEC = ModelSpec(
    "scaled_normal",
    "Pigeons.jl's scaled-precision normal path: closed-form Λ(β) and log Z",
    ScaledNormalOptions,
    build,
)
