"""Cheap approximations π* of a GP posterior (seed 002 §5.2), built from a model's :class:`GPParts`.

With a subset S of m of the n points (drawn once, uniformly without replacement):

- ``sod`` (Eq. 31): the exact likelihood of the m points of S alone; O(m³).
- ``nystrom`` (Nyström–Cholesky, Eqs. 40–42): K̂ = K^(n,m) [K^(m,m)]⁻¹ K^(m,n) written as B Bᵀ with
  B = K^(n,m) R⁻¹, R the Cholesky factor of K^(m,m) + jitter·I, then Eqs. 32 and 38; O(n m²).
- ``eigen`` (eigen-exact, §5.2.3): the m largest eigenpairs of K and Eq. 37; O(n³) here (a full
  symmetric eigendecomposition — the paper keeps it only as a reference point, as it is slow).
- ``exact``: the model's own likelihood (Eqs. 29–30).

The jitter is relative: ``jitter`` × mean diagonal of K^(m,m), so it scales with the kernel.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

import jax
import jax.numpy as jnp
import numpy as np

from tempering.gp.lowrank import orthonormal_log_marginal, unit_lowrank_log_marginal
from tempering.models.base import Model, finite_or_neg_inf

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


def approximate_log_lik(model: Model, kind: Approximation, subset: np.ndarray | None = None,
                        jitter: float = 1e-8) -> Callable[[Array], Array]:
    """θ ↦ the ``kind`` approximation of log p(y | θ), with ``subset`` the m chosen indices.

    ``eigen`` uses m = len(subset) eigenpairs (the indices themselves are not used).
    """
    if kind == "exact":
        return model.log_lik
    if subset is None:
        raise ValueError(f"approximation {kind!r} needs a subset")
    idx = jnp.asarray(subset)
    if kind == "sod":
        view = jax.tree.map(lambda a: jnp.take(a, idx, axis=0), model.data)
        return lambda theta: model.log_lik(theta, view)
    if model.gp is None:
        raise TypeError(f"model {model.name} is not a GP model: no {kind} approximation")
    x, y = model.data["x"], model.data["y"]
    kernel_fn, noise_var_fn = model.gp
    m = len(subset)

    if kind == "nystrom":
        x_m = x[idx]

        def log_lik(theta):
            b = nystrom_factor(kernel_fn(theta, x, x_m), kernel_fn(theta, x_m, x_m), jitter)
            return finite_or_neg_inf(unit_lowrank_log_marginal(b, noise_var_fn(theta), y))

        return log_lik
    if kind == "eigen":

        def log_lik(theta):
            values, vectors = jnp.linalg.eigh(kernel_fn(theta, x, x))  # ascending
            s, b = values[-m:], vectors[:, -m:]
            return finite_or_neg_inf(orthonormal_log_marginal(b, s, noise_var_fn(theta), y))

        return log_lik
    raise ValueError(f"unknown approximation {kind!r} (known: {', '.join(APPROXIMATIONS)})")


def approx_cost(kind: Approximation, m: int, n: int) -> float:
    """Relative cost of one evaluation in full-Cholesky units: (m/n)³ for SOD, m²/n² for
    Nyström (O(n m²) against O(n³)), 1 for exact and eigen (a full decomposition)."""
    if kind == "sod":
        return (m / n) ** 3
    if kind == "nystrom":
        return (m / n) ** 2
    return 1.0
