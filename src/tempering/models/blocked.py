"""A tall i.i.d. model's log likelihood summed over blocks of rows, value and gradient in one
pass, for samplers that evaluate it on a batch of states at once (a tempering ladder's rungs ×
chains).

log p(X | θ) = Σ_i ℓ_i(θ) is the model's per-datum terms (``log_lik_terms``) summed over blocks
of at most :data:`BLOCK_ROWS` rows, the blocks by ``lax.scan``; its derivative is the same scan of
each block's value and gradient (``jax.custom_jvp``), so reverse mode keeps the gradient (d
numbers) and not every term's intermediates. Why: batched over B states, plain autodiff holds
B × n × (the terms' width) intermediates at once, which on tall data leave the caches and make
the evaluation memory-bound. Measured (2 cores, float32, 2026-11-29, value and gradient
``vmap``ped over B states): the 3-component ``mixture`` at n = 10⁵, B = 44 (PT's 11 rungs × 4
chains), 165 → 41 ms; B = 4, 10.8 → 6.7 ms; at n = 2·10⁴, B = 44, 37.6 → 8.7 ms;
``logistic`` with d = 10, B = 4 at n = 10⁶, 48.5 → 23.4 ms, and at n = 10⁵ about even (2.3 →
2.6 ms, d = 50 4.2 → 4.6 ms). A single state (B = 1) runs slower in blocks (the logistic's
matrix–vector products at n = 10⁶, 8.1 → 14.3 ms), so only the tempering ladders use it, whose
batches are rungs × chains or the chains on a subset rung
(:mod:`tempering.ladders.tempering`); the single kernels' target keeps the model's own. Below
two blocks of 8192 rows it paid for some batches and not others (the mixture at n = 10⁴ in two
blocks: B = 44 6.6 → 4.2 ms, B = 20 2.0 → 2.9 ms), so blocks start there.

Written by hand: neither JAX nor BlackJAX sums a likelihood in blocks with its gradient. The sum's
order differs from one ``jnp.sum`` over all terms, so values agree to rounding, not bit for bit.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from tempering.models.base import Model
from tempering.numerics import finite_or_neg_inf

#: Rows per block (module docstring: 2048–8192 rows did best on both models).
BLOCK_ROWS = 8192


def blocked_sum(row_terms: Callable[[jax.Array, Any], jax.Array]
                ) -> Callable[[jax.Array, Any], jax.Array]:
    """(θ, rows) ↦ Σ_i ``row_terms``(θ, rows)_i over blocks of at most :data:`BLOCK_ROWS` rows,
    for any pytree ``rows`` with a leading axis of static length n (constants or traced, a
    subset's gather): ⌈n / :data:`BLOCK_ROWS`⌉ blocks of equal size and a remainder of fewer
    rows than blocks; below two blocks' rows, one plain sum. Differentiable in θ only: the
    rule reads θ's tangent and drops the rows' (they are data)."""

    def block_sum(theta, rows):
        return jnp.sum(row_terms(theta, rows))

    def split(rows):
        n = jax.tree.leaves(rows)[0].shape[0]
        count = -(-n // BLOCK_ROWS)
        size = n // count
        blocks = jax.tree.map(lambda a: a[:count * size].reshape((count, size) + a.shape[1:]),
                              rows)
        rest = jax.tree.map(lambda a: a[count * size:], rows)
        return blocks, (rest if n > count * size else None)

    @jax.custom_jvp
    def total(theta, rows):
        blocks, rest = split(rows)
        value = jnp.sum(jax.lax.map(lambda block: block_sum(theta, block), blocks))
        return value if rest is None else value + block_sum(theta, rest)

    @total.defjvp
    def value_and_derivative(primals, tangents):
        (theta, rows), tangent = primals, tangents[0]
        blocks, rest = split(rows)

        def add_block(carry, block):
            value, grad = jax.value_and_grad(block_sum)(theta, block)
            return (carry[0] + value, carry[1] + grad), None

        # the sums in the dtypes a block gives (float64 data with a float32 θ: float64 values)
        value_type, grad_type = jax.eval_shape(jax.value_and_grad(block_sum), theta,
                                               jax.tree.map(lambda a: a[0], blocks))
        start = (jnp.zeros((), value_type.dtype), jnp.zeros(theta.shape, grad_type.dtype))
        (value, grad), _ = jax.lax.scan(add_block, start, blocks)
        if rest is not None:
            (value, grad), _ = add_block((value, grad), rest)
        return value, jnp.sum(grad * tangent).astype(value.dtype)

    def summed(theta, rows):
        if jax.tree.leaves(rows)[0].shape[0] < 2 * BLOCK_ROWS:
            return block_sum(theta, rows)
        return total(theta, rows)

    return summed


def blocks_pay(model: Model, rows: int) -> bool:
    """Whether ``rows`` rows of ``model``'s data are summed in blocks: it has per-datum terms
    and at least two blocks' rows (below, the blocks did not pay: module docstring)."""
    return model.log_lik_terms_fn is not None and rows >= 2 * BLOCK_ROWS


def blocked_log_lik(model: Model, data: Any = None) -> Callable[[jax.Array], jax.Array]:
    """θ ↦ log p(``data`` | θ) (default: the full data), in blocks (:func:`blocked_sum` of the
    model's terms) where :func:`blocks_pay`, else the model's own ``log_lik``; −∞ where not
    finite. The full data are cut as NumPy views (no program compiled to cut them), constants
    of the caller's program."""
    rows = model.data if data is None else data
    terms = model.log_lik_terms_fn
    if terms is None or not blocks_pay(model, int(jax.tree.leaves(rows)[0].shape[0])):
        return model.log_lik if data is None else (lambda theta: model.log_lik(theta, data))
    if data is None:
        rows = jax.tree.map(np.asarray, rows)
    total = blocked_sum(terms)
    return lambda theta: finite_or_neg_inf(total(theta, rows))


def blocked_log_density(model: Model, data: Any = None) -> Callable[[jax.Array], jax.Array]:
    """θ ↦ log p(θ) + log p(``data`` | θ) (default: the full data), the likelihood by
    :func:`blocked_log_lik` (on the full data the model's own ``log_density`` where blocks do not
    pay); −∞ where not finite."""
    if data is None and not blocks_pay(model, model.n_data):
        return model.log_density
    log_lik = blocked_log_lik(model, data)
    return lambda theta: finite_or_neg_inf(model.log_prior(theta) + log_lik(theta))


#: Rows per block of a :class:`RangeSums` per number a row holds (its docstring's measurements).
RANGE_BLOCK = 64
#: A :class:`RangeSums`' blocks are no larger than 1/MIN_BLOCKS of the data (nor below
#: RANGE_BLOCK rows): on ``mvn_mean`` (rows of 10, n = 256) 640-row blocks made one block of
#: all the rows, every level summing all 256 (MINTEE's step 1.6× slower, measured while the
#: rows' gather was still bounds-checked).
MIN_BLOCKS = 16


class RangeSums:
    """Sums of ``model``'s per-datum terms over ranges of an ordering of its rows, at traced
    bounds: for an ``order`` (row indices, a chain's permutation or a prefix of it), θ and bounds
    lo ≤ mid ≤ hi (at most the order's length),

        A = Σ_{lo ≤ j < mid} ℓ_{order[j]}(θ),   B = Σ_{mid ≤ j < hi} ℓ_{order[j]}(θ),

    in blocks of ``block`` positions (by default :data:`RANGE_BLOCK` times the numbers a row
    holds — a ``logistic`` row of d = 10 features and a label: 704 — but at most n /
    :data:`MIN_BLOCKS` and at least :data:`RANGE_BLOCK`; or the order's length if less): a
    ``fori_loop`` from block ⌊lo/b⌋ to ⌈hi/b⌉, each block's positions sliced from ``order`` (the
    last slice moved back to end at the order's end) and their terms masked to the ranges. The
    work is the ranges' rows rounded out to whole blocks, and the program is one block's,
    whatever the bounds: nested subsets of different sizes at a traced index (MINTEE's levels,
    :class:`~tempering.algorithms.equi_energy.prefix.PrefixLevelEnergy`; the SPT pilot's rungs,
    :func:`~tempering.ladders.tempering.adaptive_subset_ladder`) run through one body, where a
    ``lax.switch`` compiled a sum per size. :meth:`total` (A + B, the same arithmetic) is
    differentiable in θ: a loop of traced length has no reverse mode, so its derivative is the
    same loop of each block's value and gradient (``jax.custom_jvp``, as :func:`blocked_sum`).

    Block size. Each block is a loop iteration of about a microsecond. Measured (2 cores,
    2026-11-29, the 3-component ``mixture`` at n = 10⁴, 4 chains vmapped, float32, μs per sum
    over the first m rows of a permutation, against a sum of the gathered rows at a static m):

    ======  =======  ======  ===  ===  ===  ================
    m       static   b = 16  32   64   128  625 (n/16)
    ======  =======  ======  ===  ===  ===  ================
    10 000  346–433  253     236  235  227  469
    3 956   180–185  108     106  130  126  229
    619     43–44    32      43   47   42   38
    38      11–15    17      28   28   34   42
    6       6–11     14      22   24   27   41
    ======  =======  ======  ===  ===  ===  ================

    Blocks of tens of rows beat one sum over many (its intermediates leave the caches) and cost
    a few microseconds more on the smallest sets; blocks of n/16 rows paid for their rounding.
    Those blocks gathered their positions from a padded order; sliced instead (as now), b = 64
    took 215, 92, 21, 15 and 18 μs against 348, 149, 37, 7 and 7 for the static sums. Rows of
    many numbers favour the static sums: ``logistic`` (d = 10) at n = 2·10⁴, m = n, 2000 and
    40: static 440, 107 and 17 μs; b = 64: 1188, 134, 48; b = 256–1024: 672–694, 102–109,
    26–47 — hence blocks that grow with the row, and SPT's sampling ladder keeps its static
    subsets (:mod:`tempering.ladders.tempering`). The rows are gathered without bounds checks
    (``promise_in_bounds``: a permutation's entries): JAX's default checked gather had made
    MINTEE's step on ``mvn_mean`` 35% slower than the static switch's (sampling 1.11–1.16
    against 0.79–0.88 s for 4 × 1000 draws), unchecked 0.80 s; on ``logistic`` (d = 10,
    n = 2·10⁴, 23 levels) its 4700 start-up and warmup steps 81.4 → 60.5 s (the switch: 59.4).

    Written by hand: JAX has no sum over a traced range of rows."""

    def __init__(self, model: Model, block: int | None = None):
        self.model = model
        if block is None:  # rows of many numbers in blocks of as many numbers, ≥ 16 blocks
            width = sum(int(np.prod(np.shape(a)[1:])) for a in jax.tree.leaves(model.data))
            block = max(RANGE_BLOCK, min(RANGE_BLOCK * width, model.n_data // MIN_BLOCKS))
        self.block = min(int(block), model.n_data)
        self.total = jax.custom_jvp(self._total)
        self.total.defjvp(self._total_jvp)

    def _size(self, order: jax.Array) -> int:
        """Positions per block for this ``order``: the block, or the order's length if less."""
        return min(self.block, int(order.shape[0]))

    def _parts(self, theta, order, b, lo, mid, hi):
        """Block b's contributions to A and B at θ. The last block's slice is moved back to
        end at the order's end; the positions it shares with the block before are masked."""
        size = self._size(order)
        first = b * size
        start = jnp.minimum(first, order.shape[0] - size)
        rows = jax.lax.dynamic_slice(order, (start,), (size,))  # a copy: faster than a gather
        view = jax.tree.map(lambda a: a.at[rows].get(mode="promise_in_bounds"),
                            self.model.data)  # rows of a permutation: no bounds to check
        terms = self.model.log_lik_terms(theta, view)
        j = start + jnp.arange(size)
        own = j >= first
        low = jnp.sum(jnp.where(own & (j >= lo) & (j < mid), terms, 0.0))
        return low, jnp.sum(jnp.where(own & (j >= mid) & (j < hi), terms, 0.0))

    def _loop(self, order, body, start, lo, hi):
        size = self._size(order)
        return jax.lax.fori_loop(lo // size, (hi + size - 1) // size, body, start)

    def _zero(self, theta) -> jax.Array:
        """A sum's start, in the dtype the terms have (float64 data with a float32 θ: float64)."""
        terms = jax.eval_shape(self.model.log_lik_terms, theta,
                               jax.tree.map(lambda a: a[:1], self.model.data))
        return jnp.zeros((), terms.dtype)

    def split(self, theta, order, lo, mid, hi) -> tuple[jax.Array, jax.Array]:
        """(A, B) at θ (the class's docstring)."""
        def body(b, acc):
            low, high = self._parts(theta, order, b, lo, mid, hi)
            return acc[0] + low, acc[1] + high

        zero = self._zero(theta)
        return self._loop(order, body, (zero, zero), lo, hi)

    def _total(self, theta, order, lo, mid, hi):
        low, high = self.split(theta, order, lo, mid, hi)
        return low + high

    def _total_jvp(self, primals, tangents):
        theta, order, lo, mid, hi = primals

        def parts(t, b):
            low, high = self._parts(t, order, b, lo, mid, hi)
            return low + high, (low, high)

        def body(b, acc):
            (_, (low, high)), grad = jax.value_and_grad(parts, has_aux=True)(theta, b)
            return acc[0] + low, acc[1] + high, acc[2] + grad

        zero = self._zero(theta)
        low, high, grad = self._loop(order, body, (zero, zero, jnp.zeros_like(theta)), lo, hi)
        return low + high, jnp.sum(grad * tangents[0]).astype(zero.dtype)
