"""The model both ``barrier`` and ``gauss_mixture`` are: a mixture of isotropic Gaussians in θ as
the likelihood, on one pseudo datum, under a N(0, s² I) prior,

    log p(θ) = −|θ|²/(2 s²) − (d/2) log(2π s²),
    log L(θ) = log Σ_k w_k N(θ; μ_k, σ_k² I_d),

θ ∈ ℝ^d unconstrained, n_data = 1, α = 1. Each model computes its own exact posterior (mode
masses, centres, log evidence) and passes it in ``attrs``.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from tempering.models.base import Model, ParamSpec


def mixture_likelihood_model(name: str, means: np.ndarray, weights: np.ndarray, sds: np.ndarray,
                             prior_sd: float, options: dict[str, Any],
                             attrs: dict[str, Any]) -> Model:
    """The :class:`~tempering.models.base.Model` of K components with means (K, d), weights (K,)
    summing to 1 and standard deviations (K,), under a N(0, ``prior_sd``² I) prior."""
    means = np.asarray(means, dtype=float)
    sds = np.broadcast_to(np.asarray(sds, dtype=float), (means.shape[0],))
    dim = means.shape[1]
    # NumPy constants, not jnp arrays: each jnp.asarray or jnp.zeros here compiled a program of
    # its own (four, ~0.1 s of every run's start); JAX converts them where they are used
    m = means
    log_w = np.log(np.asarray(weights, dtype=float)) - 0.5 * dim * np.log(2 * np.pi * sds**2)
    inv_var = 1.0 / sds**2
    prior_const = -0.5 * dim * np.log(2 * np.pi * prior_sd**2)

    def log_prior(theta):
        return -0.5 * jnp.sum(theta**2) / prior_sd**2 + prior_const

    def log_lik_terms(theta, data):
        log_comp = log_w - 0.5 * jnp.sum((theta - m) ** 2, axis=1) * inv_var
        return jax.scipy.special.logsumexp(log_comp) + jnp.zeros(data["x"].shape[0])

    return Model(
        name=name,
        data={"x": np.zeros((1, 1))},
        log_prior_fn=log_prior,
        log_lik_fn=lambda theta, data: jnp.sum(log_lik_terms(theta, data)),
        log_lik_terms_fn=log_lik_terms,
        alpha=1.0,
        params=(ParamSpec("theta", (dim,)),),
        constrain_fn=lambda theta: {"theta": theta},
        init_fn=lambda key: prior_sd * jax.random.normal(key, (dim,)),
        options=options,
        attrs=attrs,
    )
