"""GP likelihood approximations (seed 002 §5.2) against dense NumPy on the same approximate matrix.

Each approximation Ĉ (SOD, Nyström–Cholesky, eigen-exact, the generic Woodbury form and the
orthonormal form) is also built densely in NumPy from the kernel formula; its log-determinant
(``slogdet``) and quadratic form yᵀĈ⁻¹y (``solve``) must agree with the fast O(n m²) path to 1e-8
relative. Full-rank limits (Nyström with m = n, eigen-exact with m = n) must recover the exact
likelihood, and failed factorisations must give −∞ without raising, also under ``jax.grad``.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy import stats

from tempering.gp import approx
from tempering.gp.approx import APPROXIMATIONS, draw_subset
from tempering.gp.exact import LOG_2PI
from tempering.gp.lowrank import (
    lowrank_log_marginal,
    lowrank_quad_logdet,
    orthonormal_log_marginal,
    orthonormal_quad_logdet,
)
from tempering.ladders.approximation import approximate_log_lik
from tempering.models import get_model
from tempering.models.gp_const import gp_const_model


def approximate_quad_logdet(model, kind, subset=None, jitter=1e-8):
    """:func:`tempering.gp.approx.approximate_quad_logdet` on a GP model's parts and data."""
    return approx.approximate_quad_logdet(model.gp, model.data["x"], model.data["y"], kind,
                                          subset, jitter)

RTOL = 1e-8
MODELS = {
    "gp_const": dict(n=40, dim=2, kernel="ard", data_seed=3),
    "gp_regression": dict(n=40, dim=3, data_seed=5),
}


@pytest.fixture(scope="module", params=sorted(MODELS))
def model(request):
    return get_model(request.param, **MODELS[request.param])


def theta_of(model) -> jnp.ndarray:
    """Near the generating values, shifted so nothing depends on them being special."""
    return jnp.asarray(model.attrs["theta_true"]) + 0.1


def dense_kernel(model, theta: np.ndarray, x1: np.ndarray, x2: np.ndarray) -> np.ndarray:
    """The noise-free K from the formulas, in NumPy (independent of the JAX kernel code)."""
    theta = np.asarray(theta)
    d = x1[:, None, :] - x2[None, :, :]
    if model.name == "gp_const":  # c² + η² exp(−Σ_k Δ_k²/ρ_k²)   (seed 002 Eq. 24)
        rho, eta = np.exp(theta[:-2]), np.exp(theta[-2])
        return model.options["c"] ** 2 + eta**2 * np.exp(-np.sum((d / rho) ** 2, axis=-1))
    ls, sf = np.exp(theta[:-2]), np.exp(theta[-2])  # σ_f² exp(−½ Σ_d Δ_d²/ℓ_d²)   (seed 000 Eq. 21)
    return sf**2 * np.exp(-0.5 * np.sum((d / ls) ** 2, axis=-1))


def dense_pieces(cov: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    sign, logdet = np.linalg.slogdet(cov)
    assert sign > 0
    return float(y @ np.linalg.solve(cov, y)), float(logdet)


def dense_approximation(model, kind: str, theta, subset, jitter: float = 1e-8):
    """(Ĉ, y) for ``kind``, built densely in NumPy."""
    x, y = np.asarray(model.data["x"]), np.asarray(model.data["y"])
    noise = float(np.exp(2 * np.asarray(theta)[-1]))
    if kind == "sod":
        x, y = x[subset], y[subset]
    k = dense_kernel(model, theta, x, x)
    if kind == "nystrom":  # K̂ = K^(n,m) [K^(m,m) + δ I]⁻¹ K^(m,n), δ = jitter · mean diag (Eq. 42)
        k_mm = k[np.ix_(subset, subset)]
        k_mm = k_mm + jitter * np.mean(np.diag(k_mm)) * np.eye(len(subset))
        k = k[:, subset] @ np.linalg.solve(k_mm, k[subset, :])
    elif kind == "eigen":  # the m largest eigenpairs of K (§5.2.3)
        values, vectors = np.linalg.eigh(k)
        m = len(subset)
        k = vectors[:, -m:] @ np.diag(values[-m:]) @ vectors[:, -m:].T
    return k + noise * np.eye(len(y)), y


def assert_pieces(got, expected):
    quad, logdet = (float(v) for v in got)
    assert quad == pytest.approx(expected[0], rel=RTOL)
    assert logdet == pytest.approx(expected[1], rel=RTOL)


@pytest.mark.parametrize("kind", APPROXIMATIONS)
def test_each_approximation_matches_dense_numpy(model, kind):
    theta = theta_of(model)
    subset = draw_subset(11, model.n_data, 12)
    got = approximate_quad_logdet(model, kind, None if kind == "exact" else subset)(theta)
    assert_pieces(got, dense_pieces(*dense_approximation(model, kind, theta, subset)))


@pytest.mark.parametrize("kind", APPROXIMATIONS)
def test_log_lik_is_built_from_the_two_pieces(model, kind):
    theta = theta_of(model)
    subset = draw_subset(2, model.n_data, 15)
    quad, logdet = dense_pieces(*dense_approximation(model, kind, theta, subset))
    n = 15 if kind == "sod" else model.n_data
    value = float(approximate_log_lik(model, kind, subset)(theta))
    assert value == pytest.approx(-0.5 * (quad + logdet + n * LOG_2PI), rel=RTOL)


def test_sod_is_the_model_likelihood_of_the_subset(model):
    theta = theta_of(model)
    subset = draw_subset(4, model.n_data, 10)
    view = jax.tree.map(lambda a: a[subset], model.data)
    assert float(approximate_log_lik(model, "sod", subset)(theta)) == pytest.approx(
        float(model.log_lik(theta, view)), rel=1e-12)


def random_lowrank(seed: int, n: int = 30, m: int = 5):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((n, m)), rng.uniform(0.5, 2.0, m), 0.3, rng.standard_normal(n))


