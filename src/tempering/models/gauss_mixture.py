"""A Gaussian-mixture "likelihood" in θ under a broad Gaussian prior, in any dimension: K modes
whose posterior masses and evidence are known exactly.

    θ ~ N(0, s² I_d),      L(θ) = Σ_{k=1}^{K} w_k N(θ; μ_k, σ_k² I_d),      Σ_k w_k = 1,

θ ∈ ℝ^d unconstrained (the ``weights`` option is normalised). There are no data: one pseudo
datum carries the single term log L(θ) (n_data = 1, α = 1). A product of Gaussians in θ is a
Gaussian, so the posterior is exactly the mixture

    p(θ | X) = Σ_k w'_k N(θ; c_k, v_k I_d),    v_k = 1/(1/s² + 1/σ_k²),    c_k = v_k μ_k/σ_k²,
    w'_k ∝ w_k N(μ_k; 0, (s² + σ_k²) I_d)

(:func:`exact_mode_masses`, :func:`posterior_components`) and the evidence is

    log Z = log ∫ p(θ) L(θ) dθ = log Σ_k w_k N(μ_k; 0, (s² + σ_k²) I_d)

(:func:`exact_log_evidence`). :func:`mode_of` assigns draws to the posterior component of
highest responsibility, and :func:`mode_mass_table` compares each chain's share of draws per mode
with w' (the run summary has no hook for a model's own lines, so this is a helper to call).

Layout: mode k sits at ``separation`` · (−1)^k e_{⌊k/2⌋} — the modes pair up as ± on the first
⌈K/2⌉ coordinates, so d ≥ ⌈K/2⌉ (the default K = 4 fits d = 2). Neighbours on different axes
are √2 · ``separation`` apart, those on one axis 2 · ``separation``. ``widths``: ``equal``
(σ_k = 1) or ``unequal`` (σ_k evenly spaced from 0.5 to 2: 0.5, 1, 1.5, 2 for K = 4).

Defaults: d = 10, s = 10, w = (0.1, 0.2, 0.3, 0.4), ``separation`` = 6, equal widths: the
nearest modes are 8.49 component sds apart, a log-density valley of 9 nats between them on the
line of centres, and a NUTS chain stays in the mode it first reaches (one switch in 4 × 2000
draws; at ``separation`` = 5, 7.07 sds, its chains still cross now and then). Every centre is
at the same distance from 0, so the prior weighs the modes alike and w' = w exactly;
log Z = log N(μ_k; 0, 101 I_10) = −32.4432. With ``widths = "unequal"``
w' ≈ (0.1110, 0.2142, 0.3028, 0.3720) and log Z ≈ −32.5118; the wide modes are the easy ones
to cross between, and they overlap their neighbours a little (:func:`mode_of`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import jax
import jax.numpy as jnp
import numpy as np
from numpy.typing import ArrayLike
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PositiveFloat,
    PositiveInt,
    model_validator,
)
from scipy.special import logsumexp

from tempering.models.base import Model, ModelSpec
from tempering.models.gaussian_mixture_likelihood import mixture_likelihood_model

WIDTH_RANGE = (0.5, 2.0)  #: σ_k of ``unequal`` widths run evenly from the first to the second


class GaussMixtureOptions(BaseModel):
    """Dimension, prior sd, mode weights (one per mode; normalised), separation and widths."""

    model_config = ConfigDict(extra="forbid", coerce_numbers_to_str=True, allow_inf_nan=False)

    dim: PositiveInt = 10
    prior_sd: PositiveFloat = Field(10.0, description="prior sd s")
    weights: list[PositiveFloat] = Field([0.1, 0.2, 0.3, 0.4], min_length=1)
    separation: PositiveFloat = Field(6.0, description="mode k at ±separation on axis k//2")
    widths: Literal["equal", "unequal"] = "equal"

    @model_validator(mode="after")
    def _room_for_the_modes(self) -> GaussMixtureOptions:
        need = (len(self.weights) + 1) // 2
        if self.dim < need:
            raise ValueError(f"dim: {len(self.weights)} modes need dim ≥ {need} (two per axis), "
                             f"got {self.dim}")
        return self


@dataclass(frozen=True, eq=False)
class MixtureParams:
    """The prior sd s, the mixture's means μ (K, d), normalised weights w (K,) and sds σ (K,)."""

    prior_sd: float
    means: np.ndarray
    weights: np.ndarray
    sds: np.ndarray

    @property
    def dim(self) -> int:
        return int(self.means.shape[1])


