"""Users' own models: ``from_logdensity`` against an analytic posterior, ``from_numpyro`` against
NumPyro's own log density and NUTS, and ``--model path/file.py:NAME`` on the command line (one-line
errors, rebuilding a run from its file)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import arviz as az
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from cli_helpers import run_cli
from posteriordb import POSTERIORDB
from support import Z_BOUND, z_combined, z_mean, z_sd

import tempering
from tempering import Model, UserInputError, from_logdensity, from_numpyro, get_model, sample
from tempering.algorithms import get_sampler
from tempering.cli.main import main

numpyro = pytest.importorskip("numpyro")
dist = pytest.importorskip("numpyro.distributions")
util = pytest.importorskip("numpyro.infer.util")

ROOT = Path(__file__).resolve().parents[2]
EIGHT = "examples/eight_schools.py:model"
LOGISTIC = "examples/logistic_regression.py:model"
#: NumPyro's NUTS on examples/eight_schools.py (target_accept 0.9, 4 chains × 25 000 draws after
#: 1 000 warmup, key 123): posterior mean and its MCSE (ArviZ). ``test_numpyro_reference``
#: (slow) recomputes it.
REFERENCE = {"mu": (4.3918, 0.0108), "tau": (3.5821, 0.0114)}


def example(name: str):
    """An example file as a module (examples/ is not a package)."""
    spec = importlib.util.spec_from_file_location(f"example_{name}", ROOT / "examples" / name)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# --------------------------------------------------------------------------- from_logdensity

def conjugate(n: int = 40, dim: int = 2):
    """θ ~ N(0, I), y_i | θ ~ N(θ, I): posterior N(Σy/(n+1), I/(n+1))."""
    y = np.random.default_rng(3).normal(1.0, 1.0, (n, dim))
    model = from_logdensity(lambda t: -0.5 * jnp.sum(t**2),
                            data={"y": y}, params={"theta": dim},
                            log_lik_terms=lambda t, d: -0.5 * jnp.sum((d["y"] - t) ** 2, axis=1))
    return model, y.sum(axis=0) / (n + 1), 1 / np.sqrt(n + 1)


@pytest.mark.parametrize("name, options, draws", [
    pytest.param("spt", {"rungs": 3, "beta_min": 0.25, "step_size": 0.25}, 1500,
                 marks=pytest.mark.slow),  # ~14 s (budget): SPT's posterior in test_tempering
    ("nuts", {"adapt": False, "step_size": 0.1}, 500),
])
def test_from_logdensity_recovers_conjugate_posterior(name, options, draws):
    """Exact starts (posterior draws), so no warmup program to compile."""
    model, mean, sd = conjugate()
    init = mean + sd * np.random.default_rng(0).standard_normal((4, 2))
    idata = sample(model, get_sampler(name, model, **options), key=7, chains=4, draws=draws,
                   warmup=0, init=init, progress=False)
    theta = idata.posterior["theta"].values
    for d in range(2):
        assert abs(z_mean(theta[..., d], mean[d])) < Z_BOUND, (name, d)
        assert abs(z_sd(theta[..., d], sd)) < Z_BOUND, (name, d)


def test_from_logdensity_defaults_and_classmethod():
    model, _, _ = conjugate(n=5)
    theta = jnp.array([0.3, -0.2])
    assert model.n_data == 5 and model.dim == 2 and model.params[0].name == "theta"
    np.testing.assert_allclose(model.log_lik(theta), jnp.sum(model.log_lik_terms(theta)))
    view = {"y": model.data["y"][:2]}
    np.testing.assert_allclose(model.log_lik(theta, view),
                               -0.5 * np.sum((np.asarray(view["y"]) - np.asarray(theta)) ** 2))
    # init: independent N(0, 1) draws
    starts = jax.vmap(model.init_position)(jax.random.split(jax.random.key(0), 4000))
    assert abs(float(starts.std()) - 1.0) < 0.05 and abs(float(starts.mean())) < 0.05
    bare = Model.from_logdensity(lambda t: -0.5 * t @ t, lambda t, d: -jnp.sum(t**2), dim=3)
    assert bare.n_data == 1 and bare.dim == 3 and bare.log_lik_terms_fn is None
    assert set(bare.constrain(jnp.zeros(3))) == {"theta"}
    named = from_logdensity(lambda t: -t @ t, lambda t, d: 0.0,
                            params={"a": (), "b": (2, 2)}, name="mine")
    parts = named.constrain(jnp.arange(5.0))
    assert named.dim == 5 and named.name == "mine" and parts["b"].shape == (2, 2)
    assert float(parts["a"]) == 0.0 and float(parts["b"][1, 1]) == 4.0


GOOD = dict(log_prior=lambda t: -t @ t, log_lik=lambda t, d: jnp.sum(d["y"]) * t[0],
            data={"y": np.ones(4)}, dim=2)
BAD = {
    "vector log_prior": (dict(log_prior=lambda t: -t), "log_prior(θ): expected"),
    "no likelihood": (dict(log_lik=None), "give log_lik or log_lik_terms"),
    "no dim": (dict(dim=None), "give dim"),
    "terms shape": (dict(log_lik_terms=lambda t, d: t), "log_lik_terms(θ, data): expected"),
    "terms disagree": (dict(log_lik_terms=lambda t, d: d["y"] * t[0] + 1.0), "must agree"),
    "ragged data": (dict(data={"y": np.ones(4), "x": np.ones(3)}), "leading (data) axes differ"),
    "scalar data": (dict(data={"y": 1.0}), "leading data axis"),
    "params vs dim": (dict(params={"a": 3}), "add up to 3"),
    "bad param shape": (dict(params={"a": (2, 0)}, dim=None), "below 1"),
    "constrain keys": (dict(constrain=lambda t: {"x": t}), "constrain(θ): returns"),
    "init shape": (dict(init=lambda k: jnp.zeros(3)), "init(key): expected"),
    "failing log_lik": (dict(log_lik=lambda t, d: d["missing"]), "log_lik(θ, data) failed"),
    "alpha": (dict(alpha=0), "alpha"),
}


@pytest.mark.parametrize("change, fragment", BAD.values(), ids=BAD.keys())
def test_from_logdensity_refuses_bad_input_in_one_line(change, fragment):
    with pytest.raises(UserInputError) as exc:
        from_logdensity(**{**GOOD, **change})
    assert fragment in str(exc.value) and "\n" not in str(exc.value)


# --------------------------------------------------------------------------- from_numpyro

def test_numpyro_log_density_is_numpyros_own():
    """log_prior + log_lik = −potential_energy (Jacobians included), constrained output =
    NumPyro's constrain_fn with deterministic sites, at random unconstrained points."""
    es = example("eight_schools.py")
    model = es.model
    kwargs = {"sigma": es.SIGMA, "y": es.Y}
    # θ = (μ, log τ, θ̃): NumPyro's unconstrained sites, raveled in the order of their names
    unravel = lambda t: {"mu": t[0], "tau": t[1], "theta_tilde": t[2:]}
    assert model.dim == 10 and [p.name for p in model.params] == ["mu", "tau", "theta_tilde",
                                                                  "theta"]
    @jax.jit
    @jax.vmap
    def both(theta):
        energy = util.potential_energy(es.eight_schools, (), kwargs, unravel(theta))
        theirs = util.constrain_fn(es.eight_schools, (), kwargs, unravel(theta),
                                   return_deterministic=True)
        return model.log_density(theta), -energy, model.constrain(theta), theirs

    ours, theirs, named, named_theirs = both(2.0 * jax.random.normal(jax.random.key(5), (4, 10)))
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-10)
    assert len(set(np.asarray(ours).round(6))) == 4  # four different points
    for name in named:
        np.testing.assert_allclose(named[name], named_theirs[name], rtol=1e-12)
    # the prior half alone: N(μ; 0, 5²) HalfCauchy(τ; 5) |dτ/d log τ| Π N(θ̃_j; 0, 1)
    theta = jnp.linspace(-1.0, 1.0, 10)
    tau = jnp.exp(theta[1])
    expected = (jax.scipy.stats.norm.logpdf(theta[0], 0, 5) + jnp.log(2 / (jnp.pi * 5))
                - jnp.log1p((tau / 5) ** 2) + theta[1]
                + jnp.sum(jax.scipy.stats.norm.logpdf(theta[2:])))
    assert abs(float(jax.jit(model.log_prior)(theta) - expected)) < 1e-10


