"""A spike-and-slab likelihood with a phase transition: a narrow and a broad Gaussian with one
centre, under a Gaussian prior, whose evidence and mode masses are known in closed form and whose
tempered path π_β ∝ p(θ) L(θ)^β jumps from the slab to the spike within a narrow range of β.

    θ ~ N(0, s² I_d),      L(θ) = w N(θ; 0, u² I_d) + (1 − w) N(θ; 0, v² I_d),      u < v,

θ ∈ ℝ^d unconstrained, one pseudo datum (n_data = 1, α = 1), built by
:func:`~tempering.models.gaussian_mixture_likelihood.mixture_likelihood_model`. The posterior is
exactly w'_s N(0, a_s I) + w'_l N(0, a_l I) with a_k = 1/(1/s² + 1/σ_k²) and
w'_k ∝ w_k N(0; 0, (s² + σ_k²) I), and

    log Z = log [w N(0; 0, (s² + u²) I_d) + (1 − w) N(0; 0, (s² + v²) I_d)]

(:func:`spike_slab_log_evidence`). The two "modes" are concentric shells, the spike at radius
≈ u√d and the slab at ≈ v√d: a draw is in the spike when its spike responsibility wins, which is
|θ|² < r*² (:func:`spike_radius2`, :func:`spike_slab_mode_of`), and the exact masses of these two
regions are mixtures of χ²_d distribution functions (:func:`spike_slab_mode_masses`; they differ
from w' by the overlap of the shells, 2·10⁻⁴ at the defaults).

The phase transition: the tempered log mass of the spike relative to the slab is about
β log(w/(1 − w)) − (1 − β) d log(v/u), so the spike's share of π_β climbs from nearly 0 to its
posterior value over a range of β of width ≈ 1/(d log(v/u)) just below 1. Annealing from the
prior (tempered SMC) therefore reaches β ≈ 1 with its particles in the slab and must find the
spike by local moves; nested sampling compresses by likelihood level and reaches the spike only
after the prior volume has shrunk by about (u/v)^d, so a stopping rule that looks at the live
points' best likelihood can stop before it. Between the shells the barrier is entropic, not a
dip in the likelihood: a draw of the posterior's slab component lies in the spike region with
probability F_{χ²_d}(r*²/a_l), so local moves do cross, slowly. :func:`tempered_spike_mass`
and :func:`tempered_log_z` compute the share and log Z(β) by one-dimensional quadrature over the
radius (the prior makes |θ|²/s² a χ²_d variable), an independent check of the closed forms at
β = 1.

Defaults: d = 20, s = 1, u = 0.1, v = 0.3, w = 0.5: log Z = −18.7885, posterior weights
w' = (0.6818, 0.3182) and region masses (0.6820, 0.3180) (r*² = 0.4944); the spike's share of
π_β is 10⁻⁴ at β = 0.5, 0.031 at 0.8, 0.205 at 0.9 and half its final value at β = 0.933; a
slab-component draw is in the spike region with probability 1.1·10⁻³, a spike-component draw
outside it with 2.3·10⁻⁴.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from numpy.typing import ArrayLike
from pydantic import BaseModel, ConfigDict, Field, PositiveFloat, PositiveInt, model_validator

from tempering.models.base import Model, ModelSpec
from tempering.models.gaussian_mixture_likelihood import mixture_likelihood_model
from tempering.models.options import options_of


class SpikeSlabOptions(BaseModel):
    """Dimension, prior sd s, spike sd u, slab sd v (u < v) and spike weight w."""

    model_config = ConfigDict(extra="forbid", coerce_numbers_to_str=True, allow_inf_nan=False)

    dim: PositiveInt = 20
    prior_sd: PositiveFloat = Field(1.0, description="prior sd s")
    spike_sd: PositiveFloat = Field(0.1, description="spike sd u")
    slab_sd: PositiveFloat = Field(0.3, description="slab sd v > u")
    spike_weight: float = Field(0.5, gt=0.0, lt=1.0, description="w, the spike's weight in L")

    @model_validator(mode="after")
    def _spike_narrower(self) -> SpikeSlabOptions:
        if self.spike_sd >= self.slab_sd:
            raise ValueError(f"spike_sd: must be below slab_sd ({self.slab_sd}), got "
                             f"{self.spike_sd}")
        return self


def _options(source: SpikeSlabOptions | Model | dict[str, Any]) -> SpikeSlabOptions:
    return options_of(SpikeSlabOptions, source)


def _log_terms(o: SpikeSlabOptions) -> np.ndarray:
    """log w_k N(0; 0, (s² + σ_k²) I_d) for (spike, slab)."""
    sds = np.array([o.spike_sd, o.slab_sd])
    t = o.prior_sd**2 + sds**2
    return np.log([o.spike_weight, 1.0 - o.spike_weight]) - 0.5 * o.dim * np.log(2 * np.pi * t)


def spike_slab_log_evidence(source: Any) -> float:
    """log Z, exactly (module docstring); ``source``: options (validated or a dict) or the
    model."""
    from scipy import special  # SciPy only where an exact answer is asked for

    return float(special.logsumexp(_log_terms(_options(source))))


def posterior_weights(source: Any) -> tuple[np.ndarray, np.ndarray]:
    """(w' (2,), a (2,)): the exact posterior's component weights and variances, spike first."""
    from scipy import special

    o = _options(source)
    log_terms = _log_terms(o)
    sds = np.array([o.spike_sd, o.slab_sd])
    return np.exp(log_terms - special.logsumexp(log_terms)), 1.0 / (1.0 / o.prior_sd**2
                                                                   + 1.0 / sds**2)


def spike_radius2(source: Any) -> float:
    """r*²: the spike's responsibility exceeds the slab's exactly where |θ|² < r*²."""
    o = _options(source)
    w, a = posterior_weights(o)
    gap = np.log(w[0] / w[1]) + 0.5 * o.dim * np.log(a[1] / a[0])
    return float(max(gap, 0.0) / (0.5 * (1.0 / a[0] - 1.0 / a[1])))


def spike_slab_mode_masses(source: Any) -> np.ndarray:
    """Exact posterior masses of the regions {|θ|² < r*²} (spike) and its complement (slab):
    Σ_k w'_k F_{χ²_d}(r*²/a_k) and one minus it."""
    from scipy import stats

    o = _options(source)
    w, a = posterior_weights(o)
    r2 = spike_radius2(o)
    spike = float(np.sum(w * stats.chi2.cdf(r2 / a, o.dim)))
    return np.array([spike, 1.0 - spike])


def spike_slab_mode_of(theta: ArrayLike, source: Any) -> jax.Array:
    """0 (spike) or 1 (slab) for each θ (last axis d); jittable, vectorised over leading axes."""
    r2 = spike_radius2(source)
    return (jnp.sum(jnp.asarray(theta) ** 2, axis=-1) >= r2).astype(jnp.int32)


def _radial_log_terms(o: SpikeSlabOptions, beta: float, r2: np.ndarray) -> np.ndarray:
    """log of the prior's χ² density of q = |θ|²/s² times L(θ)^β, on a grid of q."""
    from scipy import stats

    log_l = np.logaddexp(
        np.log(o.spike_weight) - 0.5 * o.dim * np.log(2 * np.pi * o.spike_sd**2)
        - 0.5 * r2 / o.spike_sd**2,
        np.log1p(-o.spike_weight) - 0.5 * o.dim * np.log(2 * np.pi * o.slab_sd**2)
        - 0.5 * r2 / o.slab_sd**2)
    return stats.chi2.logpdf(r2 / o.prior_sd**2, o.dim) + beta * log_l


def _radial_integral(o: SpikeSlabOptions, beta: float, upper: float) -> float:
    """log ∫_0^upper χ²_d(q) L(s√q)^β dq by adaptive quadrature, split at the shells."""
    from scipy import integrate

    scale = np.array([o.spike_sd, o.slab_sd])
    peaks = sorted({float(x) for x in (scale**2 * o.dim / o.prior_sd**2) if x < upper})
    knots = [0.0, *peaks, upper]
    shift = max(float(np.max(_radial_log_terms(o, beta, np.array(peaks or [upper]) *
                                                o.prior_sd**2))), 0.0)
    total = 0.0
    for lo, hi in zip(knots[:-1], knots[1:], strict=True):
        if hi > lo:
            total += integrate.quad(lambda q: float(np.exp(
                _radial_log_terms(o, beta, np.array([q * o.prior_sd**2]))[0] - shift)),
                lo, hi, limit=200, epsabs=0.0, epsrel=1e-11)[0]
    return float(np.log(total) + shift)


def tempered_log_z(source: Any, beta: float) -> float:
    """log Z(β) = log ∫ p(θ) L(θ)^β dθ by quadrature over q = |θ|²/s² ~ χ²_d."""
    from scipy import stats

    o = _options(source)
    return _radial_integral(o, beta, upper=float(stats.chi2.ppf(1 - 1e-15, o.dim)))


def tempered_spike_mass(source: Any, beta: float) -> float:
    """The share of π_β ∝ p(θ) L(θ)^β in the spike region {|θ|² < r*²}, by quadrature."""
    o = _options(source)
    r2 = spike_radius2(o)
    if r2 == 0.0:
        return 0.0
    return float(np.exp(_radial_integral(o, beta, r2 / o.prior_sd**2)
                        - tempered_log_z(o, beta)))


def build(options: SpikeSlabOptions) -> Model:
    """Registry entry: the two-component likelihood (spike first) on one pseudo datum; the
    exact mode masses, log Z and r*² go in the attrs."""
    zeros = np.zeros((2, options.dim))
    return mixture_likelihood_model(
        "spike_slab", zeros, np.array([options.spike_weight, 1.0 - options.spike_weight]),
        np.array([options.spike_sd, options.slab_sd]), options.prior_sd, options.model_dump(),
        {"exact_mode_masses": spike_slab_mode_masses(options).tolist(),
         "log_evidence": spike_slab_log_evidence(options),
         "spike_radius2": spike_radius2(options)})


SPEC = ModelSpec(
    "spike_slab",
    "spike-and-slab likelihood with a phase transition: exact log Z and mode masses",
    SpikeSlabOptions,
    build,
)
