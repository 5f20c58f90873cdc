"""Posterior predictive checks of a classifier on its held-out test set.

With draws θ_1..θ_S and test points (x*_t, y*_t), t = 1..T, the posterior predictive class
probabilities are p̄_t(k) = (1/S) Σ_s p(k | x*_t, θ_s), computed in logs as
log p̄_t(k) = logsumexp_s log p(k | x*_t, θ_s) − log S. The checks are

    test_accuracy       = (1/T) Σ_t 1[argmax_k p̄_t(k) = y*_t],
    test_log_predictive = (1/T) Σ_t log p̄_t(y*_t)   (mean log predictive density per test point).

The draws are scanned one at a time (a running logsumexp), so memory is T × K whatever S is.
"""

from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np

Array = jax.Array


def predictive_checks(log_probs_fn: Callable[[Array], Array], labels: np.ndarray
                      ) -> Callable[[Array], dict[str, Array]]:
    """The ``Model.predictive_checks`` hook for a classifier.

    Parameters
    ----------
    log_probs_fn
        θ ↦ (T, K) log class probabilities of the T test points (closing over the test inputs).
    labels
        (T,) test labels as class indices 0..K−1 (the columns of ``log_probs_fn``'s output).

    Returns
    -------
    A function of θ draws (S, dim) returning ``{"test_accuracy", "test_log_predictive"}``
    (scalars) as defined above.
    """
    y = jnp.asarray(labels, dtype=jnp.int32)

    @jax.jit
    def checks(thetas: Array) -> dict[str, Array]:
        thetas = jnp.atleast_2d(jnp.asarray(thetas, dtype=float))
        first = log_probs_fn(thetas[0])

        def add(total, theta):
            return jnp.logaddexp(total, log_probs_fn(theta)), None

        total, _ = jax.lax.scan(add, first, thetas[1:])
        log_mean = total - jnp.log(thetas.shape[0])
        picked = jnp.take_along_axis(log_mean, y[:, None], axis=1)[:, 0]
        hits = (jnp.argmax(log_mean, axis=1) == y).astype(float)
        return {"test_accuracy": jnp.mean(hits),
                "test_log_predictive": jnp.mean(picked)}

    return checks
