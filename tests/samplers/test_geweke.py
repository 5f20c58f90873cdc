"""Geweke-style invariance of every inner kernel (successive-conditional simulator,
:func:`support.conjugate_geweke`).

Model: θ ∈ R², θ ~ N(0, I); y_1..y_3 | θ ~ N(θ, I). One iteration makes one step of the kernel
under test on p(θ | y) (re-initialised, since its cached log density belongs to the old y), then
draws a fresh y ~ p(y | θ). If the kernel leaves p(θ | y) invariant, θ keeps mean 0 and second
moment 1 and its residual about E[θ | y] keeps the posterior variance. Deliberately broken kernels
— a proposal drift without its Hastings correction; HMC whose momentum is drawn at three times its
metric's scale; a kernel targeting a tempered posterior — must be caught by the same statistics.
"""

from __future__ import annotations

import blackjax
import jax
import jax.numpy as jnp
import pytest
from support import cases, check_geweke, conjugate_geweke

from tempering.kernels import hmc, nuts, rwm, slice
from tempering.kernels.base import Kernel, StepInfo
from tempering.numerics import metropolis, select

N_OBS, DIM, CHAINS, ITERATIONS = 3, 2, 4, 4000


def log_posterior(y):
    def log_density(theta):
        return -0.5 * jnp.sum(theta**2) - 0.5 * jnp.sum((y - theta) ** 2)

    return log_density


def drifting_rwm(logdensity_fn, step_size=1.0, drift=0.3):
    """BROKEN: proposes θ + drift + σε but accepts with π(θ′)/π(θ), omitting q(θ|θ′)/q(θ′|θ)."""

    def init(position):
        return rwm.make(logdensity_fn, step_size).init(position)

    def step(key, state):
        k1, k2 = jax.random.split(key)
        proposal = state.position + drift + step_size * jax.random.normal(k1, state.position.shape)
        new_lp = logdensity_fn(proposal)
        accept, _ = metropolis(k2, new_lp - state.logdensity)
        new = select(accept, state._replace(position=proposal, logdensity=new_lp), state)
        return new, StepInfo(jnp.ones(()), accept, jnp.ones(()), jnp.zeros((), bool))

    return Kernel(init, step)


def overdispersed_hmc(logdensity_fn, step_size=0.3, num_steps=5, scale=3.0):
    """BROKEN: HMC whose momentum is drawn at ``scale`` times the metric's (the kinetic energy
    is the unit metric's), so its Metropolis test is for another extended target; otherwise the
    transition of :func:`tempering.kernels.hmc.one_draw_step`."""
    metric = blackjax.mcmc.metrics.default_metric(jnp.ones(DIM))

    def init(position):
        return hmc.make(logdensity_fn, step_size, num_steps).init(position)

    def step(key, state):
        k_momentum, k_accept = jax.random.split(key)
        momentum = scale * jax.random.normal(k_momentum, state.position.shape)
        integrator = blackjax.mcmc.integrators.velocity_verlet(logdensity_fn,
                                                               metric.kinetic_energy)
        generate = blackjax.mcmc.hmc.hmc_proposal(integrator, metric.kinetic_energy, step_size,
                                                  num_steps)
        proposal, info, _ = generate(k_accept, blackjax.mcmc.integrators.IntegratorState(
            state.position, momentum, state.logdensity, state.logdensity_grad))
        new = blackjax.mcmc.hmc.HMCState(proposal.position, proposal.logdensity,
                                         proposal.logdensity_grad)
        return new, StepInfo(info.acceptance_rate, info.is_accepted, jnp.ones(()),
                             info.is_divergent)

    return Kernel(init, step)


CASES = cases(
    correct={
        "rwm": lambda fn: rwm.make(fn, jnp.ones(DIM)),
        "hmc": lambda fn: hmc.make(fn, 0.3, num_steps=5),
        "hmc_mass": lambda fn: hmc.make(fn, 0.3, num_steps=5,
                                        inverse_mass_matrix=jnp.asarray([0.5, 2.0])),
        "nuts": lambda fn: nuts.make(fn, 0.4, jnp.ones(DIM)),
        "slice": lambda fn: slice.make(fn, jnp.ones(DIM)),
        "slice_reversed": lambda fn: slice.make(fn, jnp.ones(DIM), reverse=True),
    },
    broken={
        "drifting_rwm": drifting_rwm,
        "overdispersed_hmc": overdispersed_hmc,
        "tempered_slice": lambda fn: slice.make(lambda t: 0.6 * fn(t), jnp.ones(DIM)),
    },
)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_kernel_geweke(case):
    def update(key, theta, y):
        kernel = case.build(log_posterior(y))
        return kernel.step(key, kernel.init(theta))[0].position

    check_geweke(case, conjugate_geweke(update, n_obs=N_OBS, dim=DIM, chains=CHAINS,
                                        iterations=ITERATIONS, seed=7))
