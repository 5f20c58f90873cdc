"""Green (1995)'s multiple change-point model for a Poisson process: the coal-mining disasters.

Events t_1..t_n observed on [t_min, t_max] (length L) are a Poisson process whose rate is a step
function with k change points s_1 < … < s_k and k + 1 heights (Green 1995, *Biometrika* 82, §4.1):

    x(t) = h_j  for s_j ≤ t < s_{j+1},  j = 0..k,   s_0 = t_min, s_{k+1} = t_max,
    log p(t_{1..n} | k, s, h) = Σ_i log x(t_i) − ∫ x(t) dt
                              = Σ_i log x(t_i) − Σ_j h_j (s_{j+1} − s_j).

Prior: k ~ Poisson(λ) truncated to {0, …, k_max}; given k, the positions are the even-numbered order
statistics of 2k + 1 uniforms on [t_min, t_max],

    p(s | k) = (2k + 1)! / L^(2k+1) · Π_{j=0}^{k} (s_{j+1} − s_j),

and the heights are i.i.d. Gamma(α, β) with rate β (mean α/β). Green's α = 1, β = 200 days is, for
dates in decimal years, β = 200/365.25 ≈ 0.548 per year (prior mean 1.83 events a year): the
default. β is in the data's time unit; positions are reported in that unit and heights in events
per unit. It is the project's trans-dimensional example for seed 001 (importance tempering of
reversible-jump chains, seed 001 §1 and §3; Green 1995 is its reference for RJMCMC).

Units inside θ: time rescaled to u = (t − t_min)/L ∈ [0, 1] and heights per rescaled unit,
h^u = L h ~ Gamma(α, β/L), so the reversible-jump kernel sees the same layout whatever the data.

Layout (``dim = 2 k_max + 2``, a fixed-dimension padded vector)::

    θ = (k, u_1, …, u_kmax, η_0, …, η_kmax),   η_j = log h^u_j,

with k an integer stored as a float, u_1..u_k the active (rescaled) positions, η_0..η_k the active
log-heights. **Unused slots (u_j for j > k, η_j for j > k) hold the fixed value 0**, and the
density is −∞ unless they do. The density is therefore with respect to the reference measure
μ = Σ_k δ_k ⊗ Leb(u_1..u_k, η_0..η_k) ⊗ δ_0(unused slots): on the support it is the posterior
density of (k, active coordinates) with the heights' log Jacobian (+η_j) included. A
reversible-jump kernel that only ever (i) moves active coordinates, (ii) fills the next unused slot
when k grows (birth) and (iii) resets the freed slot to 0 when k shrinks (death) stays on this
support, and Green's acceptance ratio — densities under μ, proposal densities, the Jacobian of the
dimension-matching map — makes it reversible with respect to it
(:mod:`tempering.kernels.rj_changepoint`). The unused coordinates are a deterministic function of k,
so the chain's marginal on (k, active coordinates) is exactly the intended posterior. A tempered
rung log p(θ) + β log p(t | θ) is a density with respect to the same μ, so the kernel is exact on
every rung, and importance weights between rungs (likelihood powers) are well defined. (The
alternative — unused slots as independent draws from a fixed auxiliary density — would work too, but
every kernel would then have to refresh them; fixed zeros need nothing.) Kernels that move every
coordinate continuously (RWM, HMC, slice) cannot change k or leave this support: use
``rj_changepoint``.

Output variables: ``k``; ``position`` (k_max,) in the data's time unit; ``height`` (k_max + 1,) in
events per time unit; slots beyond k are **NaN** (the run summary reports such partly defined
components over the draws where they are defined).

Per-datum terms (for subset and mini-batch samplers): term_i = log x(t_i) − Λ/n with
Λ = ∫ x(t) dt, so the terms sum to the log likelihood and a view of m events gives
Σ_view log x(t_i) − (m/n) Λ.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from pydantic import BaseModel, ConfigDict, Field, PositiveFloat, PositiveInt

from tempering.data import read_numeric_csv
from tempering.errors import UserInputError
from tempering.models.base import Model, ModelSpec, ParamSpec

Array = jax.Array

#: Green's β = 200 days, in years (dates in decimal years).
GREEN_BETA_PER_YEAR = 200.0 / 365.25
#: The bundled coal record's default observation window: whole years 1851–1962, Green's L = 40907
#: days (Jarrett's dates run from 15 March 1851 to 22 March 1962).
COAL_WINDOW = (1851.0, 1963.0)


class ChangepointOptions(BaseModel):
    """Options of ``changepoint``.

    ``data``: ``coal`` (bundled) or a CSV with one column of event times. ``t_min``/``t_max``: the
    observation window (default: 1851–1963 for ``coal``, the first and last event for a CSV).
    ``lam``, ``k_max``: k ~ Poisson(λ) truncated at k_max. ``alpha``, ``beta``: heights
    ~ Gamma(α, rate β), β in the data's time unit (default Green's 200 days in years).
    """

    model_config = ConfigDict(extra="forbid", coerce_numbers_to_str=True, allow_inf_nan=False)

    data: str = "coal"
    t_min: float | None = None
    t_max: float | None = None
    lam: PositiveFloat = 3.0
    k_max: PositiveInt = Field(10, le=100)
    alpha: PositiveFloat = 1.0
    beta: PositiveFloat = GREEN_BETA_PER_YEAR


class Prior(NamedTuple):
    """The prior in rescaled units (time on [0, 1], heights per unit of rescaled time)."""

    k_max: int
    lam: float
    alpha: float
    beta: float  # rate of the Gamma prior of h^u = L h: β / L

    def log_prob_k(self) -> np.ndarray:
        """log p(k), k = 0..k_max: the truncated Poisson(λ)."""
        k = np.arange(self.k_max + 1)
        log_w = k * np.log(self.lam) - np.array([math.lgamma(j + 1) for j in k])
        return log_w - np.logaddexp.reduce(log_w)


class Parts(NamedTuple):
    """θ unpacked: k, positions u (k_max,), log-heights η (k_max+1,), segment widths (k_max+1,)
    (zero beyond k), active masks, and whether θ lies on the support."""

    k: Array
    u: Array
    eta: Array
    widths: Array
    pos_active: Array
    seg_active: Array
    valid: Array


def unpack(theta: Array, k_max: int) -> Parts:
    """Split θ and check the support: k ∈ {0..k_max}, 0 < u_1 < … < u_k < 1, unused slots 0."""
    k_float, u, eta = theta[0], theta[1:1 + k_max], theta[1 + k_max:]
    k = jnp.clip(jnp.round(k_float), 0, k_max).astype(jnp.int32)
    pos_active = jnp.arange(k_max) < k
    seg_active = jnp.arange(k_max + 1) <= k
    edges = jnp.concatenate([jnp.zeros(1), jnp.where(pos_active, u, 1.0), jnp.ones(1)])
    widths = jnp.diff(edges)
    valid = ((k_float == k) & jnp.all(jnp.where(seg_active, widths > 0, True))
             & jnp.all(jnp.where(pos_active, True, u == 0.0))
             & jnp.all(jnp.where(seg_active, jnp.isfinite(eta), eta == 0.0)))
    return Parts(k, u, eta, widths, pos_active, seg_active, valid)


def log_prior(theta: Array, prior: Prior) -> Array:
    """log p(k) + log p(u | k) + Σ_{j≤k} log Gamma(h^u_j; α, β) + η_j (the log-height Jacobian)."""
    p = unpack(theta, prior.k_max)
    log_pk = jnp.sum(jnp.where(jnp.arange(prior.k_max + 1) == p.k, prior.log_prob_k(), 0.0))
    log_pos = (jax.scipy.special.gammaln(2.0 * p.k + 2.0)
               + jnp.sum(jnp.where(p.seg_active, jnp.log(jnp.where(p.seg_active, p.widths, 1.0)),
                                   0.0)))
    log_h = (prior.alpha * np.log(prior.beta) - math.lgamma(prior.alpha) + prior.alpha * p.eta
             - prior.beta * jnp.exp(p.eta))
    value = log_pk + log_pos + jnp.sum(jnp.where(p.seg_active, log_h, 0.0))
    return jnp.where(p.valid, value, -jnp.inf)


def event_log_rates(theta: Array, u_events: Array, k_max: int) -> Array:
    """log x(t_i) for rescaled event times u_i: η_j with j the number of active positions below,
    written η_0 + Σ_{j ≤ k} 1{u_j < u_i} (η_j − η_{j−1}) (a matrix product, no gather)."""
    p = unpack(theta, k_max)
    below = p.pos_active[None, :] & (p.u[None, :] < u_events[:, None])
    return p.eta[0] + below.astype(p.eta.dtype) @ jnp.diff(p.eta)


def integrated_rate(theta: Array, k_max: int) -> Array:
    """Λ = ∫_0^1 x^u(u) du = Σ_{j≤k} h^u_j (u_{j+1} − u_j) (unused segments have zero width)."""
    p = unpack(theta, k_max)
    return jnp.sum(jnp.where(p.seg_active, jnp.exp(p.eta) * p.widths, 0.0))


def poisson_log_lik(theta: Array, u_events: Array, k_max: int,
                    weights: Array | None = None) -> Array:
    """Σ_i w_i log x(t_i) − Λ (w_i = 1 by default; 0 drops a padded event), −∞ off the support."""
    rates = event_log_rates(theta, u_events, k_max)
    total = jnp.sum(rates if weights is None else weights * rates)
    value = total - integrated_rate(theta, k_max)
    return jnp.where(unpack(theta, k_max).valid, value, -jnp.inf)


def sample_prior(key: Array, prior: Prior) -> Array:
    """One θ from the prior: k from the truncated Poisson, u the even order statistics of 2k+1
    uniforms (the 2nd, 4th, …), η = log of Gamma(α, β) draws; unused slots 0."""
    K = prior.k_max
    k_key, u_key, h_key = jax.random.split(key, 3)
    k = jax.random.categorical(k_key, jnp.asarray(prior.log_prob_k()))
    draws = jax.random.uniform(u_key, (2 * K + 1,))
    draws = jnp.sort(jnp.where(jnp.arange(2 * K + 1) < 2 * k + 1, draws, jnp.inf))
    u = jnp.where(jnp.arange(K) < k, draws[1:2 * K:2], 0.0)
    eta = jnp.log(jax.random.gamma(h_key, prior.alpha, (K + 1,))) - np.log(prior.beta)
    eta = jnp.where(jnp.arange(K + 1) <= k, eta, 0.0)
    return jnp.concatenate([k[None].astype(float), u, eta])


def changepoint_model(times: np.ndarray, t_min: float, t_max: float, *, lam: float = 3.0,
                      k_max: int = 10, alpha: float = 1.0, beta: float = GREEN_BETA_PER_YEAR,
                      options: dict | None = None, attrs: dict | None = None) -> Model:
    """Build the model from event times (any unit) in [t_min, t_max]; β in that time unit."""
    times = np.asarray(times, dtype=float).reshape(-1)
    if not t_max > t_min:
        raise UserInputError(f"model.t_max ({t_max}) must be greater than model.t_min ({t_min})")
    outside = times[(times < t_min) | (times > t_max)]
    if outside.size:
        raise UserInputError(f"model: {outside.size} event times lie outside [t_min, t_max] = "
                             f"[{t_min}, {t_max}] (e.g. {outside[0]})")
    length = t_max - t_min
    prior = Prior(int(k_max), float(lam), float(alpha), float(beta) / length)
    u_events = jnp.asarray((times - t_min) / length)
    n = times.size

    def log_lik_terms(theta, data):
        return event_log_rates(theta, data["u"], k_max) - integrated_rate(theta, k_max) / n

    def log_lik(theta, data):
        value = jnp.sum(log_lik_terms(theta, data))
        return jnp.where(unpack(theta, k_max).valid, value, -jnp.inf)

    def constrain(theta):
        p = unpack(theta, k_max)
        return {"k": p.k.astype(float),
                "position": jnp.where(p.pos_active, t_min + length * p.u, jnp.nan),
                "height": jnp.where(p.seg_active, jnp.exp(p.eta) / length, jnp.nan)}

    return Model(
        name="changepoint",
        data={"u": u_events},
        log_prior_fn=lambda theta: log_prior(theta, prior),
        log_lik_fn=log_lik,
        log_lik_terms_fn=log_lik_terms,
        alpha=1.0,
        params=(ParamSpec("k", ()), ParamSpec("position", (k_max,)),
                ParamSpec("height", (k_max + 1,))),
        constrain_fn=constrain,
        init_fn=lambda key: sample_prior(key, prior),
        options=options or {"t_min": t_min, "t_max": t_max, "lam": lam, "k_max": k_max,
                            "alpha": alpha, "beta": beta},
        attrs={"t_min": t_min, "t_max": t_max, "n_events": n, "beta_rescaled": prior.beta,
               "layout": f"theta = (k, u_1..u_{k_max}, log h_0..log h_{k_max}), u = (t - t_min)"
                         f"/(t_max - t_min), h per rescaled unit; unused slots 0",
               **(attrs or {})},
    )


def build(options: ChangepointOptions) -> Model:
    """Registry entry: read the event times and apply the window defaults."""
    table = read_numeric_csv(options.data, header=True if options.data == "coal" else None)
    if table.values.shape[1] != 1:
        raise UserInputError(f"{options.data}: expected one column of event times, got "
                             f"{table.values.shape[1]}")
    times = table.values[:, 0]
    default = COAL_WINDOW if options.data == "coal" else (float(times.min()), float(times.max()))
    t_min = default[0] if options.t_min is None else options.t_min
    t_max = default[1] if options.t_max is None else options.t_max
    return changepoint_model(times, t_min, t_max, lam=options.lam, k_max=options.k_max,
                             alpha=options.alpha, beta=options.beta,
                             options=options.model_dump() | {"t_min": t_min, "t_max": t_max},
                             attrs={"data_source": options.data})


SPEC = ModelSpec(
    "changepoint",
    "Poisson-process rate with k change points, coal data (Green 1995; seed 001's RJ "
    "setting); sample with rj_changepoint",
    ChangepointOptions,
    build,
)
