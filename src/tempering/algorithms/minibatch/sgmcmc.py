"""Stochastic-gradient MCMC on MINT's mini-batches: what SGLD and SGHMC share (seed 003 §4, the
baselines MINT is compared with in §4.1 and §4.3.2), with control variates at the mode and a step
size chosen from the data by default.

Every step draws a batch B of m of the n data points uniformly without replacement (the same
draw as MINT, :meth:`~tempering.ladders.minibatch.MinibatchTarget.draw`) and hands BlackJAX's
integrator an estimate ĝ of ∇ log π, π ∝ π₀ L the untempered posterior
(:func:`~tempering.ladders.minibatch.minibatch_target` with s = n and κ = 1). With
``control_variates`` (the default) it is Baker, Fearnhead, Fox & Nemeth's (2019, "Control
variates for stochastic gradient MCMC", Statistics and Computing) estimator centred at the
posterior mode θ̂,

    ĝ(θ) = ∇ log π(θ̂) + ∇ log π₀(θ) − ∇ log π₀(θ̂) + (n/m) Σ_{i∈B} [∇l_i(θ) − ∇l_i(θ̂)],

otherwise the plain ∇ log π₀(θ) + (n/m) Σ_{i∈B} ∇l_i(θ)
(:mod:`~tempering.algorithms.minibatch.control_variates`). The move itself is BlackJAX's
(``blackjax.sgmcmc.diffusions``). BlackJAX's ``temperature`` T scales the injected noise variance
by T, so in the small-step limit SGLD samples (π₀ L)^(1/T): the prior is tempered along with the
likelihood — unlike the library's power rung π₀ L^β, and unlike MINT's default κ = 1.

Warmup (the algorithm's ``warmup``, so the driver counts its seconds and work): L-BFGS on the full
data finds θ̂, and the Hessian H = −∇² log π(θ̂) is read for its largest eigenvalue λ_max
(:mod:`~tempering.algorithms.minibatch.sgmcmc_tuning`); with control variates the full-data
Σ_i ∇l_i(θ̂) is computed once; when ``step_size`` is not given it is chosen from λ_max (which
grows like n: the step shrinks with the data), SGLD's and SGHMC's own rule; the chain then starts
at θ̂ and makes the warmup's steps. Without control variates and with a given step size there is
no optimiser: the warmup's steps, then λ_max at their last draw. Without warmup the estimator is
the plain one (no centre yet) and the step is the options' or a small fallback.

Preconditioning (``precondition``; by default on when the step is chosen and d ≤ 64, where the
Hessian is computed densely): the chain moves φ with θ = θ₀ + B φ, B Bᵀ = H⁻¹ (B = C⁻ᵀ, H = C Cᵀ),
BlackJAX's integrator given ∇_φ = Bᵀ ĝ — SGLD becomes θ′ = θ + h B Bᵀ ĝ + √(2Th) B z and SGHMC's
momentum has mass matrix H. Near the mode every direction then has curvature ≈ 1 (λ_max of
Bᵀ H B is 1), so the step the stiffest direction allows is as large in the flattest: a scalar
step alone leaves the flattest direction κ = λ_max/λ_min times slower (on the 10-coefficient
logistic regression below, κ = 4.2: SGLD's ESS went from 35 to 159 of 4 000 draws at c = 0.1).
A given ``step_size`` is then in φ's units (≈ posterior sds); unset, ``precondition`` follows it.

These samplers make no Metropolis–Hastings correction (``acceptance_rate`` is 1): the chain's law
differs from the target by a discretisation bias and by what the gradient noise injects. For a
Gaussian target with precision P and gradient-noise variance V per step, SGLD's stationary
variance is exactly (2hT + h²V)/(1 − (1 − hP)²) = (T/P)(1 + hV/(2T))/(1 − hP/2) per coordinate.
Each step records the two factors of that prediction (:data:`STEP_INFLATION`,
:data:`NOISE_INFLATION`): the step's (exact for a Gaussian of curvature λ_max, the worst
direction) and the noise's, 1 + h_d V_j/(2T) with V_j estimated from the batch's per-datum
gradient terms (in the coordinates the chain moves) and h_d the step's drift coefficient (SGLD h,
SGHMC L(L−1)ε²/2), the largest over coordinates j — one scalar per draw, not d, so that a BNN's
run file does not grow by d numbers a draw (the mean over draws of a maximum over coordinates
leans high: the check errs towards warning); ``tempering summary`` warns when the product of the
two puts a standard deviation more than 10% off
(:func:`~tempering.summary.checks.sgmcmc_bias_warnings`).

Cost per step: batch gradients × m/n — SGLD one, SGHMC ``num_integration_steps``, one more with
control variates (the ∇l_i(θ̂) of the batch). ``lp`` is log π̂_B at the new position on the step's
batch, a diagnostic evaluation the algorithm does not need and whose work is not counted.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ClassVar, NamedTuple, Self

import jax
import jax.numpy as jnp
from pydantic import Field, PositiveFloat, PositiveInt

from tempering.algorithms.base import Algorithm, AlgorithmInfo, Stat
from tempering.algorithms.minibatch.control_variates import (
    Centre,
    full_lik_gradient,
    full_log_density,
    gradient_estimator,
)
from tempering.algorithms.minibatch.mint import BATCH_SIZE
from tempering.algorithms.minibatch.sgmcmc_tuning import (
    DENSE_HESSIAN_MAX,
    curvature_at,
    find_mode,
)
from tempering.config import Options
from tempering.errors import UserInputError
from tempering.ladders.minibatch import MinibatchTarget, minibatch_target, tempered_scaling
from tempering.models.base import Model
from tempering.numerics import run_steps

Array = jax.Array

LP = Stat("lp", (), "log π₀ + (n/m) Σ_B l_i at the draw on the step's batch B: a mini-batch "
          "estimate of the untempered log posterior (the chain samples it to the power 1/T)")
ACCEPTANCE = Stat("acceptance_rate", (), "1: stochastic-gradient MCMC makes no "
                  "Metropolis–Hastings correction (every move is taken)")
STEP_INFLATION = Stat("step_inflation", (), "predicted factor on the posterior variance from "
                      "the step alone (exact gradients, a Gaussian of the largest curvature at "
                      "the mode); NaN without warmup")
NOISE_INFLATION = Stat("noise_inflation", (), "predicted factor on the variance from the "
                       "gradient noise, 1 + h_d V_j/(2T), V_j estimated on the step's batch, "
                       "largest over coordinates j")
SGMCMC_STATS = (LP, ACCEPTANCE, BATCH_SIZE, STEP_INFLATION, NOISE_INFLATION)

TEMPERATURE_MEANING = ("BlackJAX's temperature T: the injected noise is scaled by √T, so the "
                       "chain samples (π₀ L)^(1/T) in the small-step limit — the prior is "
                       "tempered too, unlike the library's power rung π₀ L^β")


class SgmcmcState(NamedTuple):
    """The chain's state: BlackJAX's SGLD/SGHMC state is the position alone (SGHMC draws a fresh
    momentum every step)."""

    position: Array


#: (key, θ, ĝ(θ) on the step's batch, θ′ ↦ ĝ(θ′) on the same batch, step size) ↦ new θ.
Move = Callable[[Array, Array, Array, Callable[[Array], Array], Array], Array]


class Scheme(NamedTuple):
    """What a sampler adds to :func:`sgmcmc_algorithm`.

    Attributes
    ----------
    move
        One step of the sampler from a batch's first gradient estimate (:data:`Move`).
    gradients_per_step
        Batch gradients the move evaluates (the control variates' one more is added here).
    auto_step
        λ_max (of Bᵀ H B when preconditioned) ↦ the step size chosen from the data.
    step_inflation
        (step size, λ_max) ↦ the stationary variance over the target's, exact for a Gaussian of
        precision λ_max with exact gradients (∞ where the step is unstable).
    drift
        step size ↦ h_d, the coefficient of the gradient in one step's displacement (its noise
        inflates the variance by h_d V/(2T)).
    fallback_step
        The step size used before warmup has chosen one (a run without warmup).
    """

    move: Move
    gradients_per_step: int
    auto_step: Callable[[Array], Array]
    step_inflation: Callable[[Array, Array], Array]
    drift: Callable[[Array], Array]
    fallback_step: float


class SgmcmcOptions(Options):
    """``batch`` (m; default n^½ rounded, as MINT), ``step_size`` (default: from the curvature
    at the mode), BlackJAX's ``temperature``, ``control_variates`` (default on) and
    ``precondition`` (resolved: on when the step is chosen and the Hessian is dense)."""

    #: The sampler's name, for messages.
    NAME: ClassVar[str] = "sgmcmc"

    batch: PositiveInt | None = Field(None, description="data points per step, m (default: "
                                      "n^½ rounded, as MINT)")
    step_size: PositiveFloat | None = Field(None, description="constant step size; default: "
                                            "chosen in warmup from the curvature at the mode")
    temperature: PositiveFloat = Field(1.0, description=TEMPERATURE_MEANING)
    control_variates: bool = Field(True, description="centre the gradient estimator at the "
                                   "posterior mode found in warmup (Baker et al. 2019)")
    precondition: bool | None = Field(None, description="move in the coordinates that whiten "
                                      "the Hessian at the mode (step_size is then in those "
                                      "units); default: when step_size is not given and d ≤ "
                                      f"{DENSE_HESSIAN_MAX}")

    def resolve(self, model: Any) -> Self:
        """The batch size from n and ``precondition``, written explicitly; a model without
        per-datum terms, or preconditioning beyond the dense Hessian's dimension, is a one-line
        error."""
        if getattr(model, "log_lik_terms_fn", None) is None:
            raise UserInputError(f"sampler: {self.NAME} needs a model with per-datum likelihood "
                                 f"terms; {model.name} has none")
        try:
            batch = tempered_scaling(model.n_data, batch=self.batch).m
        except ValueError as err:
            raise UserInputError(f"sampler.{err}") from None
        dense = model.dim <= DENSE_HESSIAN_MAX
        if self.precondition and not dense:
            raise UserInputError(f"sampler.precondition: needs the dense Hessian, d ≤ "
                                 f"{DENSE_HESSIAN_MAX} (the model has d = {model.dim})")
        precondition = (self.step_size is None and dense if self.precondition is None
                        else self.precondition)
        return self.model_copy(update={"batch": batch, "precondition": precondition})

    def target(self, model: Model) -> MinibatchTarget:
        """log π₀ + (n/m) Σ_B l_i: the batch density whose gradient is estimated."""
        assert self.batch is not None, "resolve the options first"
        return minibatch_target(model, self.batch, float(model.n_data), "full")


def initial_params(model: Model, options: SgmcmcOptions, scheme: Scheme) -> dict[str, Array]:
    """The parameters before warmup: the options' step (or the fallback), no predicted
    inflation, the identity basis when preconditioning, and with control variates an unset
    centre (the plain estimator)."""
    step = scheme.fallback_step if options.step_size is None else options.step_size
    params = {"step_size": jnp.asarray(step, float),
              "step_inflation": jnp.asarray(jnp.nan, float)}
    if options.precondition:
        params["basis"] = jnp.eye(model.dim, dtype=float)
    if options.control_variates:
        params |= {"centre": jnp.zeros(model.dim, float),
                   "centre_lik_grad": jnp.zeros(model.dim, float),
                   "centred": jnp.asarray(0.0, float)}
    return params


def moved(move: Move, key: Array, position: Array, gradient: Array,
          gradient_at: Callable[[Array], Array], step_size: Array, basis: Array | None) -> Array:
    """``move`` from θ, in θ itself (``basis`` ``None``) or in φ with θ = θ₀ + B φ: the move
    sees ∇_φ = Bᵀ ∇_θ and starts at φ = 0 (preconditioning by B Bᵀ, BlackJAX's integrator
    unchanged)."""
    if basis is None:
        return move(key, position, gradient, gradient_at, step_size)

    def gradient_phi(phi):
        return basis.T @ gradient_at(position + basis @ phi)

    phi = move(key, jnp.zeros_like(position), basis.T @ gradient, gradient_phi, step_size)
    return position + basis @ phi


def sgmcmc_algorithm(model: Model, options: SgmcmcOptions, scheme: Scheme) -> Algorithm:
    """The algorithm that makes one ``scheme.move`` per step on a fresh batch."""
    target = options.target(model)
    estimator = gradient_estimator(model, target)
    grads = scheme.gradients_per_step + (1 if options.control_variates else 0)
    cost = grads * target.m / target.n

    def init(key, position):
        del key
        return SgmcmcState(jnp.asarray(position))

    def step(key, state, params):
        key_batch, key_move = jax.random.split(key)
        batch = target.draw(key_batch)
        centre = (Centre(params["centre"], params["centre_lik_grad"], params["centred"])
                  if options.control_variates else None)
        basis = params["basis"] if options.precondition else None
        first = estimator.estimate(state.position, batch, centre, basis)

        def gradient(theta):
            return estimator.batch_sum_gradient(theta, batch) + first.correction

        step_size = params["step_size"]
        position = moved(scheme.move, key_move, state.position, first.gradient, gradient,
                         step_size, basis)
        noise = 1.0 + scheme.drift(step_size) * jnp.max(first.noise_variance) \
            / (2.0 * options.temperature)
        stats = {BATCH_SIZE.name: jnp.asarray(target.m, float),
                 STEP_INFLATION.name: params["step_inflation"], NOISE_INFLATION.name: noise}
        return SgmcmcState(position), AlgorithmInfo(
            jnp.ones(()), jnp.asarray(cost, float), target.log_density(position, batch),
            stats)

    all_facts = {"n": target.n, "batch": target.m, "temperature": options.temperature,
                 "target": "(prior × likelihood)^(1/temperature)",
                 "control_variates": options.control_variates,
                 "precondition": options.precondition,
                 "gradients_per_step": grads, "step_cost": cost}
    return Algorithm(init, sgmcmc_warmup(model, options, scheme, step),
                     step, lambda state: state.position, initial_params(model, options, scheme),
                     SGMCMC_STATS, facts=all_facts)


def sgmcmc_warmup(model: Model, options: SgmcmcOptions, scheme: Scheme, step):
    """Warmup: mode, curvature, step size and centre on the full data (when control variates
    are on or the step is to be chosen), then the warmup's steps from the mode; otherwise the
    steps, then the curvature at their last draw. The cost is every full-data evaluation
    (:mod:`~tempering.algorithms.minibatch.sgmcmc_tuning`) plus the steps'."""
    target = options.target(model)
    log_density = full_log_density(model, target)
    from_mode = options.control_variates or options.step_size is None or options.precondition

    def tuned(params, curvature):
        largest = curvature.largest
        usable = jnp.isfinite(largest) & (largest > 0)
        step_size = params["step_size"]
        if options.step_size is None:
            step_size = jnp.where(usable, scheme.auto_step(jnp.where(usable, largest, 1.0)),
                                  step_size).astype(step_size.dtype)
        inflation = scheme.step_inflation(step_size, largest)
        params = {**params, "step_size": step_size,
                  "step_inflation": inflation.astype(params["step_inflation"].dtype)}
        if curvature.basis is not None:
            params["basis"] = curvature.basis.astype(params["basis"].dtype)
        return params

    def warmup(key, state, params, num_steps):
        def burn(state, params):
            return run_steps(lambda k, s: step(k, s, params), key, state, num_steps,
                             lambda info: info.cost)

        if not from_mode:
            state, spent = burn(state, params)
            curvature = curvature_at(log_density, state.position, False)
            return state, tuned(params, curvature), spent + curvature.evals
        mode, evals = find_mode(log_density, state.position)
        mode = jnp.where(jnp.all(jnp.isfinite(mode)), mode, state.position)
        curvature = curvature_at(log_density, mode, bool(options.precondition))
        params = tuned(params, curvature)
        spent = evals + curvature.evals
        if options.control_variates:
            params = {**params, "centre": mode,
                      "centre_lik_grad": full_lik_gradient(model, target, mode),
                      "centred": jnp.ones_like(params["centred"])}
            spent = spent + 1.0
        state, burned = burn(SgmcmcState(mode), params)
        return state, params, spent + burned

    return warmup


def sgmcmc_predicted_cost(run: Mapping[str, Any], inner_evals: float) -> float:
    """Gradient evaluations per step × m/n (no inner kernel: ``inner_evals`` is unused)."""
    del inner_evals
    return float(run["gradients_per_step"]) * float(run["batch"]) / float(run["n"])
