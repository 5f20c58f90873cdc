"""``from_pymc``: PyMC's own log density and its prior/likelihood split, per-datum terms on data
views, one-line refusals, ``--model file.py:NAME`` with a PyMC model, and (slow) posterior moments
of two posteriordb posteriors written in PyMC against posteriordb's reference draws, with our NUTS
and PT.

PyMC's references are compiled with ``mode="FAST_COMPILE"``: PyTensor's Python implementations
(NumPy and SciPy), independent of the JAX backend under test, and no C compiler runs."""

from __future__ import annotations

from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from posteriordb import reference_scores
from support import Z_BOUND
from test_user_models import example

from tempering import UserInputError, from_pymc, get_model, sample
from tempering.algorithms import get_sampler

pm = pytest.importorskip("pymc")
pt = pytest.importorskip("pytensor.tensor")

ROOT = Path(__file__).resolve().parents[2]
REFERENCE_MODE = "FAST_COMPILE"
Y = np.random.default_rng(2).normal(0.5, 1.3, size=15)


def shapes_model():
    """Bounded, positive, simplex and vector parameters, a deterministic, a potential."""
    with pm.Model() as model:
        b = pm.Uniform("b", -1.0, 2.0)
        s = pm.HalfNormal("s", 1.5)
        w = pm.Dirichlet("w", np.array([1.0, 2.0, 3.0]))
        v = pm.Normal("v", 0.0, 2.0, shape=3)
        pm.Deterministic("wv", pt.dot(w, v))
        pm.Normal("y", b + pt.dot(w, v), s, observed=Y)
        pm.Potential("soft", -0.5 * v[0] ** 2)
    return model


@pytest.fixture(scope="module")
def shapes():
    model = shapes_model()
    return model, from_pymc(model)


def test_log_density_and_split_are_pymcs_own(shapes):
    """At 6 random points of PyMC's transformed space: log_prior = varlogp, log_lik =
    observedlogp + potentiallogp, their sum = logp() (Jacobians included)."""
    model, ours = shapes
    assert ours.dim == 1 + 1 + 2 + 3 and ours.attrs["per_datum"].startswith("pm.Potential")
    reference = model.compile_fn([model.varlogp, model.observedlogp + model.potentiallogp,
                                  model.logp()], mode=REFERENCE_MODE)
    thetas = jax.random.normal(jax.random.key(0), (6, ours.dim)) * 1.5
    parts = jax.jit(jax.vmap(lambda t: jnp.stack([ours.log_prior(t), ours.log_lik(t, ours.data),
                                                  ours.log_density(t)])))(thetas)
    start = model.initial_point()
    sizes = np.cumsum([0, 1, 1, 2, 3])
    for theta, got in zip(np.asarray(thetas), np.asarray(parts), strict=True):
        point = {v.name: theta[sizes[i]:sizes[i + 1]].reshape(np.shape(start[v.name]))
                 for i, v in enumerate(model.value_vars)}
        np.testing.assert_allclose(got, reference(point), rtol=1e-10, atol=1e-10)


def test_constrained_output_has_pymcs_values_and_deterministics(shapes):
    _, ours = shapes
    theta = jax.random.normal(jax.random.key(1), (ours.dim,))
    out = jax.jit(ours.constrain)(theta)
    assert [p.name for p in ours.params] == ["b", "s", "w", "v", "wv"]
    assert -1.0 < float(out["b"]) < 2.0 and float(out["s"]) > 0
    np.testing.assert_allclose(float(jnp.sum(out["w"])), 1.0, rtol=1e-12)
    np.testing.assert_allclose(float(out["wv"]), float(out["w"] @ out["v"]), rtol=1e-12)
    np.testing.assert_allclose(float(out["s"]), float(np.exp(theta[1])), rtol=1e-12)


