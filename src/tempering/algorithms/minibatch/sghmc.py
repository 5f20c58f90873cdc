"""Stochastic gradient Hamiltonian Monte Carlo, SGHMC (Chen, Fox & Guestrin 2014; BlackJAX
``sghmc``), on MINT's mini-batches — a baseline of seed 003 (§4.1, §4.3.2).

One step draws a batch B and a momentum p ~ N(0, I), then makes L = ``num_integration_steps``
Euler steps of the friction-damped dynamics with the batch gradient g_B (the same batch for all
L), BlackJAX's discretisation (Ma, Chen & Fox 2015 scaling):

    θ ← θ + ε p,    p ← (1 − α ε) p + ε g_B(θ_old) + √(ε T (2α − ε T β)) z,

α the friction, β the estimate of the gradient noise subtracted from the injected noise (0: none)
— the momentum update uses the gradient at the position before the move (explicit Euler). The
continuous dynamics leave (π₀ L)^(1/T) × N(0, T I) invariant; BlackJAX refreshes the momentum as
N(0, I) whatever T is, so with the small default friction the refresh sets the spread and T is
all but ignored (measured on ``mvn_mean``, n = 200: T = 2 gives the variance of T = 1, not
twice it): use T = 1 with SGHMC. The gradient noise adds ε²V per step to the
momentum (Chen et al. need α ≥ εV/2 to absorb it), which the small default α does not: the
spread is inflated by an O(ε) amount that grows with V. No Metropolis–Hastings correction
(acceptance 1); constant ε. L batch gradients per step: cost L m/n.
"""

from __future__ import annotations

from typing import Self

import blackjax
from pydantic import Field, NonNegativeFloat, PositiveFloat, PositiveInt, model_validator

from tempering.algorithms.base import Algorithm
from tempering.algorithms.minibatch.sgmcmc import (
    SGMCMC_STATS,
    SgmcmcOptions,
    batch_gradient,
    sgmcmc_algorithm,
    sgmcmc_predicted_cost,
)
from tempering.algorithms.spec import SamplerSpec
from tempering.models.base import Model


class SghmcOptions(SgmcmcOptions):
    """``batch`` (m), ``step_size`` ε, ``temperature`` T, ``num_integration_steps`` L, friction
    ``alpha`` and gradient-noise estimate ``beta`` (BlackJAX's defaults: 10, 0.01, 0)."""

    NAME = "sghmc"

    temperature: PositiveFloat = Field(1.0, description="BlackJAX's T; with its N(0, I) "
                                       "momentum refresh and small friction T is all but "
                                       "ignored: keep 1")
    step_size: PositiveFloat = Field(1e-3, description="ε of each Euler step, constant (no "
                                     "annealing, no adaptation)")
    num_integration_steps: PositiveInt = Field(10, description="L Euler steps per step, one "
                                               "batch")
    alpha: PositiveFloat = Field(0.01, description="friction α")
    beta: NonNegativeFloat = Field(0.0, description="estimate of the gradient noise, subtracted "
                                   "from the injected noise")

    @model_validator(mode="after")
    def _noise_variance_positive(self) -> Self:
        if self.step_size * self.temperature * self.beta > 2.0 * self.alpha:
            raise ValueError("beta: the injected noise variance ε T (2α − ε T β) must not be "
                             "negative")
        return self


def build(model: Model, options: SghmcOptions) -> Algorithm:
    sghmc = blackjax.sghmc(batch_gradient(options.target(model)),
                           options.num_integration_steps, options.alpha, options.beta)

    def move(key, position, batch, step_size):
        return sghmc.step(key, position, batch, step_size, options.temperature)

    return sgmcmc_algorithm(model, options, move, options.num_integration_steps)


SPEC = SamplerSpec(
    name="sghmc",
    summary="stochastic gradient Hamiltonian Monte Carlo on MINT's mini-batches (BlackJAX); no MH "
            "correction",
    options=SghmcOptions,
    build=build,
    stats=SGMCMC_STATS,
    predicted_cost=sgmcmc_predicted_cost,
)
