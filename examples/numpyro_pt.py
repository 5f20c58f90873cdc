"""The label-switching mixture of ``examples/pymc_mixture.py`` in NumPyro, sampled by parallel
tempering under NumPyro's own ``MCMC`` driver (``tempering.numpyro.PT``).

    w ~ Dirichlet(1, 1, 1),  μ_k ~ N(0, 5²),  σ ~ HalfNormal(2),  y_i ~ Σ_k w_k N(μ_k, σ²).

``python examples/numpyro_pt.py`` runs ``MCMC(PT(mixture, rungs="auto"), ...)`` with 4
vectorized chains, prints NumPyro's ``print_summary()`` (the μ_k's means near 0 and large
spreads: every chain visits every ordering of the labels), the share of draws in each ordering,
and PT's own summary (swap rates, round trips, Λ̂) from the statistics collected through
``extra_fields``. Checkpoints and run files need ``tempering sample`` (docs: "Your PyMC model, and
NumPyro's MCMC").
"""

import itertools

import jax
import jax.numpy as jnp
import numpy as np
import numpyro
import numpyro.distributions as dist
from numpyro.infer import MCMC

import tempering.numpyro

K = 3
PERMUTATIONS = np.array(list(itertools.permutations(range(K))))
Y = np.concatenate([np.random.default_rng(1).normal(m, 1.0, 30) for m in (-4.0, 0.0, 4.0)])


def mixture(y):
    w = numpyro.sample("w", dist.Dirichlet(jnp.ones(K)))
    mu = numpyro.sample("mu", dist.Normal(0.0, 5.0).expand([K]))
    sigma = numpyro.sample("sigma", dist.HalfNormal(2.0))
    order = jnp.argsort(mu)
    numpyro.deterministic("ordering", jnp.all(order == PERMUTATIONS, axis=1).astype(float))
    with numpyro.plate("data", y.shape[0]):
        numpyro.sample("y", dist.MixtureSameFamily(dist.Categorical(w), dist.Normal(mu, sigma)),
                       obs=y)


def main() -> None:
    kernel = tempering.numpyro.PT(mixture, rungs="auto")
    kernel.setup(y=Y)  # builds the model and runs PT's pilot (the number of rungs) once
    mcmc = MCMC(kernel, num_warmup=1000, num_samples=2000, num_chains=4,
                chain_method="vectorized", progress_bar=False)
    mcmc.run(jax.random.key(0), y=Y, extra_fields=kernel.extra_fields)
    mcmc.print_summary()
    shares = np.asarray(mcmc.get_samples(group_by_chain=True)["ordering"]).mean(axis=1)
    print("share of draws per ordering of μ (rows: chains):")
    print(np.round(shares, 2))
    for line in kernel.summary_lines(kernel.summary(mcmc)):
        print(line)


if __name__ == "__main__":
    main()
