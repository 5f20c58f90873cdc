"""C⁻¹ from the Cholesky factor C = L Lᵀ in about (2/3) n³ flops, for the GP gradient.

The gradient of the GP log likelihood needs C⁻¹ entry by entry (seed 002's Eq. 30 differentiated:
½ tr((ααᵀ − C⁻¹) ∂C/∂θ)). Forming it as ``solve_triangular(L, I)`` followed by a full matrix
product costs about 3 n³ flops, nine times the n³/3 of the Cholesky factorisation itself. LAPACK's
``potri`` does it in (2/3) n³ by exploiting the triangular shapes; JAX exposes no ``potri``, so it
is rebuilt here from the primitives JAX lowers to BLAS (triangular solves and matrix products) by
recursive 2 × 2 blocking. For lower L = [[A, 0], [B, D]],

    L⁻¹ = [[A⁻¹, 0], [X, D⁻¹]],      X = −D⁻¹ B A⁻¹,
    C⁻¹ = L⁻ᵀ L⁻¹ = [[A⁻ᵀA⁻¹ + XᵀX, (D⁻ᵀX)ᵀ], [D⁻ᵀX, D⁻ᵀD⁻¹]],

where A⁻ᵀA⁻¹ and D⁻ᵀD⁻¹ are the same problem at half the size (recursion), X and D⁻ᵀX take three
triangular solves ((n/2)³ flops each), and XᵀX one product of half-size matrices.

C⁻¹ is symmetric, so :func:`inverse_blocks` returns only its lower blocks on a partition of the
rows into ranges of at most ``block``: nothing is assembled, and only the lower blocks of XᵀX are
multiplied out (as a symmetric rank-k update would), which brings the count to (2/3) n³. Consumers
that reduce over C⁻¹ (the GP gradient) work block by block; :func:`cho_inverse` assembles the full
matrix. The recursion is unrolled at trace time (shapes are static), so both are jittable and
vmappable. Its independent triangular solves run concurrently; under ``vmap`` that is safe only
because :mod:`tempering.lapack_batching` makes each LAPACK call unbatched (batched ones in flight
at once deadlocked jaxlib 0.10's thread pool).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax.lax.linalg import triangular_solve

Array = jax.Array
BLOCK = 128
Blocks = dict[tuple[int, int], Array]


def _t(m: Array) -> Array:
    return jnp.swapaxes(m, -1, -2)


def inverse_blocks(chol: Array, block: int = BLOCK) -> tuple[Blocks, list[tuple[int, int]]]:
    """Lower blocks of C⁻¹ = L⁻ᵀ L⁻¹ from the lower Cholesky factor L (batched over leading axes).

    Returns
    -------
    blocks
        {(p, q): the block of C⁻¹ with rows in range p and columns in range q}, for p ≥ q.
    ranges
        The (start, stop) row ranges, in order, each at most ``block`` long.
    """
    n = chol.shape[-1]
    if n <= block:
        eye = jnp.broadcast_to(jnp.eye(n, dtype=chol.dtype), chol.shape)
        inv = triangular_solve(chol, eye, left_side=True, lower=True)  # L⁻¹
        return {(0, 0): _t(inv) @ inv}, [(0, n)]
    h = n // 2
    a, b, d = chol[..., :h, :h], chol[..., h:, :h], chol[..., h:, h:]
    top, top_ranges = inverse_blocks(a, block)
    bottom, bottom_ranges = inverse_blocks(d, block)
    x = triangular_solve(d, b, left_side=True, lower=True)  # D⁻¹ B
    x = -triangular_solve(a, x, left_side=False, lower=True)  # X = −D⁻¹ B A⁻¹
    lower_left = triangular_solve(d, x, left_side=True, lower=True, transpose_a=True)  # D⁻ᵀ X
    k = len(top_ranges)
    out: Blocks = {}
    for (p, q), g in top.items():  # A⁻ᵀA⁻¹ + XᵀX, lower blocks only
        (p0, p1), (q0, q1) = top_ranges[p], top_ranges[q]
        out[(p, q)] = g + _t(x[..., p0:p1]) @ x[..., q0:q1]
    for (p, q), g in bottom.items():
        out[(p + k, q + k)] = g
    for p, (p0, p1) in enumerate(bottom_ranges):
        for q, (q0, q1) in enumerate(top_ranges):
            out[(p + k, q)] = lower_left[..., p0:p1, q0:q1]
    return out, top_ranges + [(start + h, stop + h) for start, stop in bottom_ranges]


def cho_inverse(chol: Array, block: int = BLOCK) -> Array:
    """C⁻¹ = L⁻ᵀ L⁻¹ from the lower Cholesky factor L, assembled (batched over leading axes)."""
    blocks, ranges = inverse_blocks(chol, block)
    rows = []
    for p in range(len(ranges)):
        row = [blocks[(p, q)] if p >= q else _t(blocks[(q, p)]) for q in range(len(ranges))]
        rows.append(jnp.concatenate(row, axis=-1))
    return jnp.concatenate(rows, axis=-2)
