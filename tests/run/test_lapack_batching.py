"""Per-matrix LAPACK calls under vmap (tempering/lapack_batching.py).

Batched jaxlib LAPACK calls in flight at once deadlock XLA's CPU thread pool (jaxlib 0.10). The
checks: no LAPACK call in the lowering of a vmapped GP gradient carries a batch dimension (and JAX's
own rules, restored, give batched ones — so the check can fail; they are only lowered, never run,
since running them may hang); the per-matrix rules give the
same numbers as one call per matrix, for single- and multi-output primitives, one or both
operands batched, nested vmaps and batches above the unroll size; batches small enough for jaxlib
to run inline keep one batched call; the 4-chain HMC run on the mcycle GP that hung now finishes.
"""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tempering  # noqa: F401  (installs the rules)
from tempering import lapack_batching
from tempering.models import get_model

pytestmark = pytest.mark.skipif(not lapack_batching.needed(),
                                reason="jaxlib ≥ 0.11.2 has no blocking LAPACK kernels")


def lapack_batch_dims(fn, *args) -> list[int]:
    """The batch rank of every LAPACK custom call in ``fn``'s lowering."""
    text = jax.jit(fn).lower(*args).as_text()
    calls = re.findall(r'custom_call @lapack_\w+\(.*?num_batch_dims = "(\d+)"', text)
    assert calls, "no LAPACK call found: the lowering's format changed"
    return [int(dims) for dims in calls]


@contextlib.contextmanager
def jax_own_rules():
    """JAX's batching rules back in place (the deliberately broken variant), through the public
    :func:`~tempering.lapack_batching.uninstall`."""
    lapack_batching.uninstall()
    jax.clear_caches()  # traces made under the other rules must not be reused
    try:
        yield
    finally:
        lapack_batching.install()
        jax.clear_caches()


def gp_gradient_case():
    model = get_model("gp_regression", n=150, dim=3, data_seed=1)  # n > one inverse block
    thetas = jnp.asarray(model.attrs["theta_true"]) + 0.1 * jnp.arange(4.0)[:, None]
    return jax.vmap(jax.grad(model.log_lik), in_axes=(0, None)), thetas, model


def test_vmapped_gp_gradient_makes_only_unbatched_lapack_calls():
    fn, thetas, model = gp_gradient_case()
    ours = lapack_batch_dims(fn, thetas, model.data)
    # Per chain: the Cholesky and the backward's five solves. The two solves against the vector y
    # (4 × 150² flops) stay batched: jaxlib runs a batch that small inline, without the pool.
    assert ours.count(0) == 4 * 6 and sum(d > 0 for d in ours) == 2
    with jax_own_rules():
        theirs = lapack_batch_dims(fn, thetas, model.data)
    assert sum(d > 0 for d in theirs) >= 8


def test_vmapped_gp_gradient_matches_one_chain_at_a_time():
    """(Not against JAX's batched rules: running those here can itself deadlock.)"""
    fn, thetas, model = gp_gradient_case()
    single = jax.jit(jax.grad(model.log_lik))
    np.testing.assert_allclose(np.asarray(jax.jit(fn)(thetas, model.data)),
                               np.stack([np.asarray(single(t, model.data)) for t in thetas]),
                               rtol=1e-10)


def spd_stack(batch: int, n: int, seed: int) -> np.ndarray:
    a = np.random.default_rng(seed).standard_normal((batch, n, n))
    return a @ np.swapaxes(a, -1, -2) / n + np.eye(n)


