"""``tempering.numpyro``: the samplers as NumPyro ``MCMCKernel``\\ s under NumPyro's ``MCMC``.

The draws equal ``tempering.sample``'s when NumPyro is given the driver's per-chain keys
``fold_in(key, c)`` (NumPyro's own ``split(key, C)`` gives other, equally valid chains); the
constrained samples, ``print_summary`` and the statistics through ``extra_fields`` work; and a
Geweke test (successive conditionals, :func:`support.conjugate_geweke`) of one ``sample`` call
passes, with a wrapper that reports a hot rung's replica as the draw caught by the same test.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from support import GewekeCase, cases, check_geweke, conjugate_geweke, conjugate_model

import tempering
from tempering import UserInputError
from tempering.ladders import geometric_betas

numpyro = pytest.importorskip("numpyro")
dist = pytest.importorskip("numpyro.distributions")
tn = pytest.importorskip("tempering.numpyro")
MCMC = numpyro.infer.MCMC

#: A small PT (fixed rungs, random-walk moves): one compiled program each, quick to build.
OPTIONS = {"rungs": 3, "inner": "rwm", "schedule": "fixed", "beta_min": 0.2}
Y = np.random.default_rng(0).normal(1.0, 1.0, size=12)


def normal_scale(y=None):
    """μ ~ N(0, 1), σ ~ HalfNormal(1), y_i ~ N(μ, σ): a positive site and a deterministic."""
    mu = numpyro.sample("mu", dist.Normal(0.0, 1.0))
    sigma = numpyro.sample("sigma", dist.HalfNormal(1.0))
    numpyro.deterministic("sigma2", sigma**2)
    with numpyro.plate("data", y.shape[0]):
        numpyro.sample("y", dist.Normal(mu, sigma), obs=y)


@pytest.fixture(scope="module")
def runs():
    """NumPyro's MCMC with the driver's chain keys, and tempering.sample, same key and sizes."""
    key, chains = jax.random.key(5), 2
    keys = jax.vmap(lambda c: jax.random.fold_in(key, c))(jnp.arange(chains))
    kernel = tn.PT(normal_scale, **OPTIONS)
    mcmc = MCMC(kernel, num_warmup=100, num_samples=200, num_chains=chains,
                chain_method="vectorized", progress_bar=False)
    kernel.setup(y=Y)
    mcmc.run(keys, y=Y, extra_fields=kernel.extra_fields)
    model = tempering.from_numpyro(normal_scale, y=Y)
    idata = tempering.sample(model, tempering.get_sampler("pt", model, **OPTIONS), key=key,
                             chains=chains, draws=200, warmup=100, progress=False)
    return kernel, mcmc, idata


def test_same_draws_as_tempering_sample(runs):
    """The chains are the same bit for bit (μ, unconstrained, and the log density); a
    constrained value may differ in its last bit, exp(z) being compiled in another program
    (NumPyro's collection loop, the driver's batched constrain)."""
    _, mcmc, idata = runs
    ours = mcmc.get_samples(group_by_chain=True)
    np.testing.assert_array_equal(np.asarray(ours["mu"]), idata.posterior["mu"].values)
    lp = -np.asarray(mcmc.get_extra_fields(group_by_chain=True)["potential_energy"])
    np.testing.assert_array_equal(lp, idata.sample_stats["lp"].values)
    for site in ("sigma", "sigma2"):
        np.testing.assert_allclose(np.asarray(ours[site]), idata.posterior[site].values,
                                   rtol=1e-14, atol=0)


#: Since PT's rungs tune inside its scans (2026-11-28, kernels/adapter.py), one chain run alone
#: and chain 0 of two differ by 1-2e-13 (float64; 87% of the draws): the same on the driver's
#: own chain layouts with a float64 model and a fixed schedule (3.9e-7 after 100 warmup steps;
#: float32 and the adaptive schedule agree bit for bit). The cause is not found yet (a
#: per-chain transcendental rounded apart in a batch of one and of two is the suspect), so
#: the case stays, marked, and must start passing to be unmarked.
TUNING_LAYOUT_ULP = pytest.mark.xfail(
    strict=True, reason="PT's in-scan tuning: one chain and chain 0 of two differ by ~1e-13 "
                        "(float64; cause not found)")


@TUNING_LAYOUT_ULP
@pytest.mark.slow  # ~9 s (budget): the vectorized chains above map the keys the same way
def test_one_chain_sequential_is_the_drivers_chain_zero(runs):
    """One chain, given ``fold_in(key, 0)``: the driver's chain 0 (another chain method, too)."""
    _, _, idata = runs
    mcmc = MCMC(tn.PT(normal_scale, **OPTIONS), num_warmup=100, num_samples=200,
                progress_bar=False)
    mcmc.run(jax.random.fold_in(jax.random.key(5), 0), y=Y)
    np.testing.assert_array_equal(np.asarray(mcmc.get_samples()["mu"]),
                                  idata.posterior["mu"].values[0])


