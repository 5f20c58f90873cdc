"""A Gaussian-mixture "likelihood" under a Gaussian prior, whose communication barrier is
computed by quadrature: a target for testing self-tuning parallel tempering.

    θ ~ N(0, s0² I_d),      L(θ) = Σ_{j=1}^{J} w_j N(θ; μ_j, σ² I_d),      Σ_j w_j = 1,

θ ∈ ℝ^d with d = 1 or 2 (the length of each mean; the ``weights`` option is normalised). There
are no data: one pseudo datum carries the single term log L(θ), so power tempering
π_β(θ) ∝ p(θ) L(θ)^β flattens the modes as β → 0, towards the unimodal prior. At β = 1
the posterior is exactly

    p(θ) = Σ_j w'_j N(θ; c_j, v I_d),   v = 1/(1/s0² + 1/σ²),   c_j = v μ_j/σ²,
    w'_j ∝ w_j N(μ_j; 0, (s0² + σ²) I_d)

(:func:`barrier_posterior`; :func:`nearest_mode` assigns draws to modes) and the evidence is
Z = Σ_j w_j N(μ_j; 0, (s0² + σ²) I_d) (:func:`barrier_log_evidence`).

With V = −log L and X, X' independent draws from π_β, the local communication barrier is
λ(β) = ½ E|V(X) − V(X')| and the global one Λ(β_a, β_b) = ∫_{β_a}^{β_b} λ(β) dβ (Syed,
Bouchard-Côté, Deligiannidis & Doucet 2021, JRSS-B, §3): :func:`barrier_lambda` and
:func:`communication_barrier` compute them by quadrature, written here by hand in numpy float64
(no library computes them). One component at 0 gives λ(β) = κ/(β + σ²/s0²), κ = 1/π for d = 1
and ½ for d = 2, so Λ(0, 1) = κ log(1 + s0²/σ²). Splitting L into modes inside the prior's bulk
lowers Λ (V stays small between the modes), so with d = 1 Λ(10⁻³, 1) stays below log(10³)/π ≈ 2.2
unless the modes sit far out in the prior's tails, where moving the mass from the prior's centre
out to them adds to Λ (which depends on μ/σ and s0/σ only).

Layouts (``sd`` and ``prior_sd`` may be changed in each):

- ``bimodal``: d = 1, μ = ∓20, w = (0.3, 0.7), σ = 0.5, s0 = 5 (modes at 4 s0; w' = w):
  Λ(10⁻³, 1) = 3.846 and Λ(0, 1) = 3.949 (quadrature error < 10⁻⁴; one component at 0 gives
  1.439 and 1.469; σ = 0.5, s0 = 10, μ = 5 would give only 1.555 and 1.612).
- ``grid20``: d = 2, 20 means on the 5 × 4 grid x ∈ {−16, −8, 0, 8, 16}, y ∈ {−12, −4, 4, 12}
  (spacing 8, centred at 0; listed with x varying fastest from (−16, −12)), w_j ∝ j for
  j = 1..20 in that order, σ = 0.5, s0 = 20: Λ(10⁻³, 1) = 2.274 and Λ(0, 1) = 2.483 (one
  component at 0: 3.211 and 3.689); w' runs from 0.004 to 0.092.
- ``custom``: the given ``means`` and ``weights`` (equal when not given); σ = 0.5 and s0 = 10
  unless given.
"""

from __future__ import annotations

from typing import Annotated, Literal

import numpy as np
from numpy.typing import ArrayLike
from pydantic import BaseModel, ConfigDict, Field, PositiveFloat, model_validator
from scipy.special import logsumexp

from tempering.models.base import Model, ModelSpec
from tempering.models.gaussian_mixture_likelihood import mixture_likelihood_model
from tempering.models.modes2d import nearest_mode as nearest_mode

Point = Annotated[list[float], Field(min_length=1, max_length=2)]
_GRID_X, _GRID_Y = (-16.0, -8.0, 0.0, 8.0, 16.0), (-12.0, -4.0, 4.0, 12.0)
#: Layout ↦ (means, weights, σ, s0); ``custom`` gives only the defaults of σ and s0.
PRESETS: dict[str, tuple[list[list[float]], list[float], float, float]] = {
    "bimodal": ([[-20.0], [20.0]], [0.3, 0.7], 0.5, 5.0),
    "grid20": ([[x, y] for y in _GRID_Y for x in _GRID_X], [float(j) for j in range(1, 21)],
               0.5, 20.0),
    "custom": ([], [], 0.5, 10.0),
}