def test_numpyro_per_datum_terms_on_data_views():
    model = get_model(LOGISTIC, n=30)
    assert model.n_data == 30 and model.log_lik_terms_fn is not None
    assert model.name == LOGISTIC and model.options == {"n": 30}
    theta = jnp.array([0.5, -0.3, 0.2, 0.1])  # b, then w (ravel_pytree sorts site names)
    x, y = np.asarray(model.data["x"]), np.asarray(model.data["y"])
    logits = x @ np.asarray(theta[1:]) + float(theta[0])
    manual = y * logits - np.logaddexp(0.0, logits)
    view = jax.tree.map(lambda a: a[jnp.array([3, 7, 11])], model.data)
    terms, view_terms, view_total = jax.jit(
        lambda t: (model.log_lik_terms(t), model.log_lik_terms(t, view), model.log_lik(t, view))
    )(theta)
    np.testing.assert_allclose(terms, manual, rtol=1e-12)
    np.testing.assert_allclose(view_terms, manual[[3, 7, 11]], rtol=1e-12)
    np.testing.assert_allclose(view_total, manual[[3, 7, 11]].sum(), rtol=1e-12)


def counted(x, y=None, n=None):
    w = numpyro.sample("w", dist.Normal(0.0, 1.0))
    with numpyro.plate("data", x.shape[0] if n is None else n):
        numpyro.sample("y", dist.Normal(w * x, 1.0), obs=y)


