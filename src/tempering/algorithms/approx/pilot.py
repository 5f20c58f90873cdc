"""Choosing the size m of a cheap approximation π* from a pilot (seed 002 §3 and §6.2).

Mapping to a discretizing chain accepts a mark move from x_k to x_k′ with (Eq. 13)

    min(1, [π(x_k′) / π*(x_k′)] / [π(x_k) / π*(x_k)]),

so it works when log π − log π* varies little where the chain goes: "we need π* to be a fast but
good approximation to π" (§3), and for Nyström–Cholesky "quite good results are obtained if such
a value for m makes π* be very close to π" (§6.2, where m was tuned by trial and error). The pilot
makes that trial automatic:

1. find the posterior mode θ̂ of π (BFGS on −log π from the prior mean of the model's
   initialisation, full evaluations counted);
2. take the Laplace approximation N(θ̂, H⁻¹), H the Hessian of −log π at θ̂ by central differences
   of the gradient (2·dim full evaluations), and draw ``draws`` pilot points from it;
3. for m in a sequence growing by factors of √2 (doubling every second size; the last one n − 1,
   or n for eigen-exact), on the very subset the sampler will use
   (``draw_subset(subset_seed, n, m)``), move every pilot point x₀ by s steps of the inner
   kernel R on π*_m to x₁ — where a forward mark move goes — and estimate the mark acceptance as
   the mean of min(1, w(x₁)/w(x₀)), w = π/π*_m; bisect the sequence for the m where it first
   reaches ``min_accept`` (each size tried compiles a program of its own, since m is a shape:
   a bisection tries 4 of the 9 sizes at n = 256 where a scan from the smallest tried up to 9;
   default bar 0.4: on GP-ARD, D = 3, n = 256, a Nyström chain at pilot acceptance
   0.37 (m = 128, run 0.35) gave R-hat 1.10 over 4 × 500 draws, at 0.42 (m = 181, run 0.46)
   R-hat 1.03).

Why not the sd of log π − log π* over π's draws alone, Wang & Neal's "varies little" (recorded as
``sd_by_m``)? It misses a π* much broader than π: for SOD on a small subset that sd stays below
about √(dim/2) (the sd of χ²_dim / 2) however small m is, while R then takes the chain where
π/π* is tiny (GP-ARD, D = 3, n = 256: SOD m = 64 has sd 1.5 and mark acceptance 0.05). And it
is too strict for a biased but equally wide π* (Nyström m = 128 there: sd 2.2, acceptance 0.38),
because x₀ and x₁ are close and their errors correlated.

The pilot only picks an option: the chosen m is a constant of the run, so the sampler stays exact
whatever the pilot found. If no m passes, the largest is taken and ``passed`` is false.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from tempering.gp.approx import Approximation, draw_subset
from tempering.kernels.base import BoundKernel
from tempering.ladders.approximation import approximate_rung, approximation_cost
from tempering.models.base import Model
from tempering.numerics import run_steps

Array = jax.Array

#: Pilot draws from the Laplace approximation, the pilot mark acceptance to reach, first size.
PILOT_DRAWS = 32
MIN_ACCEPT = 0.4
FIRST_M = 16


def pilot_sizes(n: int, approx: Approximation, first: int = FIRST_M) -> list[int]:
    """round(first·√2^k) below the largest valid size, then the largest valid size (n − 1 for SOD
    and Nyström, n for eigen-exact): 16, 23, 32, 45, 64, 91, 128, 181, 256, …"""
    largest = n if approx == "eigen" else n - 1
    sizes: list[int] = []
    k = 0
    while (m := int(round(max(1, first) * np.sqrt(2.0) ** k))) < largest:
        if not sizes or m > sizes[-1]:
            sizes.append(m)
        k += 1
    return [*sizes, largest]


def laplace_pilot(model: Model, draws: int, seed: int) -> tuple[np.ndarray, dict[str, Any]]:
    """``draws`` points from N(θ̂, H⁻¹) around the mode of π, and the pilot's cost and mode.

    Full evaluations are counted (a value-and-gradient as one). The mode is scipy's BFGS; the
    Hessian comes from central differences of the gradient, not ``jax.hessian``, because the exact
    GP likelihood's gradient is a reverse-mode-only ``custom_vjp`` (``gp/exact_grad.py``). A
    Hessian that is not positive definite (a mode not found) falls back to its absolute diagonal.
    """
    import scipy.optimize  # ~0.3 s: only when the pilot runs, not with every sampler

    value_and_grad = jax.jit(jax.value_and_grad(lambda t: -model.log_density(t)))
    count = [0]

    def fun(theta):
        count[0] += 1
        value, grad = value_and_grad(theta)
        value = float(value)
        if not np.isfinite(value):
            return 1e300, np.zeros_like(theta)
        return value, np.asarray(grad, dtype=float)

    start = np.asarray(jax.jit(lambda seed: jnp.mean(jax.vmap(model.init_position)(
        jax.random.split(jax.random.key(seed), 16)), axis=0))(np.int64(seed)), dtype=float)
    found = scipy.optimize.minimize(fun, start, jac=True, method="BFGS",
                                    options={"maxiter": 200, "gtol": 1e-6})
    mode = found.x
    step = 1e-4
    grads = [fun(mode + sign * step * e)[1] for e in np.eye(mode.size) for sign in (1.0, -1.0)]
    hess = np.array([(grads[2 * i] - grads[2 * i + 1]) / (2 * step) for i in range(mode.size)])
    hess = 0.5 * (hess + hess.T)
    try:
        cov = np.linalg.inv(hess)
        chol = np.linalg.cholesky(cov)
    except np.linalg.LinAlgError:
        chol = np.diag(1.0 / np.sqrt(np.abs(np.diag(hess)) + 1e-12))
    rng = np.random.default_rng(seed)
    points = mode + rng.standard_normal((draws, mode.size)) @ chol.T
    return points, {"mode": mode.tolist(), "mode_evals": count[0]}


def one_at_a_time(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` over the leading axis of its arguments, one pilot draw after another
    (``lax.map``): a pilot's 32 draws under ``vmap`` would batch every Cholesky and
    triangular solve of a GP density, and :mod:`tempering.lapack_batching` unrolls such a batch
    into one LAPACK call per matrix — 32 copies of the factorisations at every call site of the
    density. On GP-ARD (D = 3, n = 256, Nyström, the slice kernel) each size's program
    compiled in 6.5–7.8 s batched and 1.6–2.0 s mapped (2026-11-28, 2 cores); the pilot's
    few steps per draw run as fast either way."""
    return lambda *xs: jax.lax.map(lambda a: fn(*a), xs)