def data_model(n: int = 12):
    """y_i ~ N(a + b x_i, σ) with x and y in pm.Data containers: per-datum terms."""
    rng = np.random.default_rng(4)
    x = rng.normal(size=n)
    with pm.Model() as model:
        xd, yd = pm.Data("x", x), pm.Data("y_obs", 1.0 + 2.0 * x + rng.normal(size=n))
        a, b = pm.Normal("a", 0.0, 3.0), pm.Normal("b", 0.0, 3.0)
        sigma = pm.HalfNormal("sigma", 1.0)
        pm.Normal("y", a + b * xd, sigma, observed=yd)
    return model


def test_per_datum_terms_on_data_views():
    """Terms on a view equal the full terms at its rows, and sum to PyMC's observedlogp."""
    model = data_model()
    ours = from_pymc(model, per_datum=True)
    assert ours.attrs["per_datum"] == ["x", "y_obs"] and ours.n_data == 12
    theta = jnp.array([0.3, 1.7, -0.2])
    rows = np.array([1, 4, 5, 9])
    view = jax.tree.map(lambda a: a[rows], ours.data)
    terms = jax.jit(lambda t, v: (ours.log_lik_terms(t, ours.data), ours.log_lik_terms(t, v)))
    full, part = terms(theta, view)
    np.testing.assert_allclose(part, full[rows], rtol=1e-12)
    point = dict(zip(["a", "b", "sigma_log__"], map(float, theta), strict=True))
    observed = model.compile_fn(model.observedlogp, mode=REFERENCE_MODE)(point)
    np.testing.assert_allclose(float(jnp.sum(full)), observed, rtol=1e-10)


def test_no_terms_without_data_containers_and_refusals_in_one_line():
    with pm.Model() as constant:
        mu = pm.Normal("mu", 0.0, 1.0)
        pm.Normal("y", mu, 1.0, observed=Y)
    assert from_pymc(constant).log_lik_terms_fn is None
    with pytest.raises(UserInputError, match="per_datum: no pm.Data container"):
        from_pymc(constant, per_datum=True)
    with pm.Model() as discrete:
        k = pm.Poisson("k", 3.0)
        pm.Normal("y", k, 1.0, observed=Y)
    with pytest.raises(UserInputError) as exc:
        from_pymc(discrete)
    assert "'k' is discrete" in str(exc.value) and "\n" not in str(exc.value)
    with pm.Model() as unobserved:
        pm.Normal("mu", 0.0, 1.0)
    with pytest.raises(UserInputError, match="no observed variables"):
        from_pymc(unobserved)
    with pytest.raises(UserInputError, match="expected a pymc.Model"):
        from_pymc(lambda: None)


def test_file_model_may_be_a_pymc_model():
    """``--model examples/pymc_mixture.py:model``: a pymc.Model found in the file."""
    model = get_model(str(ROOT / "examples" / "pymc_mixture.py") + ":model")
    assert [p.name for p in model.params] == ["w", "mu", "sigma", "ordering"]
    assert model.attrs["per_datum"] == ["y_obs"] and model.n_data == 90
    theta = model.init_position(jax.random.key(0))
    ordering = jax.jit(model.constrain)(theta)["ordering"]
    assert float(jnp.sum(ordering)) == 1.0


# --------------------------------------------------------------------------- slow comparisons

def eight_schools_pymc():
    """examples/eight_schools.py's model (non-centred) in PyMC."""
    es = example("eight_schools.py")
    with pm.Model() as model:
        mu = pm.Normal("mu", 0.0, 5.0)
        tau = pm.HalfCauchy("tau", 5.0)
        theta_tilde = pm.Normal("theta_tilde", 0.0, 1.0, shape=8)
        pm.Deterministic("theta", mu + tau * theta_tilde)
        pm.Normal("y", mu + tau * theta_tilde, es.SIGMA, observed=es.Y)
    return model


