"""Monte Carlo standard errors of smooth functions of chain averages (the delta method).

An estimator g(ā) of a smooth function of the averages ā = (1/CD) Σ_{c,t} a_ct of K per-draw
series (ratio estimators: self-normalised importance sampling, per-rung means of a tempering
chain, stepping-stone ratios) has, to first order, the error ∇g(ā) · (ā − E a), the average of the
scalar series ψ_ct = ∇g(ā) · a_ct. Its MCSE is therefore ArviZ's MCSE of the mean of ψ, which
accounts for autocorrelation within chains and for several chains. The gradient comes from JAX.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np

from tempering.lazy_arviz import arviz
from tempering.precision import in_float64


@in_float64
def delta_mcse(series: np.ndarray, estimator: Callable[[jax.Array], jax.Array]) -> float:
    """MCSE of ``estimator(series.mean((0, 1)))`` for ``series`` of shape (chain, draw, K).

    NaN when the estimator or its gradient is not finite, or with fewer than 4 draws per chain.
    """
    az = arviz()
    series = np.asarray(series, dtype=float)
    if series.shape[1] < 4:
        return float("nan")
    means = jnp.asarray(series.mean(axis=(0, 1)))
    grad = np.asarray(jax.grad(lambda a: jnp.asarray(estimator(a), float))(means))
    if not np.all(np.isfinite(grad)):
        return float("nan")
    psi = series @ grad
    if np.ptp(psi) == 0:
        return 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # one chain: ArviZ cannot check the shape
        return float(az.mcse(psi, method="mean"))
