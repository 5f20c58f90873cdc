"""Stochastic gradient Langevin dynamics, SGLD (Welling & Teh 2011; BlackJAX ``sgld``), on MINT's
mini-batches — a baseline of seed 003 (§4.1, §4.3.2).

One step, with g_B(θ) = ∇[log π₀(θ) + (n/m) Σ_{i∈B} l_i(θ)] on a fresh batch B:

    θ′ = θ + h g_B(θ) + √(2 T h) z,        z ~ N(0, I),

BlackJAX's Euler step of the overdamped Langevin diffusion whose stationary law is (π₀ L)^(1/T):
its ``temperature`` T tempers the prior as well as the likelihood (unlike the library's power
rung). No Metropolis–Hastings correction (acceptance 1); constant h (the paper's SGLD anneals it;
here it is fixed, so the chain keeps an O(h) bias — :mod:`tempering.algorithms.minibatch.sgmcmc`
gives the exact Gaussian-case variance). One batch gradient per step: cost m/n.
"""

from __future__ import annotations

import blackjax
from pydantic import Field, PositiveFloat

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


class SgldOptions(SgmcmcOptions):
    """``batch`` (m; default n^½ rounded), ``step_size`` h (the drift's factor; the noise sd is
    √(2Th)) and ``temperature`` T (the chain samples (π₀ L)^(1/T): the prior is tempered too)."""

    NAME = "sgld"

    step_size: PositiveFloat = Field(1e-4, description="h in θ′ = θ + h g_B + √(2Th) z, constant "
                                     "(no annealing, no adaptation)")


def build(model: Model, options: SgldOptions) -> Algorithm:
    sgld = blackjax.sgld(batch_gradient(options.target(model)))

    def move(key, position, batch, step_size):
        return sgld.step(key, position, batch, step_size, options.temperature)

    return sgmcmc_algorithm(model, options, move, 1)


SPEC = SamplerSpec(
    name="sgld",
    summary="stochastic gradient Langevin dynamics on MINT's mini-batches (BlackJAX); samples "
            "(prior × likelihood)^(1/T) up to O(step) bias, no MH correction",
    options=SgldOptions,
    build=build,
    stats=SGMCMC_STATS,
    predicted_cost=sgmcmc_predicted_cost,
)
