"""The fast/slow contract of seed 004 (Neal 2010, §2–3): a split θ = (x₁ slow, x₂ fast).

A model may declare one or more splits (``Model.splits``, by name). A split says which
coordinates of θ are slow and which fast, and gives

- ``prepare(x₁) -> cache``: the expensive part (an O(n³) Cholesky or eigendecomposition for a
  GP), done once per slow value;
- ``fast_log_density(cache, x₁, X₂) -> (K,)``: log π(x₁, x₂⁽ᵏ⁾) — the whole unnormalised log
  posterior, prior and Jacobian included — at K fast values ``X₂`` (K, d₂) for that cache, cheap;
- ``fast_mean``, ``fast_sd``: moments of the fast variables' prior, which the ensembles use for
  their base measure ξ (an independent ensemble draws from N(mean, sd²); the exchangeable and
  grid ensembles scale by sd). Any ξ keeps the ensemble update exact; these only make it
  efficient. Where the fast prior depends on x₁ (a hierarchy), give marginal moments.

:func:`generic_split` is the fallback for any model: cache = x₁, the fast density = the full
density at each member. Exact, no speed-up; tests use it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from tempering.numerics import finite_or_neg_inf

Array = jax.Array


class FastSlowSplit(NamedTuple):
    """A split of θ into slow variables x₁ (``slow_dim`` of them) and fast ones x₂ (``fast_dim``).

    ``parts(θ) -> (x₁, x₂)`` and ``join(x₁, x₂) -> θ`` are inverse maps with unit Jacobian (a
    selection of coordinates, or a linear change such as log ψ = log σ − log η), so π has the same
    density in (x₁, x₂) as in θ. ``slow_names`` / ``fast_names`` label the variables in reports.
    """

    name: str
    slow_names: tuple[str, ...]
    fast_names: tuple[str, ...]
    parts: Callable[[Array], tuple[Array, Array]]
    join: Callable[[Array, Array], Array]
    prepare: Callable[[Array], Any]
    fast_log_density: Callable[[Any, Array, Array], Array]
    fast_mean: np.ndarray
    fast_sd: np.ndarray

    @property
    def slow_dim(self) -> int:
        return len(self.slow_names)

    @property
    def fast_dim(self) -> int:
        return len(self.fast_names)

    def log_density_members(self, cache: Any, x1: Array, members: Array) -> Array:
        """``fast_log_density`` with non-finite values read as −∞ (a member of zero density)."""
        return finite_or_neg_inf(self.fast_log_density(cache, x1, members))


def coordinate_maps(dim: int, fast: tuple[int, ...]) -> tuple[Callable, Callable]:
    """``parts`` and ``join`` for a split that selects the coordinates ``fast`` of θ."""
    slow = jnp.asarray([i for i in range(dim) if i not in fast], dtype=jnp.int32)
    fast_idx = jnp.asarray(fast, dtype=jnp.int32)

    def parts(theta: Array) -> tuple[Array, Array]:
        return theta[slow], theta[fast_idx]

    def join(x1: Array, x2: Array) -> Array:
        theta = jnp.zeros(dim, dtype=jnp.result_type(x1, x2))
        return theta.at[slow].set(x1).at[fast_idx].set(x2)

    return parts, join


def generic_split(model: Any, fast: tuple[int, ...], fast_mean: Any, fast_sd: Any,
                  name: str = "generic") -> FastSlowSplit:
    """Any model's split with fast coordinates ``fast`` of θ: the cache is x₁ itself and each
    member costs a full density evaluation (exact, no speed-up)."""
    fast = tuple(int(i) for i in fast)
    if not fast or len(fast) >= model.dim or len(set(fast)) != len(fast) \
            or min(fast) < 0 or max(fast) >= model.dim:
        raise ValueError(f"fast coordinates {fast} must be distinct, within 0..{model.dim - 1}, "
                         "and leave at least one slow coordinate")
    parts, join = coordinate_maps(model.dim, fast)

    def fast_log_density(cache: Array, x1: Array, members: Array) -> Array:
        return jax.vmap(lambda x2: model.log_density(join(cache, x2)))(members)

    slow_names = tuple(f"theta[{i}]" for i in range(model.dim) if i not in fast)
    return FastSlowSplit(name, slow_names, tuple(f"theta[{i}]" for i in fast), parts, join,
                         lambda x1: x1, fast_log_density,
                         np.asarray(fast_mean, float) * np.ones(len(fast)),
                         np.asarray(fast_sd, float) * np.ones(len(fast)))