@pytest.mark.parametrize("batch", [3, lapack_batching.UNROLL + 5])  # unrolled; lax.map in groups
def test_per_matrix_rules_match_one_call_per_matrix(batch):
    n = 70  # 70³/3 flops per Cholesky: above the inline threshold even for 3 matrices
    cov = spd_stack(batch, n, batch)
    rhs = np.random.default_rng(1).standard_normal((batch, n, n))
    chol = np.linalg.cholesky(cov)
    solve = jax.vmap(lambda a, b: jax.lax.linalg.triangular_solve(a, b, left_side=True,
                                                                 lower=True))
    cases = {
        "cholesky": jnp.linalg.cholesky,
        "eigh": lambda a: jnp.linalg.eigh(a)[0],  # multiple results
        "lu": lambda a: jnp.linalg.solve(a, jnp.ones(n)),
        "qr": lambda a: jnp.abs(jnp.linalg.qr(a)[1]),
        "svd": lambda a: jnp.linalg.svd(a, compute_uv=False),
    }
    for name, fn in cases.items():
        np.testing.assert_allclose(np.asarray(jax.jit(jax.vmap(fn))(cov)),
                                   np.stack([np.asarray(fn(c)) for c in cov]),
                                   rtol=1e-9, atol=1e-11, err_msg=name)
    both = np.asarray(jax.jit(solve)(chol, rhs))
    np.testing.assert_allclose(both, np.linalg.solve(chol, rhs), rtol=1e-10)
    only_b = np.asarray(jax.jit(jax.vmap(lambda b: jax.lax.linalg.triangular_solve(
        chol[0], b, left_side=True, lower=True)))(rhs))
    np.testing.assert_allclose(only_b, np.linalg.solve(chol[0], rhs), rtol=1e-10)
    assert set(lapack_batch_dims(jax.vmap(jnp.linalg.cholesky), cov)) == {0}


def test_small_batches_keep_the_batched_call_jaxlib_runs_inline():
    small, large = spd_stack(3, 6, 0), spd_stack(3, 100, 0)
    assert lapack_batch_dims(jax.vmap(jnp.linalg.cholesky), small) == [1]
    assert lapack_batch_dims(jax.vmap(jnp.linalg.cholesky), large) == [0, 0, 0]
    np.testing.assert_allclose(np.asarray(jax.jit(jax.vmap(jnp.linalg.cholesky))(small)),
                               np.linalg.cholesky(small), rtol=1e-12)


def test_nested_vmaps_stay_unbatched():
    cov = spd_stack(6, 100, 0).reshape(2, 3, 100, 100)
    nested = jax.vmap(jax.vmap(jnp.linalg.cholesky))
    np.testing.assert_allclose(np.asarray(jax.jit(nested)(cov)), np.linalg.cholesky(cov),
                               rtol=1e-10, atol=1e-12)
    assert lapack_batch_dims(nested, cov) == [0] * 6


@pytest.mark.slow  # ~16 s; the per-matrix rule itself is checked by the tests above
def test_four_chain_hmc_on_a_gp_finishes():
    """This run hung for ever (every thread parked on a futex) with batched LAPACK calls; it runs
    in a child process so that a deadlock fails the test instead of hanging the suite."""
    script = ("import tempering\n"
              "from tempering.algorithms import get_sampler\n"
              "m = tempering.get_model('gp_regression', data='mcycle')\n"
              "idata = tempering.sample(m, get_sampler('hmc', m), key=0, chains=4, warmup=30,"
              " draws=10, progress=False)\n"
              "print('draws', idata.posterior.sizes['chain'], idata.posterior.sizes['draw'])\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["draws", "4", "10"]


def test_uninstall_restores_jax_rules_and_install_brings_ours_back():
    assert lapack_batching.installed()
    matrices = jnp.stack([jnp.eye(80) * (i + 1.0) for i in range(3)])
    assert lapack_batch_dims(jax.vmap(jnp.linalg.cholesky), matrices) == [0, 0, 0]
    with jax_own_rules():
        assert not lapack_batching.installed()
        assert lapack_batch_dims(jax.vmap(jnp.linalg.cholesky), matrices) == [1]
    assert lapack_batching.installed()
    assert lapack_batch_dims(jax.vmap(jnp.linalg.cholesky), matrices) == [0, 0, 0]


@pytest.mark.parametrize("value, enabled", [(None, True), ("0", False), (" 0 ", False),
                                            ("1", True)])
def test_environment_variable_reads_zero_as_opt_out(monkeypatch, value, enabled):
    monkeypatch.delenv(lapack_batching.ENV_SWITCH, raising=False)
    if value is not None:
        monkeypatch.setenv(lapack_batching.ENV_SWITCH, value)
    assert lapack_batching.enabled_by_environment() is enabled


def test_environment_variable_opts_out_at_import():
    """``TEMPERING_LAPACK_PER_MATRIX=0`` leaves JAX's rules in a fresh process (one subprocess:
    the default, rules installed with the package's JAX settings, is this process's own)."""
    env = {**os.environ, lapack_batching.ENV_SWITCH: "0"}
    installed = False
    script = ("import tempering.models  # the package's JAX settings come with its first JAX part\n"
              "from tempering import lapack_batching\n"
              "print(lapack_batching.installed())")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(installed)