def test_generic_woodbury_matches_dense():
    b, s, d, y = random_lowrank(0)
    n, m = b.shape
    cov = b @ np.diag(s) @ b.T + d * np.eye(n)
    expected = dense_pieces(cov, y)
    got = lowrank_quad_logdet(jnp.asarray(b), jnp.asarray(s), d, jnp.asarray(y))
    assert_pieces(got, expected)
    assert float(lowrank_log_marginal(jnp.asarray(b), jnp.asarray(s), d, jnp.asarray(y))) == (
        pytest.approx(stats.multivariate_normal(np.zeros(n), cov).logpdf(y), rel=RTOL))
    # The seed prints det(D) = d^m in Eq. 38; the n × n identity needs dⁿ. The dense check above
    # would catch the printed version: it is off by (n − m) log d.
    assert abs(float(got[1]) - (n - m) * np.log(d) - expected[1]) > 1.0


def test_orthonormal_form_matches_dense():
    b, s, d, y = random_lowrank(1)
    b = np.linalg.qr(b)[0]  # orthonormal columns
    cov = b @ np.diag(s) @ b.T + d * np.eye(len(y))
    assert_pieces(orthonormal_quad_logdet(jnp.asarray(b), jnp.asarray(s), d, jnp.asarray(y)),
                  dense_pieces(cov, y))
    assert float(orthonormal_log_marginal(jnp.asarray(b), jnp.asarray(s), d, jnp.asarray(y))) == (
        pytest.approx(stats.multivariate_normal(np.zeros(len(y)), cov).logpdf(y), rel=RTOL))
    # Eq. 37 is only right for orthonormal B: the general Woodbury path agrees here ...
    assert_pieces(lowrank_quad_logdet(jnp.asarray(b), jnp.asarray(s), d, jnp.asarray(y)),
                  dense_pieces(cov, y))
    # ... and the orthonormal shortcut is wrong for a B that is not.
    b2, s2, d2, y2 = random_lowrank(1)
    wrong = orthonormal_quad_logdet(jnp.asarray(b2), jnp.asarray(s2), d2, jnp.asarray(y2))
    right = dense_pieces(b2 @ np.diag(s2) @ b2.T + d2 * np.eye(len(y2)), y2)
    assert abs(float(wrong[1]) - right[1]) > 1.0


def test_eigen_exact_with_all_eigenpairs_is_exact(model):
    theta = theta_of(model)
    everything = np.arange(model.n_data)
    exact = approximate_quad_logdet(model, "exact")(theta)
    full = approximate_quad_logdet(model, "eigen", everything)(theta)
    for a, b in zip(full, exact, strict=True):
        assert float(a) == pytest.approx(float(b), rel=1e-10)
    assert float(approximate_log_lik(model, "eigen", everything)(theta)) == pytest.approx(
        float(model.log_lik(theta)), rel=1e-10)