def _successors(bound: BoundKernel, log_density: Callable[[Array], Array],
                points: Array | np.ndarray, key: Any, steps: int
                ) -> tuple[Array, Array, Array, Array]:
    """``steps`` steps of R (the inner kernel on π*) from every pilot point x₀ to x₁: x₁, the
    evaluations spent, and log π*(x₀), log π*(x₁) — one program per π*."""
    kernel = bound.make(log_density, bound.params)

    def one(k, x):
        state, n_evals = run_steps(kernel.step, k, kernel.init(x), steps,
                                   lambda info: info.n_evals)
        return state.position, n_evals, log_density(x), log_density(state.position)

    return jax.jit(lambda seed, points: one_at_a_time(one)(  # keys inside: nothing op by op
        jax.random.split(jax.random.key(seed), points.shape[0]), points))(key, points)


def bisect(count: int, passes: Callable[[int], bool]) -> int:
    """The index i < ``count`` with ``passes(i)`` and not ``passes(i − 1)`` (or i = 0) that a
    bisection finds, calling ``passes`` about log₂(count + 1) times; ``count − 1`` when none
    passes. Where ``passes`` is monotone (false, then true) it is the first index that passes.
    Every index tried below the result failed and every one tried at or above it passed."""
    failed, passed = -1, count  # bounds: index -1 fails, index count passes (neither is tried)
    while passed - failed > 1:
        middle = (failed + passed) // 2
        if passes(middle):
            passed = middle
        else:
            failed = middle
    return min(passed, count - 1)


def choose_m(model: Model, approx: Approximation, bound: BoundKernel, *, subset_seed: int = 0,
             jitter: float = 1e-8, draws: int = PILOT_DRAWS, min_accept: float = MIN_ACCEPT,
             first: int = FIRST_M, s: int = 1) -> tuple[int, dict[str, Any]]:
    """The m of :func:`pilot_sizes` that a bisection finds (:func:`bisect`) whose pilot mark
    acceptance — the mean over the Laplace draws x₀ of Eq. 13's min(1, w(x₁)/w(x₀)),
    w = π/π*_m, x₁ ``s`` steps of ``bound`` on π*_m from x₀ — reaches ``min_accept`` while the
    next smaller size's does not (the smallest that passes where acceptance grows with m), and
    the pilot's record for the run's facts: per size tried, that acceptance (``accept_by_m``)
    and the sd of log π − log π*_m over the draws (``sd_by_m``, Wang & Neal's "varies
    little"); the pilot's cost in full evaluations, the mode, and whether
    the bar was met (``passed``). Non-finite values count as rejections."""
    points, record = laplace_pilot(model, draws, subset_seed)
    theta = points  # NumPy into the jitted densities: a transfer, no program
    log_density = jax.jit(one_at_a_time(model.log_density))  # one program for every size
    log_pi = np.asarray(log_density(theta))
    cost = float(record.pop("mode_evals") + 2 * points.shape[1] + draws)
    accept: dict[int, float] = {}
    spread: dict[int, float] = {}

    def passes(m: int) -> bool:
        nonlocal cost
        rung = approximate_rung(model, approx, draw_subset(subset_seed, model.n_data, m), jitter)
        moved, n_evals, log_star0, log_star1 = _successors(bound, rung.log_density, theta,
                                                           np.int64(subset_seed + m), s)
        log_w0 = log_pi - np.asarray(log_star0)
        log_w1 = np.asarray(log_density(moved)) - np.asarray(log_star1)
        cost += draws * (1.0 + (2.0 + float(np.mean(np.asarray(n_evals))))
                         * approximation_cost(model, approx, m))
        with np.errstate(invalid="ignore", over="ignore"):
            ratio = np.minimum(1.0, np.exp(log_w1 - log_w0))
        accept[m] = float(np.mean(np.where(np.isfinite(ratio), ratio, 0.0)))
        spread[m] = float(np.std(log_w0, ddof=1)) if np.all(np.isfinite(log_w0)) else np.inf
        return accept[m] >= min_accept

    sizes = pilot_sizes(model.n_data, approx, first)
    chosen = sizes[bisect(len(sizes), lambda i: passes(sizes[i]))]
    return chosen, {"m": chosen, "passed": accept[chosen] >= min_accept,
                    "min_accept": min_accept,
                    "accept_by_m": {str(m): accept[m] for m in sorted(accept)},
                    "sd_by_m": {str(m): spread[m] for m in sorted(spread)},
                    "pilot_draws": draws, "pilot_cost": cost, **record}