def local(x, y=None):
    with numpyro.plate("data", x.shape[0]):
        z = numpyro.sample("z", dist.Normal(0.0, 1.0))
        numpyro.sample("y", dist.Normal(z * x, 1.0), obs=y)


def unplated(x, y=None):
    w = numpyro.sample("w", dist.Normal(0.0, 1.0))
    numpyro.sample("y", dist.Normal(w * x, 1.0).to_event(1), obs=y)


def discrete(x, y=None):
    k = numpyro.sample("k", dist.Bernoulli(0.5))
    numpyro.sample("y", dist.Normal(k * x, 1.0), obs=y)


X, Y = np.linspace(-1, 1, 6), np.linspace(0, 1, 6)
NUMPYRO_BAD = {
    "plate sized by n": (lambda: from_numpyro(counted, x=X, y=Y, n=6, data_kwargs=("x", "y")),
                         "does not follow the data_kwargs arrays"),
    "plate not over the data": (lambda: from_numpyro(counted, x=X, y=Y, data_kwargs=("y",)),
                                "is not in a plate whose size follows"),
    "local latent": (lambda: from_numpyro(local, x=X, y=Y, data_kwargs=("x", "y")),
                     "latent site 'z' changes with the data"),
    "no plate": (lambda: from_numpyro(unplated, x=X, y=Y, data_kwargs=("x", "y")),
                 "is not in a plate whose size follows the data"),
    "unknown data kwarg": (lambda: from_numpyro(counted, x=X, y=Y, data_kwargs=("q",)),
                           "'q' is not a keyword argument"),
    "no observations": (lambda: from_numpyro(counted, x=X), "no observed sites"),
    "discrete": (lambda: from_numpyro(discrete, x=X, y=Y), "discrete"),
    "model fails": (lambda: from_numpyro(counted, y=Y), "the model fails: TypeError"),
}


@pytest.mark.parametrize("build, fragment", NUMPYRO_BAD.values(), ids=NUMPYRO_BAD.keys())
def test_from_numpyro_refuses_in_one_line(build, fragment):
    with pytest.raises(UserInputError) as exc:
        build()
    assert fragment in str(exc.value) and "\n" not in str(exc.value)


