"""Stochastic gradient Langevin dynamics, SGLD (Welling & Teh 2011; BlackJAX's ``sgld`` step), on
MINT's mini-batches — a baseline of seed 003 (§4.1, §4.3.2) — by default SGLD-CV (Baker,
Fearnhead, Fox & Nemeth 2019, "Control variates for stochastic gradient MCMC", Statistics and
Computing): control variates at the mode and a step chosen from the curvature there.

One step, with ĝ(θ) the batch estimate of ∇ log π(θ) on a fresh batch
(:mod:`~tempering.algorithms.minibatch.sgmcmc`):

    θ′ = θ + h ĝ(θ) + √(2 T h) z,        z ~ N(0, I),

BlackJAX's Euler step (``blackjax.sgmcmc.diffusions.overdamped_langevin``) of the overdamped
Langevin diffusion whose stationary law is (π₀ L)^(1/T): its ``temperature`` T tempers the prior
as well as the likelihood (unlike the library's power rung). No Metropolis–Hastings correction
(acceptance 1); constant h (Welling & Teh anneal it; here it is fixed, so the chain keeps an O(h)
bias).

The step from the data: on a Gaussian of precision P with exact gradients the stationary
variance is (T/P)/(1 − hP/2), so h = c/λ_max, λ_max the largest eigenvalue of −∇² log π at the
mode, keeps the variance's bias under c/(2 − c) in every direction, and the chain's
autocorrelation time in a direction of curvature λ is (2 − hλ)/(hλ) steps. Preconditioned (the
default, :mod:`~tempering.algorithms.minibatch.sgmcmc`) every direction has λ ≈ λ_max = 1, so
h = c: c = :data:`STEP_FRACTION` = 0.15 gives 8.1% on the variance (4.0% on the sd) and an
autocorrelation time of 12 steps — a compromise measured on the logistic regression of n = 10⁵,
d = 10 at 4 × 1 000 draws, 4 seeds: c = 0.1 (5.3%) left a bulk ESS of 140–160 and a largest
error of the 10 means of 0.07–0.26 sd; c = 0.15, 200–290 and 0.06–0.21 sd (the same seed worst,
its first 1 000 draws a 3σ fluctuation by its 8 000-draw run). Without preconditioning the
flattest direction is κ = λ_max/λ_min times slower. As λ_max grows like n, the step shrinks like
1/n; control variates keep the gradient noise's share, h V/(2T), small (V = O(n) near the mode
instead of O(n²/m)).

Cost: one batch gradient per step, m/n; with control variates two (the batch's ∇l_i(θ̂) too).
"""

from __future__ import annotations

import jax.numpy as jnp
from blackjax.sgmcmc.diffusions import overdamped_langevin
from pydantic import Field, PositiveFloat

from tempering.algorithms.base import Algorithm
from tempering.algorithms.minibatch.sgmcmc import (
    SGMCMC_STATS,
    Scheme,
    SgmcmcOptions,
    sgmcmc_algorithm,
    sgmcmc_predicted_cost,
)
from tempering.algorithms.spec import SamplerSpec
from tempering.models.base import Model

#: c in h = c/λ_max (variance bias at most c/(2 − c): 8.1%).
STEP_FRACTION = 0.15
#: The step of a run without warmup when none is given (the former default).
FALLBACK_STEP = 1e-4


class SgldOptions(SgmcmcOptions):
    """``batch`` (m; default n^½ rounded), ``step_size`` h (the drift's factor; the noise sd is
    √(2Th); default 0.15/λ_max at the mode), ``temperature`` T (the chain samples
    (π₀ L)^(1/T): the prior is tempered too), ``control_variates`` and ``precondition``."""

    NAME = "sgld"

    step_size: PositiveFloat | None = Field(None, description="h in θ′ = θ + h ĝ + √(2Th) z, "
                                            "constant; default 0.15/λ_max, λ_max the largest "
                                            "curvature at the mode (chosen in warmup; 0.15 "
                                            "when preconditioned)")


def sgld_step_inflation(step_size, curvature):
    """1/(1 − hP/2): SGLD's stationary variance over T/P on a Gaussian of precision P with exact
    gradients (∞ for hP ≥ 2, where the chain diverges)."""
    half = step_size * curvature / 2.0
    return jnp.where(half < 1.0, 1.0 / (1.0 - half), jnp.inf)


def build(model: Model, options: SgldOptions) -> Algorithm:
    langevin = overdamped_langevin()

    def move(key, position, gradient, gradient_at, step_size):
        del gradient_at
        return langevin(key, position, gradient, step_size, options.temperature)

    scheme = Scheme(move, 1, lambda curvature: STEP_FRACTION / curvature, sgld_step_inflation,
                    lambda step_size: step_size, FALLBACK_STEP)
    return sgmcmc_algorithm(model, options, scheme)


SPEC = SamplerSpec(
    name="sgld",
    summary="stochastic gradient Langevin dynamics on MINT's mini-batches (BlackJAX), with "
            "control variates at the mode and a step from its curvature (SGLD-CV); samples "
            "(prior × likelihood)^(1/T) up to O(step) bias, no MH correction",
    options=SgldOptions,
    build=build,
    stats=SGMCMC_STATS,
    predicted_cost=sgmcmc_predicted_cost,
)