def test_constrained_samples_summary_and_statistics(runs, capsys):
    kernel, mcmc, idata = runs
    samples = mcmc.get_samples()
    assert set(samples) == {"mu", "sigma", "sigma2"} and samples["mu"].shape == (400,)
    assert float(samples["sigma"].min()) > 0
    np.testing.assert_allclose(samples["sigma2"], samples["sigma"] ** 2)
    mcmc.print_summary()
    printed = capsys.readouterr().out
    assert "mu" in printed and "sigma" in printed and "r_hat" in printed
    fields = mcmc.get_extra_fields(group_by_chain=True)
    assert fields["stats.swap_accepted"].shape == (2, 200, 2)
    summary = kernel.summary(mcmc)
    assert summary["round_trips"] == int(idata.sample_stats["round_trips"].values[:, -1].sum())
    rates = np.asarray(summary["swap_rate"])
    assert np.all((rates > 0) & (rates <= 1))
    assert summary["barrier"] == pytest.approx(float(np.sum(1 - rates)))
    assert any("swap acceptance" in line for line in kernel.summary_lines(summary))


def test_refusals_are_one_line():
    with pytest.raises(UserInputError, match="expected a NumPyro model function"):
        tn.PT(3)
    with pytest.raises(UserInputError, match="sampler"):
        tn.TemperingKernel(normal_scale, "no_such_sampler")
    with pytest.raises(UserInputError, match="keep_all_rungs"):
        tn.PT(normal_scale, rungs=3, schedule="fixed", keep_all_rungs=True).setup(y=Y)


# --------------------------------------------------------------------------- Geweke

N_OBS, DIM, CHAINS, ITERATIONS = 4, 2, 16, 3000
BETAS = geometric_betas(3, 0.2)


class HotRungKernel(tn.TemperingKernel):
    """BROKEN: reports rung 1's replica (a tempered posterior) as the draw."""

    def setup(self, *args, **kwargs):
        built = super().setup(*args, **kwargs)
        wrong = built.algorithm._replace(position=lambda s: s.replicas.position[1])
        return built._replace(algorithm=wrong)


def updater(kernel_class):
    """One ``sample`` call of the kernel on p(θ | y) from θ, the hot replicas drawn exactly
    from their rungs first (PT leaves the product of its rungs invariant)."""

    def update(key, theta, y):
        k_init, k_hot, k_run = jax.random.split(key, 3)
        kernel = kernel_class(conjugate_model(y), "pt", **OPTIONS, step_size=0.8)
        with jax.ensure_compile_time_eval():  # the build's β's and facts are constants
            built = kernel.setup()
        assert np.allclose(built.algorithm.facts["betas"], BETAS)
        state = kernel.init(k_run, 0, theta, (), {})
        hot = []
        for m, k in enumerate(jax.random.split(k_hot, len(BETAS) - 1), start=1):
            precision = 1.0 + BETAS[m] * N_OBS
            hot.append(BETAS[m] * jnp.sum(y, axis=0) / precision
                       + jax.random.normal(k, (DIM,)) / jnp.sqrt(precision))
        state = state._replace(inner=built.algorithm.init(k_init, jnp.stack([theta, *hot])))
        return kernel.sample(state, (), {}).z

    return update


CASES = cases(correct={"numpyro_pt": tn.TemperingKernel},
              broken={"numpyro_pt_reports_hot_rung": HotRungKernel})


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_numpyro_pt_geweke(case: GewekeCase):
    check_geweke(case, conjugate_geweke(updater(case.build), n_obs=N_OBS, dim=DIM, chains=CHAINS,
                                        iterations=ITERATIONS, seed=11))