def _layout(k: int, dim: int, separation: float) -> np.ndarray:
    """Means (k, dim): mode j at separation · (−1)^j e_{⌊j/2⌋}."""
    means = np.zeros((k, dim))
    j = np.arange(k)
    means[j, j // 2] = separation * np.where(j % 2 == 0, 1.0, -1.0)
    return means


def mixture_params(source: MixtureParams | GaussMixtureOptions | Model | dict[str, Any]
                   ) -> MixtureParams:
    """The parameters of a ``gauss_mixture`` model, from its params, options (validated or a
    dict) or the model itself."""
    if isinstance(source, MixtureParams):
        return source
    if isinstance(source, Model):
        source = source.options
    opts = GaussMixtureOptions.model_validate(source) if isinstance(source, dict) else source
    k = len(opts.weights)
    weights = np.asarray(opts.weights, dtype=np.float64)
    sds = np.ones(k) if opts.widths == "equal" else np.linspace(*WIDTH_RANGE, k)
    return MixtureParams(float(opts.prior_sd), _layout(k, opts.dim, opts.separation),
                         weights / weights.sum(), sds)


def _log_terms(p: MixtureParams) -> np.ndarray:
    """log w_k N(μ_k; 0, (s² + σ_k²) I_d), (K,)."""
    t = p.prior_sd**2 + p.sds**2
    return (np.log(p.weights) - 0.5 * np.sum(p.means**2, axis=1) / t
            - 0.5 * p.dim * np.log(2 * np.pi * t))


def exact_mode_masses(source: Any) -> np.ndarray:
    """The posterior mass w'_k of each mode (K,), summing to 1 (module docstring); ``source`` as
    for :func:`mixture_params`."""
    log_terms = _log_terms(mixture_params(source))
    return np.exp(log_terms - logsumexp(log_terms))


def exact_log_evidence(source: Any) -> float:
    """log Z = log Σ_k w_k N(μ_k; 0, (s² + σ_k²) I_d), exactly."""
    return float(logsumexp(_log_terms(mixture_params(source))))


def posterior_components(source: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(w' (K,), c (K, d), v (K,)) of the exact posterior Σ_k w'_k N(θ; c_k, v_k I_d)."""
    p = mixture_params(source)
    var = 1.0 / (1.0 / p.prior_sd**2 + 1.0 / p.sds**2)
    return exact_mode_masses(p), (var / p.sds**2)[:, None] * p.means, var


def mode_of(theta: ArrayLike, source: Any) -> jax.Array:
    """Index of the posterior component of highest responsibility w'_k N(θ; c_k, v_k I_d) for each
    θ (last axis d): shape ``theta.shape[:-1]``; jittable in θ, vectorised over leading axes.

    A draw's mode is its most probable component, so a share of draws per mode estimates the
    mass of that mode's basin, which equals w'_k only where components do not overlap. With the
    default layout the difference is below 10⁻⁵; with ``unequal`` widths about 0.1% of the σ = 2
    component's draws lie in a neighbour's basin, so the basin masses differ from w' by ~2·10⁻⁴.
    """
    masses, centres, var = posterior_components(source)
    theta = jnp.asarray(theta)
    d2 = jnp.sum((theta[..., None, :] - jnp.asarray(centres)) ** 2, axis=-1)
    log_resp = (jnp.asarray(np.log(masses) - 0.5 * centres.shape[1] * np.log(var))
                - 0.5 * d2 / jnp.asarray(var))
    return jnp.argmax(log_resp, axis=-1)


def mode_mass_table(draws: ArrayLike, source: Any) -> list[dict[str, Any]]:
    """Per chain, the share of draws in each mode against the exact masses.

    ``draws`` is (chains, draws, d) or (draws, d) (one chain). One dict per chain:
    ``masses`` (K,) (the share of its draws :func:`mode_of` assigns to each mode),
    ``modes_visited`` (how many modes hold at least one draw) and ``max_abs_error``
    (max_k |share_k − w'_k|).
    """
    draws = np.asarray(draws, dtype=np.float64)
    if draws.ndim == 2:
        draws = draws[None]
    exact = exact_mode_masses(source)
    modes = np.asarray(mode_of(draws, source))
    rows = []
    for chain in modes:
        share = np.bincount(chain, minlength=exact.size) / chain.size
        rows.append({"masses": share.tolist(), "modes_visited": int(np.count_nonzero(share)),
                     "max_abs_error": float(np.max(np.abs(share - exact)))})
    return rows


def mode_mass_lines(draws: ArrayLike, source: Any) -> list[str]:
    """:func:`mode_mass_table` as one line per chain."""
    k = exact_mode_masses(source).size
    return [f"chain {i}: {row['modes_visited']}/{k} modes visited, largest |mode-mass error| "
            f"{row['max_abs_error']:.4f}" for i, row in enumerate(mode_mass_table(draws, source))]


def build(options: GaussMixtureOptions) -> Model:
    """Registry entry: the mixture likelihood on one pseudo datum
    (:func:`~tempering.models.gaussian_mixture_likelihood.mixture_likelihood_model`); the exact
    posterior masses, the log evidence, σ_k and v_k go in the attrs (c_k = v_k μ_k/σ_k², μ_k from
    the options)."""
    p = mixture_params(options)
    masses, _, var = posterior_components(p)
    return mixture_likelihood_model(
        "gauss_mixture", p.means, p.weights, p.sds, p.prior_sd, options.model_dump(),
        {"exact_mode_masses": masses.tolist(), "log_evidence": exact_log_evidence(p),
         "component_sds": p.sds.tolist(), "posterior_var": var.tolist()})


SPEC = ModelSpec(
    "gauss_mixture",
    "Gaussian-mixture likelihood in d dims: exact mode masses and log Z",
    GaussMixtureOptions,
    build,
)
