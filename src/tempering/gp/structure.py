"""What a GP model tells the approximations about itself.

A GP regression model's likelihood is log N(y | 0, K_θ(X, X) + σ²_θ I). The approximations of
seed 002 §5.2 (SOD, eigen-exact, Nyström–Cholesky) and the predictive distribution (Eqs. 25–28)
need the two pieces separately — the noise-free covariance function and the residual variance —
so a GP model carries a :class:`GPParts` next to its ordinary log-likelihood.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import jax

Array = jax.Array


class GPParts(NamedTuple):
    """The pieces of a GP likelihood y ~ N(0, K_θ(X, X) + σ²_θ I).

    Attributes
    ----------
    kernel_fn
        (θ, x1, x2) ↦ the noise-free covariance matrix K_θ(x1, x2).
    noise_var_fn
        θ ↦ the residual variance σ²_θ.
    """

    kernel_fn: Callable[[Array, Array, Array], Array]
    noise_var_fn: Callable[[Array], Array]
