"""Cheap approximations π* of a GP likelihood (seed 002 §5.2), from :class:`GPParts` and arrays.

With a subset S of m of the n points (drawn once, uniformly without replacement):

- ``sod`` (Eq. 31): the exact likelihood of the m points of S alone; O(m³).
- ``nystrom`` (Nyström–Cholesky, Eqs. 40–42): K̂ = K^(n,m) [K^(m,m)]⁻¹ K^(m,n) written as B Bᵀ with
  B = K^(n,m) R⁻¹, R the Cholesky factor of K^(m,m) + jitter·I, then Eqs. 32 and 38; O(n m²).
- ``eigen`` (eigen-exact, §5.2.3): the m largest eigenpairs of K and Eq. 37; O(n³) here (a full
  symmetric eigendecomposition — the paper keeps it only as a reference point, as it is slow).
- ``exact``: the model's own likelihood (Eqs. 29–30).

The jitter is relative: ``jitter`` × mean diagonal of K^(m,m), so it scales with the kernel.
:func:`approximate_quad_logdet` gives the two pieces (yᵀ Ĉ⁻¹ y, log det Ĉ) of each approximation
separately; :func:`lowrank_log_lik` is −½ (yᵀ Ĉ⁻¹ y + log det Ĉ + n log 2π) for the two low-rank
ones. This module knows nothing of models:
:func:`tempering.ladders.approximation.approximate_log_lik` takes a model's own likelihood (with
its fast gradient) for ``exact`` and ``sod``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

import jax
import jax.numpy as jnp
import numpy as np

from tempering.gp.exact import cholesky_quad_logdet, gaussian_from_quad_logdet
from tempering.gp.lowrank import orthonormal_quad_logdet, unit_lowrank_quad_logdet
from tempering.gp.structure import GPParts
from tempering.numerics import finite_or_neg_inf

Array = jax.Array
Approximation = Literal["exact", "sod", "nystrom", "eigen"]
APPROXIMATIONS: tuple[str, ...] = ("exact", "sod", "nystrom", "eigen")


def draw_subset(seed: int, n: int, m: int) -> np.ndarray:
    """m of n indices, uniformly without replacement, from a NumPy generator seeded ``seed``."""
    return np.sort(np.random.default_rng(seed).choice(n, size=m, replace=False))


def nystrom_factor(k_nm: Array, k_mm: Array, jitter: float) -> Array:
    """B = K^(n,m) R⁻¹ with K^(m,m) + jitter·mean(diag)·I = Rᵀ R, so that B Bᵀ = K̂ (Eq. 42)."""
    m = k_mm.shape[0]
    k_mm = k_mm + jitter * jnp.mean(jnp.diag(k_mm)) * jnp.eye(m)
    chol = jnp.linalg.cholesky(k_mm)  # lower: K^(m,m) = L Lᵀ, R = Lᵀ
    return jax.scipy.linalg.solve_triangular(chol, k_nm.T, lower=True).T


def approximate_quad_logdet(parts: GPParts, x: Array, y: Array, kind: Approximation,
                            subset: np.ndarray | None = None,
                            jitter: float = 1e-8) -> Callable[[Array], tuple[Array, Array]]:
    """θ ↦ (yᵀ Ĉ⁻¹ y, log det Ĉ) for the ``kind`` approximation Ĉ of the covariance of ``y`` at
    the inputs ``x`` (a GP's :class:`~tempering.gp.structure.GPParts`).

    ``exact`` and ``sod`` factorise Ĉ by Cholesky (Eqs. 29–30; for ``sod`` Ĉ and y are those of
    the m points of ``subset``); ``nystrom`` uses Eqs. 32 and 38 with B = K^(n,m) R⁻¹ (Eq. 42);
    ``eigen`` uses Eq. 37 with the m largest eigenpairs of K. NaN where a factorisation fails.
    """
    if kind not in APPROXIMATIONS:
        raise ValueError(f"unknown approximation {kind!r} (known: {', '.join(APPROXIMATIONS)})")
    if kind != "exact" and subset is None:
        raise ValueError(f"approximation {kind!r} needs a subset")
    kernel_fn, noise_var_fn = parts
    if kind == "sod":
        idx = jnp.asarray(subset)
        x, y = jnp.take(x, idx, axis=0), jnp.take(y, idx, axis=0)

    if kind in ("exact", "sod"):

        def cholesky_pieces(theta):
            cov = kernel_fn(theta, x, x) + noise_var_fn(theta) * jnp.eye(x.shape[0])
            return cholesky_quad_logdet(cov, y)

        return cholesky_pieces
    assert subset is not None
    m = len(subset)
    if kind == "nystrom":
        x_m = x[jnp.asarray(subset)]

        def nystrom_pieces(theta):
            b = nystrom_factor(kernel_fn(theta, x, x_m), kernel_fn(theta, x_m, x_m), jitter)
            return unit_lowrank_quad_logdet(b, noise_var_fn(theta), y)

        return nystrom_pieces

    def eigen_pieces(theta):
        values, vectors = jnp.linalg.eigh(kernel_fn(theta, x, x))  # ascending
        return orthonormal_quad_logdet(vectors[:, -m:], values[-m:], noise_var_fn(theta), y)

    return eigen_pieces


def lowrank_log_lik(parts: GPParts, x: Array, y: Array, kind: Literal["nystrom", "eigen"],
                    subset: np.ndarray, jitter: float = 1e-8) -> Callable[[Array], Array]:
    """θ ↦ −½ (yᵀ Ĉ⁻¹ y + log det Ĉ + n log 2π) for the Nyström or eigen-exact Ĉ
    (:func:`approximate_quad_logdet`; ``eigen`` uses m = len(subset) eigenpairs, not the indices
    themselves). Non-finite values become −∞."""
    if kind not in ("nystrom", "eigen"):
        raise ValueError(f"lowrank_log_lik: {kind!r} is not a low-rank approximation")
    quad_logdet = approximate_quad_logdet(parts, x, y, kind, subset, jitter)
    n = y.shape[0]
    return lambda theta: finite_or_neg_inf(gaussian_from_quad_logdet(*quad_logdet(theta), n))


def approx_cost(kind: Approximation, m: int, n: int) -> float:
    """Relative cost of one evaluation in full-Cholesky units: (m/n)³ for SOD, m²/n² for
    Nyström (O(n m²) against O(n³)), 1 for exact and eigen (a full decomposition)."""
    if kind == "sod":
        return (m / n) ** 3
    if kind == "nystrom":
        return (m / n) ** 2
    return 1.0
