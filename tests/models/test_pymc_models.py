"""``from_pymc``: PyMC's own log density and its prior/likelihood split, per-datum terms on data
views, one-line refusals, ``--model file.py:NAME`` with a PyMC model, and (slow) posterior moments
of PyMC models against NumPyro's NUTS with our NUTS and PT.

PyMC's references are compiled with ``mode="FAST_COMPILE"``: PyTensor's Python implementations
(NumPy and SciPy), independent of the JAX backend under test, and no C compiler runs."""

from __future__ import annotations

from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from support import Z_BOUND
from test_user_models import REFERENCE, example, z_combined

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
def test_eight_schools_in_pymc_matches_numpyros_nuts(name, options, draws):
    """μ and τ within Z_BOUND combined MCSEs of the recorded NumPyro-NUTS reference."""
    model = from_pymc(eight_schools_pymc())
    posterior = sample(model, get_sampler(name, model, **options), key=5, chains=4, draws=draws,
                       warmup=1000, progress=False).posterior
    for site, (mean, mcse) in REFERENCE.items():
        assert abs(z_combined(posterior[site].values, mean, mcse)) < Z_BOUND, (name, site)


GP_X = np.linspace(0.0, 5.0, 20)
GP_Y = np.sin(GP_X) + np.random.default_rng(7).normal(0.0, 0.3, size=20)


def gp_pymc():
    """GP regression, PyMC's own marginal GP: ℓ ~ Gamma(2, 1), η ~ HalfNormal(1),
    σ ~ HalfNormal(1), y ~ N(0, η² k_ℓ(X, X) + σ² I), k the squared exponential."""
    with pm.Model() as model:
        ell = pm.Gamma("ell", 2.0, 1.0)
        eta = pm.HalfNormal("eta", 1.0)
        sigma = pm.HalfNormal("sigma", 1.0)
        gp = pm.gp.Marginal(cov_func=eta**2 * pm.gp.cov.ExpQuad(1, ls=ell))
        gp.marginal_likelihood("y", X=GP_X[:, None], y=GP_Y, sigma=sigma)
    return model


def gp_numpyro_reference(draws: int) -> dict:
    """The same GP in NumPyro, sampled by NumPyro's NUTS (4 chains, 1000 warmup, key 3)."""
    numpyro = pytest.importorskip("numpyro")
    dist = numpyro.distributions

    def gp(x, y):
        ell = numpyro.sample("ell", dist.Gamma(2.0, 1.0))
        eta = numpyro.sample("eta", dist.HalfNormal(1.0))
        sigma = numpyro.sample("sigma", dist.HalfNormal(1.0))
        k = eta**2 * jnp.exp(-0.5 * (x[:, None] - x[None, :]) ** 2 / ell**2)
        numpyro.sample("y", dist.MultivariateNormal(jnp.zeros(x.shape[0]),
                                                    k + (sigma**2 + 1e-6) * jnp.eye(x.shape[0])),
                       obs=y)

    mcmc = numpyro.infer.MCMC(numpyro.infer.NUTS(gp, target_accept_prob=0.9), num_warmup=1000,
                              num_samples=draws, num_chains=4, chain_method="sequential",
                              progress_bar=False)
    mcmc.run(jax.random.key(3), x=GP_X, y=GP_Y)
    return mcmc.get_samples(group_by_chain=True)


@pytest.mark.slow
@pytest.mark.parametrize("name, options, draws", [
    ("nuts", {"target_accept": 0.9}, 3000),
    ("pt", {"rungs": 4, "beta_min": 0.1, "inner": "nuts", "inner_steps": 1}, 3000),
])
def test_gp_regression_in_pymc_matches_numpyros_nuts(name, options, draws):
    """PyMC's marginal GP (its 1e-6 jitter on the diagonal matched) against NumPyro's NUTS on
    the same model: posterior means of ℓ, η, σ within Z_BOUND combined MCSEs."""
    import arviz as az

    theirs = gp_numpyro_reference(4000)
    model = from_pymc(gp_pymc())
    posterior = sample(model, get_sampler(name, model, **options), key=9, chains=4, draws=draws,
                       warmup=1000, progress=False).posterior
    for site in ("ell", "eta", "sigma"):
        reference = np.asarray(theirs[site])
        mcse = float(az.mcse(reference, method="mean"))
        assert abs(z_combined(posterior[site].values, reference.mean(), mcse)) < Z_BOUND, (
            name, site)


@pytest.mark.slow
def test_pt_visits_every_label_ordering_of_the_pymc_mixture():
    """The example's six orderings of μ each hold 1/6 of the posterior: PT's shares within
    Z_BOUND MCSEs of 1/6 (the acceptance run of issue 35, in Python)."""
    import arviz as az

    model = get_model(str(ROOT / "examples" / "pymc_mixture.py") + ":model")
    idata = sample(model, get_sampler("pt", model), key=0, chains=4, draws=2000,
                   progress=False)
    ordering = idata.posterior["ordering"].values
    for j in range(6):
        share = ordering[..., j]
        assert abs((share.mean() - 1 / 6) / float(az.mcse(share, method="mean"))) < Z_BOUND, j