def test_from_numpyro_without_numpyro_is_one_line(monkeypatch):
    monkeypatch.setitem(sys.modules, "numpyro", None)
    with pytest.raises(UserInputError, match=r"pip install 'tempering\[numpyro\]'") as exc:
        from_numpyro(counted, x=X, y=Y)
    assert "\n" not in str(exc.value)


# --------------------------------------------------------------------------- the command line

@pytest.fixture(scope="module")
def eight_run(tmp_path_factory):
    """``tempering sample --model examples/eight_schools.py:model --sampler nuts ...`` from the
    repository root (small draws)."""
    out = tmp_path_factory.mktemp("eight") / "s.nc"
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(ROOT)
        with pytest.raises(SystemExit) as exc:
            main(["sample", "--model", EIGHT, "--sampler", "nuts", "--chains", "4", "--draws",
                  "500", "--warmup", "300", "--seed", "3", "--no-progress", "--out", str(out)])
    return exc.value.code, out


def test_cli_samples_a_numpyro_file_model(eight_run):
    code, out = eight_run
    assert code in (0, None) and out.exists()
    idata = tempering.load_run(out)
    assert {"mu", "tau", "theta", "theta_tilde"} <= set(idata.posterior.data_vars)
    assert idata.posterior["theta"].shape == (4, 500, 8)
    assert idata.posterior.attrs["model"] == EIGHT
    assert float(idata.posterior["tau"].min()) > 0


def test_our_nuts_matches_numpyros_nuts(eight_run):
    """Posterior means of μ and τ within Z_BOUND combined MCSEs of NumPyro's own NUTS."""
    posterior = tempering.load_run(eight_run[1]).posterior
    for name, (mean, mcse) in REFERENCE.items():
        assert abs(z_combined(posterior[name].values, mean, mcse)) < Z_BOUND, name


def test_the_numpyro_reference_is_posteriordbs_posterior():
    """REFERENCE (NumPyro's NUTS on the example) against posteriordb's eight_schools_noncentered
    (Stan's NUTS; the same data and model): each mean within Z_BOUND combined MCSEs."""
    theirs = POSTERIORDB["eight_schools-eight_schools_noncentered"]
    for name, (mean, mcse) in REFERENCE.items():
        assert abs(mean - theirs[name][0]) < Z_BOUND * np.hypot(mcse, theirs[name][1]), name