@pytest.mark.slow
@pytest.mark.parametrize("name, options, draws", [
    ("nuts", {"target_accept": 0.9}, 5000),
    ("pt", {"rungs": 4, "beta_min": 0.1, "inner": "nuts", "inner_steps": 1}, 4000),
])
def test_eight_schools_in_pymc_matches_posteriordb(name, options, draws):
    """posteriordb's eight_schools_noncentered (its data are examples/eight_schools.py's): μ, τ
    and the eight θ_j within Z_BOUND combined MCSEs of the reference posterior's means."""
    model = from_pymc(eight_schools_pymc())
    posterior = sample(model, get_sampler(name, model, **options), key=5, chains=4, draws=draws,
                       warmup=1000, progress=False).posterior
    scores = reference_scores("eight_schools-eight_schools_noncentered", posterior)
    print(f"\n{name}: z against posteriordb {({q: round(z, 2) for q, z in scores.items()})}")
    assert max(abs(z) for z in scores.values()) < Z_BOUND, (name, scores)


#: posteriordb's gp_pois_regr data (x, y; its counts k are gp_pois_regr's, not this model's).
GP_X = np.arange(-10.0, 11.0, 2.0)
GP_Y = np.array([4.75906, 1.59423, 2.99548, 5.27501, 1.66472, 2.24347, 2.8914, 4.08681, 4.60588,
                 0.802364, 3.92136])


def gp_regr_pymc():
    """posteriordb's gp_regr in PyMC: ρ ~ Gamma(25, rate 4), α ~ HalfNormal(2), σ ~ HalfNormal(1),
    y ~ N(0, K + σ I) with K = α² exp(−(x − x′)²/(2ρ²)) — the Stan model adds σ, not σ², to the
    diagonal, and so does this one (PyMC's ``gp.Marginal`` would add σ² and a jitter)."""
    with pm.Model() as model:
        rho = pm.Gamma("rho", alpha=25.0, beta=4.0)
        alpha = pm.HalfNormal("alpha", 2.0)
        sigma = pm.HalfNormal("sigma", 1.0)
        k = alpha**2 * pm.gp.cov.ExpQuad(1, ls=rho)(GP_X[:, None])
        pm.MvNormal("y", mu=np.zeros(GP_X.size), cov=k + sigma * np.eye(GP_X.size),
                    observed=GP_Y)
    return model


@pytest.mark.slow
@pytest.mark.parametrize("name, options, draws", [
    ("nuts", {"target_accept": 0.9}, 3000),
    ("pt", {"rungs": 4, "beta_min": 0.1, "inner": "nuts", "inner_steps": 1}, 3000),
])
def test_gp_regression_in_pymc_matches_posteriordb(name, options, draws):
    """posteriordb's gp_pois_regr-gp_regr: posterior means of ρ, α, σ within Z_BOUND combined
    MCSEs of the reference posterior's."""
    model = from_pymc(gp_regr_pymc())
    posterior = sample(model, get_sampler(name, model, **options), key=9, chains=4, draws=draws,
                       warmup=1000, progress=False).posterior
    scores = reference_scores("gp_pois_regr-gp_regr", posterior)
    print(f"\n{name}: z against posteriordb {({q: round(z, 2) for q, z in scores.items()})}")
    assert max(abs(z) for z in scores.values()) < Z_BOUND, (name, scores)


@pytest.mark.slow
def test_pt_visits_every_label_ordering_of_the_pymc_mixture():
    """The example's six orderings of μ each hold 1/6 of the posterior: PT's shares within
    Z_BOUND MCSEs of 1/6 (the acceptance run of issue 35, in Python). PT crosses between
    orderings rarely here (CHANGELOG, *Known limits measured*): per-chain shares 0.00-0.63 at
    keys 0-2 since b84cf6e (2026-11-29), pooled |z| at most 3.6, 2.2 and 3.1; before it, the same
    keys gave |z| up to 7.0 and this test was an expected failure."""
    import arviz as az

    model = get_model(str(ROOT / "examples" / "pymc_mixture.py") + ":model")
    idata = sample(model, get_sampler("pt", model), key=0, chains=4, draws=2000,
                   progress=False)
    ordering = idata.posterior["ordering"].values
    for j in range(6):
        share = ordering[..., j]
        assert abs((share.mean() - 1 / 6) / float(az.mcse(share, method="mean"))) < Z_BOUND, j
