"""A tall i.i.d. model's full-data log likelihood summed over blocks of rows, value and gradient in
one pass, for samplers that evaluate it on a batch of states at once (a tempering ladder's rungs
× chains).

log p(X | θ) = Σ_i ℓ_i(θ) is the model's per-datum terms (``log_lik_terms``) summed over blocks
of at most :data:`BLOCK_ROWS` rows, the blocks by ``lax.scan``; its derivative is the same scan of
each block's value and gradient (``jax.custom_jvp``), so reverse mode keeps the gradient (d
numbers) and not every term's intermediates. Why: batched over B states, plain autodiff holds
B × n × (the terms' width) intermediates at once, which on tall data leave the caches and make
the evaluation memory-bound. Measured (2 cores, float32, 2026-11-29, value and gradient
``vmap``ped over B states): the 3-component ``mixture`` at n = 10⁵, B = 44 (PT's 11 rungs × 4
chains), 165 → 41 ms; B = 4, 10.8 → 6.7 ms; B = 44 at n = 10⁴ (two blocks), 7.7 → 4.5 ms;
``logistic`` with d = 10, B = 4 at n = 10⁶, 48.5 → 23.4 ms, and at n = 10⁵ about even (2.3 →
2.6 ms, d = 50 4.2 → 4.6 ms). A single state (B = 1) runs slower in blocks (the logistic's
matrix–vector products at n = 10⁶, 8.1 → 14.3 ms), so only the tempering ladders, whose batches
are rungs × chains, use it (:func:`tempering.ladders.reference.path_density`).

Written by hand: neither JAX nor BlackJAX sums a likelihood in blocks with its gradient. The sum's
order differs from one ``jnp.sum`` over all terms, so values agree to rounding, not bit for bit.
"""

from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np

from tempering.models.base import Model
from tempering.numerics import finite_or_neg_inf

#: Rows per block (module docstring: 2048–8192 rows did best on both models).
BLOCK_ROWS = 8192


def blocked_log_lik(model: Model) -> Callable[[jax.Array], jax.Array]:
    """θ ↦ log p(X | θ) on the full data, in blocks (module docstring) when the model has
    per-datum terms and at least two blocks' rows; ``model.log_lik`` otherwise. The n rows
    split into ⌈n / :data:`BLOCK_ROWS`⌉ blocks of equal size and a remainder of fewer rows than
    blocks; −∞ where not finite."""
    n, terms = model.n_data, model.log_lik_terms_fn
    if terms is None or n < 2 * BLOCK_ROWS:
        return model.log_lik
    count = -(-n // BLOCK_ROWS)
    size = n // count
    # NumPy views of the data (no program compiled to cut them); constants of the caller's
    leaves = jax.tree.map(np.asarray, model.data)
    blocks = jax.tree.map(lambda a: a[:count * size].reshape((count, size) + a.shape[1:]),
                          leaves)
    rest = jax.tree.map(lambda a: a[count * size:], leaves)
    has_rest = n > count * size

    def block_sum(theta, rows):
        return jnp.sum(terms(theta, rows))

    @jax.custom_jvp
    def log_lik(theta):
        total = jnp.sum(jax.lax.map(lambda rows: block_sum(theta, rows), blocks))
        return total + block_sum(theta, rest) if has_rest else total

    @log_lik.defjvp
    def value_and_derivative(primals, tangents):
        (theta,), (tangent,) = primals, tangents

        def add_block(carry, rows):
            value, grad = jax.value_and_grad(block_sum)(theta, rows)
            return (carry[0] + value, carry[1] + grad), None

        start = (jnp.zeros((), theta.dtype), jnp.zeros_like(theta))
        (value, grad), _ = jax.lax.scan(add_block, start, blocks)
        if has_rest:
            (value, grad), _ = add_block((value, grad), rest)
        return value, jnp.sum(grad * tangent)

    return lambda theta: finite_or_neg_inf(log_lik(theta))
