"""What the statistical tests share: the z bound, z-scores from ArviZ's Monte-Carlo standard errors,
the conjugate Gaussian model, and one Geweke harness.

Geweke-style invariance tests (Geweke 2004) all have one shape here: a simulator whose every
iteration either (successive-conditional) updates the parameters with the transition under test
given data and then draws fresh data given the parameters, or (exact starts) draws an exact
stationary pair and applies the transition; each iteration records statistics whose expectation
is zero if and only if (for the statistics chosen) the transition leaves its target invariant.
:func:`geweke_records` runs it, vmapped over chains (and, when a test compiles its variants into
one program, over variants), and :func:`geweke_z_scores` turns the records into z-scores with
ArviZ's MCSE. A test is a table of cases, correct and deliberately broken, checked by
:func:`check_geweke`: every correct case must stay within :data:`Z_BOUND`, every broken one must
leave it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import arviz as az
import jax
import jax.numpy as jnp
import numpy as np

import tempering  # noqa: F401  (float64 before any test builds arrays)
from tempering.models import Model, ParamSpec

#: |z| over a dozen scores; P(|N(0, 1)| > 4) ≈ 6e-5 per score.
Z_BOUND = 4.0
LOG_2PI = float(np.log(2 * np.pi))


def z_combined(draws: np.ndarray, mean: float, mcse: float) -> float:
    """(our mean − reference) / sqrt(our MCSE² + reference MCSE²)."""
    ours = float(az.mcse(draws, method="mean"))
    return float((np.mean(draws) - mean) / np.hypot(ours, mcse))


def z_mean(draws: np.ndarray, truth: float) -> float:
    """(mean − truth) / MCSE(mean) for a (chain, draw) array."""
    return float((np.mean(draws) - truth) / az.mcse(draws, method="mean"))


def z_sd(draws: np.ndarray, truth: float) -> float:
    """(sd − truth) / MCSE(sd) for a (chain, draw) array."""
    return float((np.std(draws, ddof=1) - truth) / az.mcse(draws, method="sd"))


# --------------------------------------------------------------------------- conjugate Gaussian

def conjugate_model(y: jax.Array, normalised: bool = False) -> Model:
    """θ ∈ R^d, θ ~ N(0, I); y_1..y_n | θ ~ N(θ, I) (``y`` of shape (n, d)); with ``normalised``
    the densities carry their 2π constants (for evidence and tempered normalisers)."""
    n, dim = y.shape
    prior_const = -0.5 * dim * LOG_2PI if normalised else 0.0
    lik_const = -0.5 * dim * LOG_2PI if normalised else 0.0
    return Model(
        name="conjugate", data={"x": y},
        log_prior_fn=lambda t: -0.5 * jnp.sum(t**2) + prior_const,
        log_lik_fn=lambda t, d: -0.5 * jnp.sum((d["x"] - t) ** 2) + d["x"].shape[0] * lik_const,
        log_lik_terms_fn=lambda t, d: -0.5 * jnp.sum((d["x"] - t) ** 2, axis=-1) + lik_const,
        alpha=1.0, params=(ParamSpec("theta", (dim,)),),
        constrain_fn=lambda t: {"theta": t}, init_fn=lambda k: jnp.zeros(dim))


def conjugate_posterior(y: jax.Array) -> tuple[jax.Array, jax.Array]:
    """Mean and (scalar) precision of θ | y: Σ y / (1 + n) and 1 + n."""
    precision = 1.0 + y.shape[0]
    return jnp.sum(y, axis=0) / precision, jnp.asarray(precision)


# --------------------------------------------------------------------------- the Geweke harness

class GewekeCase(NamedTuple):
    """One row of a Geweke table: a name, what the test builds the transition from, and whether
    the variant is deliberately broken (and so must be caught)."""

    name: str
    build: Any
    broken: bool = False


def cases(correct: dict[str, Any], broken: dict[str, Any]) -> list[GewekeCase]:
    """A Geweke table from the correct and the broken variants."""
    return ([GewekeCase(name, build) for name, build in correct.items()]
            + [GewekeCase(name, build, True) for name, build in broken.items()])


def geweke_records(init: Callable, iterate: Callable, *, chains: int, iterations: int,
                   seed: int, variants: int | None = None) -> np.ndarray:
    """Records of a Geweke simulator, (chain, iteration, k) — or (variant, chain, iteration, k)
    with ``variants``, the variant index then being a traced argument so that every variant runs
    in one compiled program.

    ``init(key[, variant]) -> carry`` starts a chain; ``iterate([variant,] key, carry) -> (carry,
    record)`` is one iteration, ``record`` a vector whose expectation is 0 under invariance.
    Chain c of variant v uses the key ``split(split(key(seed), variants)[v], chains)[c]``.
    """

    def chain(key, *variant):
        k_init, k_run = jax.random.split(key)
        return jax.lax.scan(lambda carry, k: iterate(*variant, k, carry), init(k_init, *variant),
                            jax.random.split(k_run, iterations))[1]

    key = jax.random.key(seed)
    if variants is None:
        return np.asarray(jax.jit(jax.vmap(chain))(jax.random.split(key, chains)))
    keys = jax.vmap(lambda k: jax.random.split(k, chains))(jax.random.split(key, variants))
    run = jax.vmap(jax.vmap(chain, in_axes=(0, None)), in_axes=(0, 0))
    return np.asarray(jax.jit(run)(keys, jnp.arange(variants)))


def geweke_z_scores(records: np.ndarray) -> list[float]:
    """z of E[record_j] = 0 for every column j of (chain, iteration, k) records (ArviZ's MCSE)."""
    return [z_mean(records[..., j], 0.0) for j in range(records.shape[-1])]


def known_variance_z_scores(excess: np.ndarray, variance: np.ndarray) -> list[float]:
    """z of E[excess_j] = 0 for independent iterations whose variances are known: Σ excess /
    √Σ variance per column. For an indicator minus its probability p, the variance is p(1 − p):
    an MCSE estimated from the draws would miss a rare event that never happened."""
    total = np.sum(excess, axis=(0, 1))
    return [float(z) for z in total / np.sqrt(np.sum(variance, axis=(0, 1)))]


def check_geweke(case: GewekeCase, scores: list[float]) -> None:
    """A correct variant stays within :data:`Z_BOUND`; a broken one must be caught."""
    worst = max(abs(z) for z in scores)
    print(f"\n{case.name} ({'broken' if case.broken else 'correct'}): max |z| = {worst:.2f}; "
          f"z = {np.round(scores, 2)}")
    if case.broken:
        assert worst > Z_BOUND, (case.name, scores)
    else:
        assert worst < Z_BOUND, (case.name, scores)


def conjugate_geweke(update: Callable[[jax.Array, jax.Array, jax.Array], jax.Array], *,
                     n_obs: int, dim: int, chains: int, iterations: int, seed: int) -> list[float]:
    """The successive-conditional simulator on the conjugate Gaussian model.

    ``update(key, θ, y) -> θ′`` is one step of the transition under test on p(θ | y); then
    y′ ~ p(y | θ′). Records, per coordinate d: θ_d, θ_d² − 1 and r_d² − 1, r the standardised
    residual (θ′ − E[θ | y]) √(1 + n) of the new θ about the exact posterior mean given the y it was
    drawn with — (θ′, y) is a draw from p(θ, y) too, so r² has mean 1 — and, pooled over the
    (exchangeable) coordinates, Σ_d θ_d² − d and Σ_d r_d² − d. θ's moments see a wrong stationary
    θ-marginal; r's see a transition that leaves a wrong p(θ | y) invariant even when the
    θ-marginal survives (a data-augmentation chain on half the data).
    """

    def init(key):
        k_theta, k_y = jax.random.split(key)
        theta = jax.random.normal(k_theta, (dim,))
        return theta, theta + jax.random.normal(k_y, (n_obs, dim))

    def iterate(key, carry):
        theta, y = carry
        k_step, k_y = jax.random.split(key)
        new = update(k_step, theta, y)
        mean, precision = conjugate_posterior(y)
        residual = (new - mean) * jnp.sqrt(precision)
        pooled = jnp.stack([jnp.sum(new**2) - dim, jnp.sum(residual**2) - dim])
        record = jnp.concatenate([new, new**2 - 1.0, residual**2 - 1.0, pooled])
        return (new, new + jax.random.normal(k_y, (n_obs, dim))), record

    return geweke_z_scores(geweke_records(init, iterate, chains=chains, iterations=iterations,
                                          seed=seed))
