"""A three-component Gaussian mixture in PyMC: label switching, which PT crosses and NUTS does not.

    w ~ Dirichlet(1, 1, 1),  μ_k ~ N(0, 5²),  σ ~ HalfNormal(2),
    y_i ~ Σ_k w_k N(μ_k, σ²)  (i = 1..90; data drawn at μ = (−4, 0, 4), σ = 1).

The prior is exchangeable in the labels k, so the posterior has 3! = 6 symmetric modes, one per
ordering of μ, each of mass exactly 1/6. ``ordering[j]`` is 1 when the labels sorted by μ are
the j-th permutation of ``PERMUTATIONS``: its posterior mean is 1/6 for every j, and a sampler that
stays in one mode per chain reports zeros. From the command line (``model`` is a ``pymc.Model``,
turned into a tempering model by ``tempering.from_pymc``)::

    tempering sample --model examples/pymc_mixture.py:model --sampler pt --chains 4 \\
        --draws 2000 --out m.nc
    tempering summary m.nc        # ordering[0..5]: every mean near 1/6

``python examples/pymc_mixture.py`` runs PyMC's default NUTS (``pm.sample``, 4 chains) and PT from
Python and prints the share of draws in each ordering. The data sit in a ``pm.Data`` container,
so the model has per-datum terms (``spt``, ``stt`` and ``mint`` run it too).
"""

import itertools

import numpy as np
import pymc as pm
import pytensor.tensor as pt

K = 3
PERMUTATIONS = list(itertools.permutations(range(K)))
Y = np.concatenate([np.random.default_rng(1).normal(m, 1.0, 30) for m in (-4.0, 0.0, 4.0)])

with pm.Model() as model:
    y_obs = pm.Data("y_obs", Y)
    w = pm.Dirichlet("w", np.ones(K))
    mu = pm.Normal("mu", 0.0, 5.0, shape=K)
    sigma = pm.HalfNormal("sigma", 2.0)
    pm.NormalMixture("y", w=w, mu=mu, sigma=sigma, observed=y_obs)
    order = pt.argsort(mu)
    pm.Deterministic("ordering", pt.stack([pt.all(pt.eq(order, p)) for p in PERMUTATIONS]
                                          ).astype("float64"))


def ordering_shares(ordering: np.ndarray) -> np.ndarray:
    """Share of the draws in each ordering, per chain: (chain, draw, 6) → (chain, 6)."""
    return np.asarray(ordering).mean(axis=1)


if __name__ == "__main__":
    import tempering

    with model:
        nuts = pm.sample(chains=4, random_seed=1, progressbar=False)
    print("PyMC's NUTS, share of draws per ordering (rows: chains):")
    print(np.round(ordering_shares(nuts.posterior["ordering"].values), 2))
    ours = tempering.from_pymc(model)
    idata = tempering.sample(ours, tempering.get_sampler("pt", ours), key=0, chains=4,
                             draws=2000, progress=False)
    print("tempering's PT:")
    print(np.round(ordering_shares(idata.posterior["ordering"].values), 2))
