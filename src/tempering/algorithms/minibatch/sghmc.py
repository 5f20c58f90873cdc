"""Stochastic gradient Hamiltonian Monte Carlo, SGHMC (Chen, Fox & Guestrin 2014; BlackJAX's
``sghmc`` step), on MINT's mini-batches — a baseline of seed 003 (§4.1, §4.3.2) — by default
SGHMC-CV (Baker, Fearnhead, Fox & Nemeth 2019, "Control variates for stochastic gradient MCMC",
Statistics and Computing): control variates at the mode and a step chosen from the curvature.

One step draws a batch B and a momentum p ~ N(0, I), then makes L = ``num_integration_steps``
Euler steps of the friction-damped dynamics with the batch estimate ĝ (the same batch for all
L), BlackJAX's discretisation (``blackjax.sgmcmc.diffusions.sghmc``, Ma, Chen & Fox 2015
scaling):

    θ ← θ + ε p,    p ← (1 − α ε) p + ε ĝ(θ_old) + √(ε T (2α − ε T β)) z,

α the friction, β the estimate of the gradient noise subtracted from the injected noise (0: none)
— the momentum update uses the gradient at the position before the move (explicit Euler). The
loop over the L steps is BlackJAX's ``sghmc`` kernel written out, so that the first gradient
(with its per-datum terms, whose spread is the step's recorded gradient noise) is computed once.
The continuous dynamics leave (π₀ L)^(1/T) × N(0, T I) invariant; BlackJAX refreshes the
momentum as N(0, I) whatever T is, so with the small default friction the refresh sets the
spread and T is all but ignored: use T = 1 with SGHMC.

Bias. On a Gaussian of precision P with exact gradients one step is linear, (θ, p) ↦ A(θ, p) +
noise with A = [[1, ε], [−εP, 1 − αε]], and the stationary variance follows exactly from A^L
(:func:`sghmc_step_inflation`). Explicit Euler with a fresh momentum every L steps moves θ by
about Lε p (variance (Lε)²) but drifts it by L(L−1)ε²/2 ∇ log π, so even as ε → 0 the variance is
L/(L−1) times too large: L = 10 (BlackJAX's default) keeps 11%, whatever ε. The default here is
L = :data:`INTEGRATION_STEPS` = 50 (2% at ε → 0), with ε = τ/(L √λ_max) — a trajectory of τ =
:data:`TRAJECTORY` = 1 radian in the stiffest direction, λ_max the largest curvature at the mode
(of Bᵀ H B, i.e. 1, when preconditioned: the momentum's mass matrix is then H) — which gives 2.9%
on the variance (1.4% on the sd) in the stiffest direction, and less in the others. Gradient
noise of variance V per inner step, the same batch over the L steps, adds about h_d V/(2T),
h_d = L(L−1)ε²/2 (against the exact recursion with fully correlated kicks: within 10% of the
excess for L ≥ 10 and τ ≤ 1).

No Metropolis–Hastings correction (acceptance 1); constant ε. L batch gradients per step (one
more with control variates): cost (L + 1) m/n.
"""

from __future__ import annotations

from typing import Self

import jax
import jax.numpy as jnp
from blackjax.sgmcmc.diffusions import sghmc as sghmc_integrator
from blackjax.util import generate_gaussian_noise
from pydantic import Field, NonNegativeFloat, PositiveFloat, PositiveInt, model_validator

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

#: Default L (BlackJAX's 10 leaves an 11% variance bias however small the step).
INTEGRATION_STEPS = 50
#: τ in ε = τ/(L √λ_max): radians per trajectory in the stiffest direction.
TRAJECTORY = 1.0
#: The step of a run without warmup when none is given (the former default).
FALLBACK_STEP = 1e-3