class BarrierOptions(BaseModel):
    """A preset ``layout``, or ``custom`` ``means`` (each of length 1 or 2) and ``weights``;
    validation fills in the layout's values, so a validated option set records them all."""

    model_config = ConfigDict(extra="forbid", coerce_numbers_to_str=True, allow_inf_nan=False)

    layout: Literal["bimodal", "grid20", "custom"] = "bimodal"
    means: Annotated[list[Point], Field(min_length=1)] | None = None
    weights: Annotated[list[PositiveFloat], Field(min_length=1)] | None = None
    sd: PositiveFloat | None = Field(None, description="component sd σ; 0.5 in each layout")
    prior_sd: PositiveFloat | None = Field(None, description="prior sd s0; 5, 20, 10 by layout")

    @model_validator(mode="after")
    def _resolve_layout(self) -> BarrierOptions:
        means, weights, sd, prior_sd = PRESETS[self.layout]
        if self.layout == "custom":
            if self.means is None:
                raise ValueError("means: layout custom needs means")
            means, weights = self.means, self.weights or [1.0] * len(self.means)
            if len({len(m) for m in means}) != 1:
                raise ValueError("means: all means must have the same length (1 or 2)")
            if len(weights) != len(means):
                raise ValueError(f"weights: {len(weights)} weights for {len(means)} means "
                                 "(one per mean)")
        for key, preset in (("means", means), ("weights", weights)):
            if getattr(self, key) not in (None, preset):
                raise ValueError(f"{key}: set by layout {self.layout}; use layout custom")
        self.means, self.weights = [list(m) for m in means], list(weights)
        self.sd, self.prior_sd = self.sd or sd, self.prior_sd or prior_sd
        return self


def _parts(opts: dict) -> tuple[np.ndarray, np.ndarray, float, float]:
    """(μ (J, d), w (J,) normalised, σ, s0) from resolved options."""
    weights = np.asarray(opts["weights"], dtype=np.float64)
    return (np.asarray(opts["means"], dtype=np.float64), weights / weights.sum(),
            float(opts["sd"]), float(opts["prior_sd"]))


def _posterior(means: np.ndarray, weights: np.ndarray, sd: float,
               prior_sd: float) -> tuple[np.ndarray, np.ndarray, float, float]:
    """(w', c, v, log Z) of the β = 1 posterior (module docstring)."""
    t = prior_sd**2 + sd**2
    log_terms = (np.log(weights) - 0.5 * np.sum(means**2, axis=1) / t
                 - 0.5 * means.shape[1] * np.log(2 * np.pi * t))
    log_z = float(logsumexp(log_terms))
    var = 1.0 / (1.0 / prior_sd**2 + 1.0 / sd**2)
    return np.exp(log_terms - log_z), var * means / sd**2, var, log_z


def barrier_posterior(model: Model) -> tuple[np.ndarray, np.ndarray, float]:
    """The exact β = 1 posterior of a ``barrier`` model: weights w' (J,), centres c (J, d) and
    the common variance v of p(θ) = Σ_j w'_j N(θ; c_j, v I_d) (module docstring)."""
    weights, centres, var, _ = _posterior(*_parts(model.options))
    return weights, centres, var


def barrier_log_evidence(model: Model) -> float:
    """log Z = log ∫ p(θ) L(θ) dθ = log Σ_j w_j N(μ_j; 0, (s0² + σ²) I_d), exactly."""
    return _posterior(*_parts(model.options))[3]


def _axis(lo: float, hi: float, h_core: float, reach: float,
          h_coarse: float) -> tuple[np.ndarray, np.ndarray]:
    """Nodes and trapezoid weights of one axis: spacing ``h_core`` on [lo, hi] (extended to a
    whole number of steps), ``h_coarse`` from there out to ±``reach`` (at least one step)."""
    core = lo + h_core * np.arange(int(np.ceil((hi - lo) / h_core)) + 1)
    n_left = max(1, int(np.ceil((core[0] + reach) / h_coarse)))
    n_right = max(1, int(np.ceil((reach - core[-1]) / h_coarse)))
    nodes = np.concatenate([core[0] - h_coarse * np.arange(n_left, 0, -1), core,
                            core[-1] + h_coarse * np.arange(1, n_right + 1)])
    gaps = np.diff(nodes)
    return nodes, 0.5 * (np.concatenate([gaps, [0.0]]) + np.concatenate([[0.0], gaps]))


