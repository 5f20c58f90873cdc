"""One LAPACK call per matrix under ``vmap`` on CPU: a workaround for a deadlock in jaxlib < 0.11.2.

JAX lowers a batched Cholesky, triangular solve, eigendecomposition … on CPU to one LAPACK
kernel of jaxlib over the whole batch. In jaxlib < 0.11.2 that kernel splits a large enough
batch into tasks on XLA's intra-op thread pool and *blocks* its own pool thread until they finish
(``jax::ParallelBatchMap``). XLA runs independent operations concurrently on the same pool, so
when as many batched LAPACK calls are in flight as the pool has threads — two on a 2-core machine —
every thread waits for tasks that no thread is free to run, and the process hangs for ever with
all threads parked on futexes. We hit it twice (2026-11-21): the 4-chain HMC on the mcycle GP with
the hand-written gradient (independent triangular solves; gdb: both pool threads in
``BlockingCounter::Wait`` under ``lapack_dtrsm_ffi``) and the 4-chain Nyström discretizing chain
(two Choleskys, ``lapack_dpotrf_ffi``). Chains are batched with ``vmap`` throughout this library,
so any sampler could meet it.

:func:`install` replaces the ``vmap`` rule of each LAPACK-backed primitive by one that calls the
primitive once per matrix, unrolled: an unbatched LAPACK call runs inline and never waits, and
XLA still spreads the independent per-matrix calls over its threads, so chains keep running in
parallel. Batches larger than :data:`UNROLL` go through ``lax.map`` in groups of that size, to
bound the program size. Batches so small that jaxlib runs them inline keep JAX's batched call
(:data:`INLINE_FLOPS`). Matrices stacked by hand (an explicit leading axis rather than ``vmap``)
still reach LAPACK batched; the library's samplers do not build such stacks.

The rule applies only when the default backend is CPU and jaxlib is older than 0.11.2 (which
compiles the blocking path out); otherwise JAX's own rule runs. Draws do not change: each matrix
is factorised by the same LAPACK routine either way. JAX has no public switch for this, so the
rules are set through ``jax.interpreters.batching.fancy_primitive_batchers`` — a documented
extension point for primitives' batching rules.

Containment: :mod:`tempering.jax_setup`, imported by every part of the package that uses JAX,
calls :func:`install` unless the environment variable ``TEMPERING_LAPACK_PER_MATRIX`` is ``0`` (set
it before using the package to keep JAX's rules in a process that never batches LAPACK calls under
``vmap``, or that runs on jaxlib ≥ 0.11.2 anyway);
:func:`uninstall` restores JAX's own rules at any time, and :func:`installed` tells whether ours
are in force. The override depends on jaxlib internals, which is why ``constraints.txt`` pins
jaxlib.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
from jax.interpreters import batching

#: Largest batch unrolled into separate calls; larger ones loop over groups of this size.
UNROLL = 32

#: jaxlib runs a batch inline, without the pool, when batch × flops per matrix is below 200 000
#: (``GetLapackBatchChunkSize``); below half that we keep JAX's batched call, which is cheaper
#: for small matrices than many separate calls (27% faster on the GP-approximation tests).
INLINE_FLOPS = 100_000

#: The LAPACK-backed primitives of ``jax.lax.linalg`` whose CPU kernels can block.
PRIMITIVES = ("cholesky_p", "triangular_solve_p", "eigh_p", "lu_p", "qr_p", "svd_p", "eig_p",
              "tridiagonal_solve_p")

_FIXED_JAXLIB = (0, 11, 2)
#: Set to ``0`` to keep JAX's own batching rules when the package's JAX settings are made.
ENV_SWITCH = "TEMPERING_LAPACK_PER_MATRIX"
_originals: dict[Any, Callable] = {}


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split(".")[:3] if part.isdigit())


def needed() -> bool:
    """Whether this jaxlib (< 0.11.2) has the blocking batched LAPACK kernels."""
    import jaxlib

    return _version(jaxlib.__version__) < _FIXED_JAXLIB


def _jax_rule_is_safe(primitive, args: Sequence, dims: Sequence, size: int,
                      params: dict) -> bool:
    """Whether JAX's own rule makes no LAPACK call that can block: off CPU; a triangular solve
    whose matrix is shared (JAX solves it once against all right-hand sides, unbatched); or a
    batch so small that jaxlib runs it inline (flops as in jaxlib's kernels: n³/3 for a
    Cholesky, rows · cols · (rows or cols) for a triangular solve)."""
    if jax.default_backend() != "cpu":
        return True
    if primitive is jax.lax.linalg.cholesky_p:
        n = args[0].shape[-1]
        flops = n**3 // 3
    elif primitive is jax.lax.linalg.triangular_solve_p:
        if dims[0] is None:
            return True
        b, b_dim = args[1], dims[1]
        rows, cols = (b.shape[:b_dim] + b.shape[b_dim + 1:] if b_dim is not None else b.shape)[-2:]
        flops = rows * cols * (rows if params["left_side"] else cols)
    else:
        return False
    return size * flops < INLINE_FLOPS


def _per_matrix_rule(primitive) -> Callable:
    original = _originals[primitive]

    def rule(axis_data, args: Sequence, dims: Sequence, **params):
        if all(d is None for d in dims):
            return original(axis_data, args, dims, **params)
        size = next(a.shape[d] for a, d in zip(args, dims, strict=True) if d is not None)
        if _jax_rule_is_safe(primitive, args, dims, size, params):
            return original(axis_data, args, dims, **params)
        mapped = [jnp.moveaxis(a, d, 0) for a, d in zip(args, dims, strict=True) if d is not None]

        def one(items: Sequence):
            it = iter(items)
            return primitive.bind(*(next(it) if d is not None else a
                                    for a, d in zip(args, dims, strict=True)), **params)

        out: Any
        if size <= UNROLL:
            outs = [one([m[i] for m in mapped]) for i in range(size)]
            if primitive.multiple_results:
                out = [jnp.stack(parts) for parts in zip(*outs, strict=True)]
            else:
                out = jnp.stack(outs)
        else:  # lax.map's inner vmap brings each group of UNROLL back to this rule, unrolled
            out = jax.lax.map(one, mapped, batch_size=UNROLL)
        return (out, [0] * len(out)) if primitive.multiple_results else (out, 0)

    return rule


def enabled_by_environment() -> bool:
    """False when ``TEMPERING_LAPACK_PER_MATRIX`` is ``0`` (the documented opt-out)."""
    return os.environ.get(ENV_SWITCH, "1").strip() != "0"


def installed() -> bool:
    """Whether the per-matrix rules are in force."""
    return bool(_originals)


def uninstall() -> None:
    """Restore JAX's own ``vmap`` rules (idempotent). Functions already traced keep the rules
    they were traced with; jit caches are not cleared."""
    for primitive, rule in _originals.items():
        batching.fancy_primitive_batchers[primitive] = rule
    _originals.clear()


def install() -> None:
    """Set the per-matrix ``vmap`` rules (idempotent; a no-op on jaxlib ≥ 0.11.2)."""
    if not needed():
        return
    for name in PRIMITIVES:
        primitive = getattr(jax.lax.linalg, name, None)
        if primitive is None or primitive in _originals:
            continue
        if primitive not in batching.fancy_primitive_batchers:
            continue
        _originals[primitive] = batching.fancy_primitive_batchers[primitive]
        batching.fancy_primitive_batchers[primitive] = _per_matrix_rule(primitive)
