"""Mini-batch estimates of a tempered log density (seed 003 §3): the rung of MINT, CMINT, SGLD,
SGHMC and, one per chain, MINTEE.

With l_i(θ) = log p(x_i | θ) and a batch B of m of the n data points drawn uniformly without
replacement, μ̂_B(θ) = (1/m) Σ_{i∈B} l_i(θ) estimates μ(θ) = (1/n) Σ_i l_i(θ). MINT's batch density
is

    log π̂_B(θ) = κ log π₀(θ) + s μ̂_B(θ),        s = n^λ,

whose expectation over B is the tempered log density log π_T(θ) = κ log π₀(θ) + β Σ_i l_i(θ) with
β = s/n = n^(λ−1) = 1/T (seed 003 §3.2, T = n^(1−λ)). The prior weight κ is 1 (the prior is not
tempered: the library's powered-likelihood rung, seed 000 Eq. 1), 1/T (the whole posterior is
tempered, π_T ∝ (π₀ L)^(1/T), the paper's reading with a proper prior), or 0 (a flat prior, the
paper's footnote 1). One evaluation touches m points: it costs m/n full-data evaluations.

Batches are drawn by :func:`draw_batch` (hand-written: ``jax.random.choice(..., replace=False)``
permutes all n indices, O(n log n) work per draw — 6 ms at n = 13 000 on a CPU, against 10 µs for
a 100 × 784 batch of logistic terms — and Floyd's algorithm is m sequential steps, 240 µs at
m = 100): m uniform draws with the repeats redrawn, O(m log m) work, no O(n) array.

With m = n the batch is all the data and μ̂ = μ exactly: MINT is then Metropolis–Hastings on π_T
itself — the paper's "tempered MCMC" at the same T (pass the MINT run's λ as ``lam``; reading a
makes it cost one evaluation per step, like any full-data RWM).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Literal, NamedTuple

import jax
import jax.numpy as jnp

from tempering.models.base import Model
from tempering.numerics import finite_or_neg_inf

Array = jax.Array
PriorWeighting = Literal["full", "tempered", "flat"]


def _later_duplicates(indices: Array) -> Array:
    """Mask of the entries equal to an earlier entry (in a stable sort's order)."""
    order = jnp.argsort(indices, stable=True)
    ranked = indices[order]
    repeat = jnp.concatenate([jnp.zeros((1,), bool), ranked[1:] == ranked[:-1]])
    return jnp.zeros(indices.shape, bool).at[order].set(repeat)


def draw_batch(key: Array, n: int, m: int) -> Array:
    """m distinct indices of {0, …, n−1}, every m-subset equally likely.

    m ≤ n/8: draw m indices uniformly with replacement, then redraw the repeated entries until
    none is left (a ``while_loop``; about m²/2n repeats at first, so one or two rounds). Which
    entry of a tie is redrawn depends on positions only, never on the values' labels, so the
    procedure commutes with any relabelling of {0, …, n−1}; as relabellings act transitively on
    m-subsets, the final subset is uniform. m > n/8: the indices of the m largest of n i.i.d.
    uniforms (:func:`_largest_keys`), where redrawing would take many rounds (12 ms for m = 4900
    of n = 10⁴ here, against 1.1 ms).
    """
    if not 1 <= m <= n:
        raise ValueError(f"batch size m = {m} must be between 1 and n = {n}")
    if 8 * m > n:
        return _largest_keys(jax.random.uniform(key, (n,)), m)
    return _redraw_until_distinct(key, n, m, _later_duplicates)


def _largest_keys(keys: Array, m: int) -> Array:
    """The indices of the m largest ``keys`` (i.i.d. uniforms, or −1 where excluded), largest
    first: the keys are exchangeable, so every m-subset of the eligible indices is equally
    likely, and so is every leading sub-batch of the result (ties have probability ~n²/2⁵³).
    ``lax.top_k``: O(n log m), 0.35–1.2 ms at n = 10⁴ on a CPU, where a permutation (several
    rounds of sorting) takes 4 ms."""
    return jax.lax.top_k(keys, m)[1].astype(jnp.int32)


def _redraw_until_distinct(key: Array, n: int, m: int,
                           repeats: Callable[[Array], Array]) -> Array:
    """m uniform indices of {0, …, n−1}, the entries ``repeats`` flags redrawn until none is."""
    first, key = jax.random.split(key)
    indices = jax.random.randint(first, (m,), 0, n, dtype=jnp.int32)

    def redraw(carry):
        key, indices, repeat = carry
        key, sub = jax.random.split(key)
        fresh = jax.random.randint(sub, (m,), 0, n, dtype=jnp.int32)
        indices = jnp.where(repeat, fresh, indices)
        return key, indices, repeats(indices)

    _, indices, _ = jax.lax.while_loop(lambda carry: jnp.any(carry[2]), redraw,
                                       (key, indices, repeats(indices)))
    return indices


def draw_batch_outside(key: Array, n: int, m: int, taken: Array) -> Array:
    """m distinct indices of {0, …, n−1} none of which is in ``taken`` (distinct indices), every
    such m-subset equally likely: MINTEE's top-up of a stored batch (seed 003 App. D.1).

    As :func:`draw_batch`, with the ``taken`` entries placed first, so that a fresh index equal to
    one of them is always the repeat that is redrawn; the rule still commutes with relabellings
    that fix ``taken``, which act transitively on the m-subsets of its complement. When m is over
    an eighth of the free indices: the m free indices with the largest uniform keys.
    """
    k = taken.shape[0]
    if not 0 <= m <= n - k:
        raise ValueError(f"top-up size m = {m} must be between 0 and n − |taken| = {n - k}")
    if m == 0:
        return jnp.zeros((0,), jnp.int32)
    if 8 * m > n - k:
        return _largest_keys(jax.random.uniform(key, (n,)).at[taken].set(-1.0), m)
    taken = taken.astype(jnp.int32)
    return _redraw_until_distinct(
        key, n, m, lambda indices: _later_duplicates(jnp.concatenate([taken, indices]))[k:])


class MinibatchTarget(NamedTuple):
    """The batch density log π̂_B(θ) = κ log π₀(θ) + s μ̂_B(θ) of one model, batch size and s.

    Attributes
    ----------
    n, m
        Data points and batch size.
    scale
        s = n^λ, the weight of the batch mean μ̂_B.
    prior_weight
        κ: 1 (prior untempered), 1/T (tempered), 0 (flat).
    draw
        PRNG key ↦ a batch of m distinct indices.
    mean_terms
        (θ, batch) ↦ μ̂_B(θ), the mean per-datum log-likelihood over the batch.
    log_prior
        θ ↦ κ log π₀(θ) (0 when κ = 0, even where π₀ is 0).
    """

    n: int
    m: int
    scale: float
    prior_weight: float
    draw: Callable[[Array], Array]
    mean_terms: Callable[[Array, Array], Array]
    log_prior: Callable[[Array], Array]

    @property
    def beta(self) -> float:
        """β = s/n = 1/T, the power of the likelihood in the tempered target π_T."""
        return self.scale / self.n

    @property
    def cost(self) -> float:
        """Full-data-equivalent cost of one batch evaluation: m/n."""
        return self.m / self.n

    def log_density(self, theta: Array, batch: Array) -> Array:
        """log π̂_B(θ); −∞ where it is not finite."""
        return finite_or_neg_inf(self.log_prior(theta) + self.scale * self.mean_terms(theta,
                                                                                     batch))

    def density_on(self, batch: Array) -> Callable[[Array], Array]:
        """θ ↦ log π̂_B(θ) for a fixed batch (what an inner kernel is built on)."""
        return lambda theta: self.log_density(theta, batch)


def prior_weight(weighting: PriorWeighting, beta: float) -> float:
    """κ for a prior weighting: ``full`` 1, ``tempered`` β = 1/T, ``flat`` 0."""
    return {"full": 1.0, "tempered": beta, "flat": 0.0}[weighting]


def minibatch_target(model: Model, m: int, scale: float,
                     weighting: PriorWeighting = "full") -> MinibatchTarget:
    """The batch density of ``model`` (which must have per-datum terms) for batch size ``m``."""
    if model.log_lik_terms_fn is None:
        raise TypeError(f"model {model.name} has no per-datum likelihood terms")
    n = model.n_data
    kappa = prior_weight(weighting, scale / n)

    def mean_terms(theta, batch):
        if m == n:  # the whole data set, in order: no gather
            return jnp.mean(model.log_lik_terms(theta))
        view = jax.tree.map(lambda a: jnp.take(a, batch, axis=0), model.data)
        return jnp.mean(model.log_lik_terms(theta, view))

    def log_prior(theta):
        return jnp.zeros(()) if kappa == 0.0 else kappa * model.log_prior(theta)

    def draw(key):
        # m = n: the batch is all the data (the estimate is exact: full-data tempered MCMC)
        return jnp.arange(n, dtype=jnp.int32) if m == n else draw_batch(key, n, m)

    return MinibatchTarget(n, m, float(scale), kappa, draw, mean_terms, log_prior)


class TemperedScaling(NamedTuple):
    """Seed 003's parameters for n data points: m = n^τ, λ = α τ < τ, s = n^λ, T = n^(1−λ)."""

    n: int
    m: int
    tau: float
    lam: float
    scale: float
    temperature: float


def tempered_scaling(n: int, *, batch: int | None = None, tau: float | None = None,
                     alpha: float | None = None, lam: float | None = None) -> TemperedScaling:
    """Resolve (batch or τ) and (α or λ) into m, τ = log m / log n, λ, s = n^λ and T = n^(1−λ).

    Raises
    ------
    ValueError
        With a message naming the option: m outside [2, n], or λ ≥ τ (the paper needs λ < τ).
    """
    if batch is None:
        batch = max(1, round(n ** (0.5 if tau is None else tau)))
    if not 2 <= batch <= n:
        raise ValueError(f"batch: the batch size must be between 2 and n = {n} (got {batch})")
    tau_eff = math.log(batch) / math.log(n)
    lam_eff = lam if lam is not None else (0.99 if alpha is None else alpha) * tau_eff
    if not lam_eff < tau_eff:
        raise ValueError(f"lam: λ = {lam_eff:.4g} must be below τ = log m / log n = "
                         f"{tau_eff:.4g}")
    return TemperedScaling(n, batch, tau_eff, lam_eff, n ** lam_eff, n ** (1.0 - lam_eff))