def _grid_energies(opts: dict, grid: int | None) -> tuple[np.ndarray, np.ndarray]:
    """V = −log L + const at the nodes of a product grid, sorted, and log(a_i p(θ_i)) + const
    in the same order (a_i the trapezoid weights).

    Each axis has spacing √v/``grid`` (default 32 for d = 1, 4 for d = 2) on the hull of 0, the
    means and the centres widened by max(16σ, s0), then s0/(5 ``grid``) out to ±6 s0: wherever
    π_β is narrower than s0/5 it lies in the fine part, so every π_β has ≥ ``grid`` nodes per
    scale. 3731 nodes for ``bimodal``, 746 × 690 for ``grid20``.
    """
    means, weights, sd, prior_sd = _parts(opts)
    dim = means.shape[1]
    grid = grid or (32 if dim == 1 else 4)
    _, centres, var, _ = _posterior(means, weights, sd, prior_sd)
    ends = np.concatenate([means, centres, np.zeros((1, dim))])
    margin = max(16 * sd, prior_sd)
    d2, log_base = np.zeros(len(weights)), np.zeros(())
    for k in range(dim):
        nodes, quad = _axis(ends[:, k].min() - margin, ends[:, k].max() + margin,
                            np.sqrt(var) / grid, 6 * prior_sd, prior_sd / (5 * grid))
        shape = (1,) * k + (-1,) + (1,) * (dim - k - 1)
        d2 = d2 + ((nodes[:, None] - means[:, k]) ** 2).reshape(shape + (len(weights),))
        log_base = log_base + (np.log(quad) - 0.5 * nodes**2 / prior_sd**2).reshape(shape)
    energy = -logsumexp(np.log(weights) - 0.5 * d2 / sd**2, axis=-1).ravel()
    order = np.argsort(energy, kind="stable")
    return energy[order], log_base.ravel()[order]


def barrier_lambda(model: Model, betas: ArrayLike, grid: int | None = None) -> np.ndarray:
    """The local communication barrier λ(β) = ½ E|V(X) − V(X')|, X, X' ~ π_β i.i.d., at each β.

    On the product grid of :func:`_grid_energies` (``grid`` nodes per posterior sd √v near the
    modes) π_β is the discrete law p_i ∝ a_i p(θ_i) e^{−β V_i}. With the V_i sorted once,
    F_i = Σ_{k≤i} p_k and S_i = Σ_{k>i} p_k = 1 − F_i (each summed from its own end, so both tails
    keep their digits), E|V − V'| = 2 ∫ F(t)(1 − F(t)) dt is exactly

        λ(β) = Σ_{i<G} F_i S_i (V_{i+1} − V_i)   ≥ 0:

    O(G log G) for the sort and O(G) per β. Written by hand in numpy float64. Against the
    one-component closed form its relative error is < 10⁻⁴ for d = 1 and < 5·10⁻⁴ for d = 2 at
    the defaults, falling about as h² with the spacing h.
    """
    energy, log_base = _grid_energies(model.options, grid)
    betas = np.atleast_1d(np.asarray(betas, dtype=np.float64))
    gaps = np.diff(energy)
    out = np.empty(betas.shape)
    chunk = max(1, 2_000_000 // energy.size)
    for start in range(0, betas.size, chunk):
        log_p = log_base - betas[start:start + chunk, None] * energy
        p = np.exp(log_p - log_p.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        below = np.cumsum(p[:, :-1], axis=1)
        above = np.cumsum(p[:, :0:-1], axis=1)[:, ::-1]
        out[start:start + chunk] = np.sum(below * above * gaps, axis=1)
    return out


def communication_barrier(model: Model, beta_min: float, beta_max: float = 1.0,
                          points: int = 129, grid: int | None = None) -> float:
    """The global communication barrier Λ(β_min, β_max) = ∫ λ(β) dβ, 0 ≤ β_min < β_max, by the
    composite Simpson rule on ``points`` (odd) equally spaced u = log(β + σ²/s0²): dense in β near
    0, where λ ≈ κ/(β + σ²/s0²) varies fastest, and the integrand in u, λ(β)(β + σ²/s0²), is
    smooth. By hand, with λ from :func:`barrier_lambda` (one sort for all β)."""
    if points < 3 or points % 2 == 0:
        raise ValueError(f"points must be odd and at least 3, got {points}")
    _, _, sd, prior_sd = _parts(model.options)
    shift = sd**2 / prior_sd**2
    u = np.linspace(np.log(beta_min + shift), np.log(beta_max + shift), points)
    betas = np.exp(u) - shift
    betas[0], betas[-1] = beta_min, beta_max
    simpson = np.ones(points)
    simpson[1:-1:2], simpson[2:-1:2] = 4.0, 2.0
    integrand = barrier_lambda(model, betas, grid) * (betas + shift)
    return float(np.sum(simpson * integrand) * (u[1] - u[0]) / 3)


def build(options: BarrierOptions) -> Model:
    """Registry entry: the mixture likelihood of the resolved layout on one pseudo datum
    (:func:`~tempering.models.gaussian_mixture_likelihood.mixture_likelihood_model`); the exact
    β = 1 posterior and the log evidence go in the attrs."""
    opts = options.model_dump()
    means, weights, sd, prior_sd = _parts(opts)
    post_w, centres, var, log_z = _posterior(means, weights, sd, prior_sd)
    return mixture_likelihood_model(
        "barrier", means, weights, np.full(len(weights), sd), prior_sd, opts,
        {"posterior_weights": post_w.tolist(), "posterior_centres": centres.tolist(),
         "posterior_var": var, "log_evidence": log_z})


SPEC = ModelSpec(
    "barrier",
    "Gaussian-mixture likelihood, Gaussian prior: known PT barrier Λ",
    BarrierOptions,
    build,
)
