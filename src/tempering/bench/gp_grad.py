"""Cost of the exact GP log likelihood's value and gradient, in units of one Cholesky.

On an n × D SE-ARD problem (the ``gp_regression`` model, seed 000 Eq. 21) it times, after
compilation, the median over ``repeats`` rounds (the functions interleaved within each round, so a
change in machine load hits all of them alike) of

- one Cholesky factorisation of the n × n covariance C, ``jnp.linalg.cholesky`` (the unit; reduced
  to Σ log L_ii so that, like the likelihood, it returns a scalar rather than writing out an n × n
  factor), and for reference the bare factorisation without its symmetrisation pass (C + Cᵀ)/2,
  which the likelihood itself skips since its C is symmetric as built,
- the log likelihood alone (build C, Cholesky, two triangular solves),
- value and gradient with the hand-written VJP (:mod:`tempering.gp.exact_grad`): one Cholesky,
  C⁻¹ from it in ~(2/3) n³, then closed-form traces — ideally about 3 Choleskys' worth of flops,
- value and gradient by plain JAX autodiff through the Cholesky (the generic derivative).

The last line printed is exactly ``value+grad/cholesky = X`` (X to 2 decimals).
"""

from __future__ import annotations

import os
import time

import jax
import jax.numpy as jnp
import numpy as np
import typer

from tempering import UserInputError
from tempering.gp import gaussian_log_marginal
from tempering.models import gp_regression_model
from tempering.registry import RunnableSpec

MAX_N = 20_000  # a few n × n float64 matrices must fit in memory


def problem(n: int, dim: int, seed: int = 0):
    """The model and a θ with lengthscales √D, σ_f = 1, σ_n = 0.3 (C well conditioned)."""
    rng = np.random.default_rng(seed)
    model = gp_regression_model(rng.standard_normal((n, dim)), rng.standard_normal(n), "ard")
    theta = jnp.asarray(np.r_[np.full(dim, 0.5 * np.log(dim)), 0.0, np.log(0.3)])
    return model, theta


def timed_functions(model, theta):
    """{label: (jitted function, argument)} for the four timings."""
    kernel_fn, noise_var_fn = model.gp
    x, y = model.data["x"], model.data["y"]

    def covariance(t):
        return kernel_fn(t, x, x) + noise_var_fn(t) * jnp.eye(x.shape[0])

    def autodiff_log_lik(t):
        return gaussian_log_marginal(covariance(t), y)

    def cholesky_only(cov):  # reduced to a scalar, so no n × n result is written out
        return jnp.sum(jnp.log(jnp.diag(jnp.linalg.cholesky(cov))))

    def bare_potrf(cov):  # without jnp.linalg.cholesky's symmetrisation pass
        chol = jax.lax.linalg.cholesky(cov, symmetrize_input=False)
        return jnp.sum(jnp.log(jnp.diag(chol)))

    cov = jax.jit(covariance)(theta)
    return {
        "cholesky": (jax.jit(cholesky_only), cov),
        "cholesky (unsymmetrised)": (jax.jit(bare_potrf), cov),
        "value": (jax.jit(model.log_lik), theta),
        "value+grad (custom VJP)": (jax.jit(jax.value_and_grad(model.log_lik)), theta),
        "value+grad (plain autodiff)": (jax.jit(jax.value_and_grad(autodiff_log_lik)), theta),
    }


def run(n: int | None = None, dim: int | None = None, repeats: int = 10,
        seed: int = 0) -> dict[str, float]:
    """Print the table and the summary line; returns the median seconds by label (default
    n = 1024, D = 18)."""
    n = 1024 if n is None else n
    dim = 18 if dim is None else dim
    for name, value, low in (("n", n, 1), ("dim", dim, 1), ("repeats", repeats, 1)):
        if int(value) < low:
            raise UserInputError(f"--{name} must be at least {low} (got {value})")
    if n > MAX_N:
        raise UserInputError(f"--n must be at most {MAX_N} (got {n})")
    model, theta = problem(n, dim, seed)
    functions = timed_functions(model, theta)
    for fn, arg in functions.values():  # compile, and warm the caches
        jax.block_until_ready(fn(arg))
    samples: dict[str, list[float]] = {label: [] for label in functions}
    for _ in range(repeats):
        for label, (fn, arg) in functions.items():
            start = time.perf_counter()
            jax.block_until_ready(fn(arg))
            samples[label].append(time.perf_counter() - start)
    median = {label: float(np.median(s)) for label, s in samples.items()}
    custom = functions["value+grad (custom VJP)"][0](theta)[1]
    plain = functions["value+grad (plain autodiff)"][0](theta)[1]
    gap = float(jnp.max(jnp.abs(custom - plain)) / jnp.max(jnp.abs(plain)))

    unit = median["cholesky"]
    blas = os.environ.get("OPENBLAS_NUM_THREADS")
    typer.echo(f"GP log likelihood, SE-ARD, n = {n}, D = {dim}: median of {repeats} after "
               f"compilation ({jax.default_backend()}, {os.cpu_count()} CPUs visible"
               + (f", OPENBLAS_NUM_THREADS={blas})" if blas else ")"))
    typer.echo(f"{'':28s} {'ms':>10s} {'/cholesky':>10s}")
    for label, seconds in median.items():
        typer.echo(f"{label:28s} {1e3 * seconds:10.2f} {seconds / unit:10.2f}")
    typer.echo(f"custom vs autodiff gradient: max relative difference {gap:.1e}")
    typer.echo(f"value+grad/cholesky = {median['value+grad (custom VJP)'] / unit:.2f}")
    return median


SPEC = RunnableSpec("gp-grad", "GP log likelihood value and gradient, in Cholesky units", run)
