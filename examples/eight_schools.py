"""Eight schools (Rubin 1981; Gelman et al., BDA3 §5.5), non-centred, as a NumPyro model.

    μ ~ N(0, 5²),  τ ~ HalfCauchy(5),  θ̃_j ~ N(0, 1),  θ_j = μ + τ θ̃_j,  y_j ~ N(θ_j, σ_j²).

From the command line (the file's ``model`` is a tempering ``Model``)::

    tempering sample --model examples/eight_schools.py:model --sampler nuts \\
        --chains 4 --draws 1000 --out s.nc

The school effects θ̃_j are local latent variables, so the model has no per-datum terms: the
full-data samplers (``nuts``, ``pt``, ``tt``, ``st``, ...) run it.
"""

import numpy as np
import numpyro
import numpyro.distributions as dist

import tempering

Y = np.array([28.0, 8.0, -3.0, 7.0, -1.0, 1.0, 18.0, 12.0])
SIGMA = np.array([15.0, 10.0, 16.0, 11.0, 9.0, 11.0, 10.0, 18.0])


def eight_schools(sigma, y=None):
    mu = numpyro.sample("mu", dist.Normal(0.0, 5.0))
    tau = numpyro.sample("tau", dist.HalfCauchy(5.0))
    with numpyro.plate("school", sigma.shape[0]):
        theta_tilde = numpyro.sample("theta_tilde", dist.Normal(0.0, 1.0))
        theta = numpyro.deterministic("theta", mu + tau * theta_tilde)
        numpyro.sample("y", dist.Normal(theta, sigma), obs=y)


model = tempering.from_numpyro(eight_schools, sigma=SIGMA, y=Y, name="eight_schools")