@pytest.mark.slow  # ~5 s; test_registry.py and test_checkpoint.py rebuild runs in make test
def test_rerun_of_a_file_model_is_identical(eight_run, tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    again = tempering.rerun(eight_run[1], tmp_path / "again.nc")
    first, second = tempering.load_run(eight_run[1]), tempering.load_run(again)
    for name in ("mu", "tau", "theta"):
        np.testing.assert_array_equal(first.posterior[name].values, second.posterior[name].values)


FILES = {
    "missing file": (None, "nowhere.py:model", (), ["no such file", "nowhere.py"]),
    "missing NAME": ("x = 1\n", "{path}:model", (), ["defines no 'model'"]),
    "import fails": ("raise RuntimeError('boom')\n", "{path}:model", (),
                     ["importing", "RuntimeError: boom"]),
    "not a Model": ("def model():\n    return 3\n", "{path}:model", (), ["returned int"]),
    "unknown option": ("def model(n=1):\n    return None\n", "{path}:model",
                       ("--set", "model.q=1"), ["['q'] do not fit its parameters (n)"]),
    "no NAME given": ("x = 1\n", "{path}", (), ["name the model inside the file"]),
}


@pytest.mark.parametrize("text, name, extra, fragments", FILES.values(), ids=FILES.keys())
def test_cli_file_model_errors_are_one_line_exit_2(tmp_path, capsys, text, name, extra,
                                                   fragments):
    path = tmp_path / "user_model.py"
    if text is not None:
        path.write_text(text, encoding="utf-8")
    code, out, err = run_cli(["sample", "--model", name.format(path=path), "--sampler", "rwm",
                              "--draws", "5", "--warmup", "5", "--no-progress", *extra,
                              "--out", tmp_path / "run.nc"], capsys)
    lines = err.splitlines()
    assert code == 2 and len(lines) == 1, (out, err)
    assert lines[0].startswith("tempering: error: ") and "Traceback" not in out + err
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    assert not (tmp_path / "run.nc").exists()


def test_file_model_may_be_a_factory_with_options(tmp_path):
    path = tmp_path / "mine.py"
    path.write_text("import jax.numpy as jnp\nimport tempering\n\n"
                    "def model(scale=1.0):\n"
                    "    return tempering.from_logdensity(lambda t: -0.5 * jnp.sum(t**2) / scale,"
                    " lambda t, d: 0.0, dim=2)\n", encoding="utf-8")
    model = get_model(f"{path}:model", scale=4.0)
    assert model.name == f"{path}:model" and model.options == {"scale": 4.0}
    assert float(model.log_prior(jnp.array([2.0, 0.0]))) == -0.5
    assert len(model.attrs["model_file_sha256"]) == 64


# --------------------------------------------------------------------------- slow comparisons

def numpyro_nuts_draws(draws: int, seed: int) -> dict:
    """NumPyro's own NUTS on the eight-schools example: 4 chains, 1000 warmup steps."""
    es = example("eight_schools.py")
    mcmc = numpyro.infer.MCMC(numpyro.infer.NUTS(es.eight_schools, target_accept_prob=0.9),
                              num_warmup=1000, num_samples=draws, num_chains=4,
                              chain_method="sequential", progress_bar=False)
    mcmc.run(jax.random.key(seed), sigma=es.SIGMA, y=es.Y)
    return mcmc.get_samples(group_by_chain=True)


@pytest.mark.slow
def test_numpyro_reference():
    """REFERENCE is NumPyro's NUTS on the example (recomputed; 4 × 25 000 draws)."""
    samples = numpyro_nuts_draws(25000, seed=123)
    for name, (mean, mcse) in REFERENCE.items():
        draws = np.asarray(samples[name])
        assert abs(z_combined(draws, mean, mcse)) < Z_BOUND, name
        assert abs(float(az.mcse(draws, method="mean")) - mcse) < 0.2 * mcse


@pytest.mark.slow
@pytest.mark.parametrize("name, options, draws", [
    ("nuts", {"target_accept": 0.9}, 5000),
    ("pt", {"rungs": 4, "beta_min": 0.1, "inner": "nuts", "inner_steps": 1}, 4000),
])
def test_our_samplers_match_numpyros_nuts_on_eight_schools(name, options, draws):
    theirs = numpyro_nuts_draws(5000, seed=11)
    model = example("eight_schools.py").model
    posterior = sample(model, get_sampler(name, model, **options), key=5, chains=4, draws=draws,
                       warmup=1000, progress=False).posterior
    for site in ("mu", "tau"):
        reference = np.asarray(theirs[site])
        mcse = float(az.mcse(reference, method="mean"))
        assert abs(z_combined(posterior[site].values, reference.mean(), mcse)) < Z_BOUND, site


@pytest.mark.slow
def test_spt_on_the_logistic_example_matches_nuts():
    model = get_model(LOGISTIC, n=200)
    runs = {name: sample(model, get_sampler(name, model, **options), key=4, chains=4,
                         draws=draws, warmup=500, progress=False).posterior
            for name, options, draws in (("nuts", {}, 2000),
                                         ("spt", {"rungs": 4, "step_size": 0.1}, 6000))}
    for site, d in (("b", None), ("w", 0), ("w", 1)):
        ours = runs["spt"][site].values if d is None else runs["spt"][site].values[..., d]
        ref = runs["nuts"][site].values if d is None else runs["nuts"][site].values[..., d]
        mcse = float(az.mcse(ref, method="mean"))
        assert abs(z_combined(ours, ref.mean(), mcse)) < Z_BOUND, (site, d)