@pytest.mark.parametrize("jitter", [1e-6, 1e-12])
def test_nystrom_with_all_columns_recovers_exact_within_the_jitter_bound(model, jitter):
    """With m = n, K̂ = K (K + δI)⁻¹ K, δ = jitter · mean diag K: K − K̂ has eigenvalues
    δλ/(λ + δ) ∈ [0, δ), so 0 ≤ C − Ĉ ≤ δ I ≤ r C with r = δ/σ². Hence

        0 ≤ log det C − log det Ĉ ≤ −n log(1 − r),
        0 ≤ yᵀĈ⁻¹y − yᵀC⁻¹y ≤ yᵀC⁻¹y · r / (1 − r),

    and, exactly, log det Ĉ = Σ log(λ²/(λ + δ) + σ²) over the eigenvalues λ of K. The bounds
    are checked with a round-off allowance of 1e-9 (the m = n, jitter = 0 gap measures ~3e-12),
    and the exact eigenvalue formula to 1e-6 of the jitter's own effect."""
    theta = theta_of(model)
    n = model.n_data
    x = np.asarray(model.data["x"])
    k = dense_kernel(model, theta, x, x)
    noise = float(np.exp(2 * theta[-1]))
    delta = jitter * np.mean(np.diag(k))
    r = delta / noise
    quad_c, logdet_c = (float(v) for v in approximate_quad_logdet(model, "exact")(theta))
    quad_h, logdet_h = (float(v) for v in
                        approximate_quad_logdet(model, "nystrom", np.arange(n), jitter)(theta))
    slack = 1e-9
    assert -slack <= logdet_c - logdet_h <= -n * np.log1p(-r) + slack
    assert -slack <= quad_h - quad_c <= quad_c * r / (1 - r) + slack
    lam = np.linalg.eigvalsh(k)
    predicted = np.sum(np.log(lam**2 / (lam + delta) + noise)) - np.sum(np.log(lam + noise))
    assert logdet_h - logdet_c == pytest.approx(predicted, rel=1e-6, abs=slack)
    log_lik = float(approximate_log_lik(model, "nystrom", np.arange(n), jitter)(theta))
    assert abs(log_lik - float(model.log_lik(theta))) <= 0.5 * (
        quad_c * r / (1 - r) - n * np.log1p(-r)) + slack
    if jitter == 1e-12:  # a tiny jitter recovers the exact likelihood to ~1e-10 relative
        assert log_lik == pytest.approx(float(model.log_lik(theta)), rel=1e-9)


def duplicated_model():
    """Each of 10 points three times: K is singular (rank 10 of 30)."""
    x = np.repeat(np.linspace(0.0, 1.0, 10)[:, None], 3, axis=0)
    return gp_const_model(x, np.random.default_rng(0).standard_normal(30), "iso", 10.0)


HEALTHY = [np.log(0.3), 0.0, -1.0]


@pytest.mark.parametrize("kind, jitter, failing", [
    ("exact", 1e-8, [[np.log(0.3), 0.0, -40.0],  # σ² = e⁻⁸⁰: C singular, Cholesky fails
                     [np.nan, 0.0, 0.0]]),
    ("sod", 1e-8, [[np.log(0.3), 0.0, -40.0]]),
    ("nystrom", 0.0, [HEALTHY]),  # duplicated subset, no jitter: K^(m,m) singular
    ("nystrom", 1e-8, [[np.log(0.3), 0.0, -400.0],  # σ² underflows to 0: inner Cholesky fails
                       [np.nan, 0.0, 0.0]]),
    ("eigen", 1e-8, [[np.log(0.3), 0.0, -400.0],  # σ² = 0: log of zero / negative eigenvalues
                     [np.nan, 0.0, 0.0]]),
])
def test_failed_factorisations_are_minus_infinity_not_exceptions(kind, jitter, failing):
    model = duplicated_model()
    subset = np.arange(0, 30, 2)  # holds repeated points
    log_lik = approximate_log_lik(model, kind, subset, jitter)
    value_and_grad = jax.jit(jax.value_and_grad(log_lik))
    for theta in failing:
        value, grad = value_and_grad(jnp.asarray(theta))  # no exception under jit and grad
        assert float(value) == -np.inf
        assert float(log_lik(jnp.asarray(theta))) == -np.inf  # nor without jit
    # The same approximation is finite at a healthy θ (given a jitter where one is needed).
    healthy = log_lik if jitter else approximate_log_lik(model, kind, subset, 1e-8)
    assert np.isfinite(float(healthy(jnp.asarray(HEALTHY))))


def test_unknown_kind_and_missing_subset_are_errors(model):
    with pytest.raises(ValueError, match="unknown approximation"):
        approximate_quad_logdet(model, "fitc", np.arange(3))
    with pytest.raises(ValueError, match="needs a subset"):
        approximate_log_lik(model, "nystrom")
    with pytest.raises(TypeError, match="not a GP model"):
        approximate_log_lik(get_model("mvn_mean", n=5, dim=2), "nystrom", np.arange(3))