class SghmcOptions(SgmcmcOptions):
    """``batch`` (m), ``step_size`` ε (default 1/(L √λ_max) at the mode), ``temperature`` T,
    ``num_integration_steps`` L (default 50), friction ``alpha`` and gradient-noise estimate
    ``beta`` (BlackJAX's 0.01 and 0), ``control_variates`` and ``precondition``."""

    NAME = "sghmc"

    temperature: PositiveFloat = Field(1.0, description="BlackJAX's T; with its N(0, I) "
                                       "momentum refresh and small friction T is all but "
                                       "ignored: keep 1")
    step_size: PositiveFloat | None = Field(None, description="ε of each Euler step, constant; "
                                            "default 1/(L √λ_max), λ_max the largest curvature "
                                            "at the mode (chosen in warmup; 1/L when "
                                            "preconditioned)")
    num_integration_steps: PositiveInt = Field(INTEGRATION_STEPS, description="L Euler steps "
                                               "per step, one batch (the variance is at least "
                                               "L/(L−1) times too large)")
    alpha: PositiveFloat = Field(0.01, description="friction α")
    beta: NonNegativeFloat = Field(0.0, description="estimate of the gradient noise, subtracted "
                                   "from the injected noise")

    @model_validator(mode="after")
    def _noise_variance_positive(self) -> Self:
        if self.step_size is not None \
                and self.step_size * self.temperature * self.beta > 2.0 * self.alpha:
            raise ValueError("beta: the injected noise variance ε T (2α − ε T β) must not be "
                             "negative")
        return self


def sghmc_step_inflation(step_size, curvature, *, steps: int, alpha: float, beta: float,
                         temperature: float):
    """The stationary variance of θ over T/P for one SGHMC step (fresh p ~ N(0, 1), L Euler
    steps) on a Gaussian of precision P with exact gradients: with A = [[1, ε], [−εP, 1 − αε]]
    and injected variance q = εT(2α − εTβ) on p, v = v (A^L)₀₀² + (A^L)₀₁² + q Σ_{k<L} (A^k)₀₁²,
    so v = [(A^L)₀₁² + q Σ_k (A^k)₀₁²] / (1 − (A^L)₀₀²) (∞ where the recursion diverges)."""
    eps = step_size
    a = jnp.array([[1.0, eps], [-eps * curvature, 1.0 - alpha * eps]])
    q = eps * temperature * (2.0 * alpha - eps * temperature * beta)

    def power(carry, _):
        matrix, total = carry
        return (a @ matrix, total + matrix[0, 1] ** 2), None

    (matrix, total), _ = jax.lax.scan(power, (jnp.eye(2, dtype=a.dtype), jnp.zeros((), a.dtype)),
                                      None, length=steps)
    contraction = 1.0 - matrix[0, 0] ** 2
    variance = (matrix[0, 1] ** 2 + q * total) / contraction
    ratio = variance * curvature / temperature
    return jnp.where((contraction > 0) & jnp.isfinite(ratio), ratio, jnp.inf)


def build(model: Model, options: SghmcOptions) -> Algorithm:
    steps, temperature = options.num_integration_steps, options.temperature
    integrator = sghmc_integrator(options.alpha, options.beta)

    def move(key, position, gradient, gradient_at, step_size):
        key_momentum, key_steps = jax.random.split(key)
        momentum = generate_gaussian_noise(key_momentum, position)
        keys = jax.random.split(key_steps, steps)
        carry = integrator(keys[0], position, momentum, gradient, step_size, temperature)

        def body(carry, step_key):
            theta, p = carry
            return integrator(step_key, theta, p, gradient_at(theta), step_size,
                              temperature), None

        (position, _), _ = jax.lax.scan(body, carry, keys[1:])
        return position

    def inflation(step_size, curvature):
        return sghmc_step_inflation(step_size, curvature, steps=steps, alpha=options.alpha,
                                    beta=options.beta, temperature=temperature)

    scheme = Scheme(move, steps, lambda curvature: TRAJECTORY / (steps * jnp.sqrt(curvature)),
                    inflation, lambda eps: steps * (steps - 1) * eps**2 / 2.0, FALLBACK_STEP)
    return sgmcmc_algorithm(model, options, scheme)


SPEC = SamplerSpec(
    name="sghmc",
    summary="stochastic gradient Hamiltonian Monte Carlo on MINT's mini-batches (BlackJAX), "
            "with control variates at the mode and a step from its curvature (SGHMC-CV); no MH "
            "correction",
    options=SghmcOptions,
    build=build,
    stats=SGMCMC_STATS,
    predicted_cost=sgmcmc_predicted_cost,
)
