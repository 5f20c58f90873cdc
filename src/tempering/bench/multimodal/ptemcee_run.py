"""ptemcee (Vousden, Farr & Mandel 2016): parallel-tempered affine-invariant ensembles, at the
settings its paper and README recommend — ``ntemps`` temperatures with T_max = ∞ (the hottest
chain samples the prior, so its thermodynamic-integration evidence is complete), the
temperature ladder adapting during burn-in (``adapt=True``) and frozen for the kept iterations,
stretch-move scale a = 2, and ``walkers_per_dim × d`` walkers per temperature (even, at least
2d). Walkers start at prior draws (the target's prior transform).

ptemcee 1.0.0 uses ``np.float`` and ``np.trapz``, which NumPy 2 removed: :func:`numpy_shims`
restores them (as ``float`` and ``np.trapezoid``) only while a run is under way — ptemcee is
imported inside it — and takes them away again, so nothing else sees them.

Its ``pool`` argument (any object with ``map``) is given :class:`BatchPool`, which evaluates all
the walkers' log likelihoods and log priors of a half-step in one vectorised call of the model's
jitted functions instead of one Python call each: ptemcee's algorithm unchanged, its likelihood
cost what a user with a vectorised likelihood would pay. log Z is ptemcee's thermodynamic
integration over the kept iterations (``log_evidence_estimate(fburnin=0)``); the draws are the
β = 1 walkers' kept iterations, one chain per walker (prefixes are estimates so far). Evaluations:
walkers × temperatures per iteration, burn-in included. The model's functions are traced and run
in its precision (``Target.in_precision``: JAX's ``enable_x64`` scope), as the library's runs
are; ptemcee's own arithmetic is NumPy's float64.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import jax
import numpy as np

from tempering.bench.multimodal.result import MethodRun
from tempering.bench.multimodal.sizes import Size
from tempering.bench.multimodal.targets import Target


@contextlib.contextmanager
def numpy_shims() -> Iterator[None]:
    """``np.float`` and ``np.trapz`` for ptemcee 1.0.0 on NumPy 2, only inside the block."""
    added = []
    for name, value in (("float", float), ("trapz", getattr(np, "trapezoid", None))):
        if not hasattr(np, name) and value is not None:
            setattr(np, name, value)
            added.append(name)
    try:
        yield
    finally:
        for name in added:
            delattr(np, name)


class BatchPool:
    """A ``pool`` for ptemcee whose ``map`` evaluates every point in one vectorised call.

    ptemcee maps its ``(log L, log prior)`` evaluator over the walkers; this pool ignores the
    evaluator it is handed and calls ``batch`` (points (n, d) → (log L (n,), log p (n,))) once.
    """

    def __init__(self, batch: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]):
        self.batch = batch
        self.calls = 0

    def map(self, fn: Any, points: Iterable[np.ndarray]) -> list[tuple[float, float]]:
        stacked = np.asarray(list(points), dtype=float)
        self.calls += len(stacked)
        log_l, log_p = self.batch(stacked)
        return list(zip(log_l.tolist(), log_p.tolist(), strict=True))


def _batch_fn(target: Target) -> Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]:
    model = target.model
    both = jax.jit(jax.vmap(lambda theta: (model.log_lik(theta), model.log_prior(theta))))

    def batch(points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        log_l, log_p = (np.asarray(a, dtype=float) for a in both(points))
        return np.where(np.isfinite(log_l), log_l, -1e300), log_p

    return batch


def run_ptemcee(target: Target, size: Size, seed: int) -> MethodRun:
    """Burn-in with ladder adaptation, then the kept iterations, in the model's precision (module
    docstring)."""
    with target.in_precision():
        return _run(target, size, seed)


def _run(target: Target, size: Size, seed: int) -> MethodRun:
    start = time.perf_counter()
    dim = target.model.dim
    walkers = max(2 * dim, size.walkers_per_dim * dim)
    walkers += walkers % 2
    rng = np.random.default_rng(seed)
    p0 = target.prior_transform(rng.uniform(1e-12, 1 - 1e-12, (size.ntemps, walkers, dim)))
    batch = _batch_fn(target)
    compile_start = time.perf_counter()
    for rows in (size.ntemps * walkers, size.ntemps * walkers // 2):  # both batch shapes
        batch(p0.reshape(-1, dim)[:rows])
    compiled = time.perf_counter() - compile_start
    pool = BatchPool(batch)
    with numpy_shims():
        import ptemcee

        sampler = ptemcee.Sampler(walkers, dim, logl=_unused, logp=_unused, ntemps=size.ntemps,
                                  Tmax=np.inf, pool=pool,
                                  random=np.random.RandomState(seed))
        burn_start = time.perf_counter()
        state = sampler.run_mcmc(p0, size.ptemcee_burn, adapt=True, storechain=False)
        burn = time.perf_counter() - burn_start
        sampling_start = time.perf_counter()
        sampler.run_mcmc(state[0], size.ptemcee_iterations, adapt=False)
        sampling = time.perf_counter() - sampling_start
        log_z, log_z_err = sampler.log_evidence_estimate(fburnin=0.0)
        betas = np.asarray(sampler.betas, dtype=float).tolist()
        swaps = np.asarray(sampler.tswap_acceptance_fraction, dtype=float).tolist()
    draws = np.asarray(sampler.chain[0], dtype=float)  # (walkers, iterations, d) at β = 1
    return MethodRun(
        "ptemcee", draws, None, float(log_z), float(log_z_err),
        {"compile": compiled, "warmup": burn, "sampling": sampling,
         "total": time.perf_counter() - start},
        float(pool.calls), "density",
        {"walkers": walkers, "ntemps": size.ntemps, "betas": betas, "swap_acceptance": swaps})


def _unused(theta: np.ndarray) -> float:
    """ptemcee's logl/logp arguments: never called, :class:`BatchPool` evaluates instead."""
    raise AssertionError("BatchPool evaluates the walkers")
