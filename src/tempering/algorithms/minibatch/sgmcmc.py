"""Stochastic-gradient MCMC on MINT's mini-batches: what SGLD and SGHMC share (seed 003 §4, the
baselines MINT is compared with in §4.1 and §4.3.2).

Every step draws a batch B of m of the n data points uniformly without replacement (the same
draw as MINT, :meth:`~tempering.ladders.minibatch.MinibatchTarget.draw`) and hands BlackJAX the
gradient of the batch estimate of the untempered log posterior,

    log π̂_B(θ) = log π₀(θ) + (n/m) Σ_{i∈B} l_i(θ),        E_B[log π̂_B] = log π₀ + Σ_i l_i,

(:func:`~tempering.ladders.minibatch.minibatch_target` with s = n and κ = 1), computed with
``jax.grad``. The move itself is BlackJAX's (``blackjax.sgld`` / ``blackjax.sghmc``, not
rewritten here). BlackJAX's ``temperature`` T scales the injected noise variance by T, so in the
small-step limit the chain samples (π₀ L)^(1/T): the prior is tempered along with the
likelihood — unlike the library's power rung π₀ L^β, and unlike MINT's default κ = 1.

These samplers make no Metropolis–Hastings correction: every move is taken (``acceptance_rate`` is
1), and the chain's law differs from the target by an O(step size) discretisation bias plus the
variance the gradient noise injects (for a Gaussian target with precision P and gradient-noise
variance V per step, SGLD's stationary variance is (2hT + h²V)/(1 − (1 − hP)²) ≈ (T/P)(1 + hP/2 +
hV/(2T)), exactly, per coordinate). The step size is constant: the SGLD of Welling & Teh (2011)
and the paper's comparison anneal it towards 0; a schedule is not offered here. Warmup is plain
steps (burn-in, no adaptation).

Cost per step: gradient evaluations on the batch × m/n (SGLD one, SGHMC ``num_integration_steps``).
``lp`` is log π̂_B at the new position on the step's batch, a diagnostic evaluation the algorithm
does not need and whose work is not counted in ``cost``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ClassVar, NamedTuple, Self

import jax
import jax.numpy as jnp
from pydantic import Field, PositiveFloat, PositiveInt

from tempering.algorithms.base import Algorithm, AlgorithmInfo, Stat
from tempering.algorithms.minibatch.mint import BATCH_SIZE
from tempering.config import Options
from tempering.errors import UserInputError
from tempering.ladders.minibatch import MinibatchTarget, minibatch_target, tempered_scaling
from tempering.models.base import Model
from tempering.numerics import run_steps

Array = jax.Array
#: (key, position, batch indices, step size) ↦ new position: one BlackJAX step.
Move = Callable[[Array, Array, Array, Array], Array]

LP = Stat("lp", (), "log π₀ + (n/m) Σ_B l_i at the draw on the step's batch B: a mini-batch "
          "estimate of the untempered log posterior (the chain samples it to the power 1/T)")
ACCEPTANCE = Stat("acceptance_rate", (), "1: stochastic-gradient MCMC makes no "
                  "Metropolis–Hastings correction (every move is taken)")
SGMCMC_STATS = (LP, ACCEPTANCE, BATCH_SIZE)

TEMPERATURE_MEANING = ("BlackJAX's temperature T: the injected noise is scaled by √T, so the "
                       "chain samples (π₀ L)^(1/T) in the small-step limit — the prior is "
                       "tempered too, unlike the library's power rung π₀ L^β")


class SgmcmcState(NamedTuple):
    """The chain's state: BlackJAX's SGLD/SGHMC state is the position alone (SGHMC draws a fresh
    momentum every step)."""

    position: Array


class SgmcmcOptions(Options):
    """``batch`` (m; default n^½ rounded, as MINT), a constant ``step_size`` and BlackJAX's
    ``temperature``."""

    #: The sampler's name, for messages.
    NAME: ClassVar[str] = "sgmcmc"

    batch: PositiveInt | None = Field(None, description="data points per step, m (default: "
                                      "n^½ rounded, as MINT)")
    step_size: PositiveFloat = Field(1e-4, description="constant step size (no annealing, no "
                                     "adaptation)")
    temperature: PositiveFloat = Field(1.0, description=TEMPERATURE_MEANING)

    def resolve(self, model: Any) -> Self:
        """The batch size from n, written explicitly; a model without per-datum terms is a
        one-line error."""
        if getattr(model, "log_lik_terms_fn", None) is None:
            raise UserInputError(f"sampler: {self.NAME} needs a model with per-datum likelihood "
                                 f"terms; {model.name} has none")
        try:
            batch = tempered_scaling(model.n_data, batch=self.batch).m
        except ValueError as err:
            raise UserInputError(f"sampler.{err}") from None
        return self.model_copy(update={"batch": batch})

    def target(self, model: Model) -> MinibatchTarget:
        """log π₀ + (n/m) Σ_B l_i: the batch density whose gradient BlackJAX is given."""
        assert self.batch is not None, "resolve the options first"
        return minibatch_target(model, self.batch, float(model.n_data), "full")


def batch_gradient(target: MinibatchTarget) -> Callable[[Array, Array], Array]:
    """(θ, batch indices) ↦ ∇ [κ log π₀(θ) + s μ̂_B(θ)]: BlackJAX's ``grad_estimator``, the
    model's data closed over (the raw sum, not the −∞-guarded density, so that a finite gradient
    is not lost to ``jnp.where``)."""
    return jax.grad(lambda theta, batch: target.log_prior(theta)
                    + target.scale * target.mean_terms(theta, batch))


def sgmcmc_algorithm(model: Model, options: SgmcmcOptions, move: Move,
                     grads_per_step: int) -> Algorithm:
    """The algorithm that makes one ``move`` per step on a fresh batch.

    Parameters
    ----------
    move
        One BlackJAX step on a batch (it evaluates the batch gradient ``grads_per_step`` times).
    """
    target = options.target(model)
    cost = grads_per_step * target.m / target.n

    def init(key, position):
        del key
        return SgmcmcState(jnp.asarray(position))

    def step(key, state, params):
        key_batch, key_move = jax.random.split(key)
        batch = target.draw(key_batch)
        position = move(key_move, state.position, batch, params["step_size"])
        stats = {BATCH_SIZE.name: jnp.asarray(target.m, jnp.float64)}
        return SgmcmcState(position), AlgorithmInfo(
            jnp.ones(()), jnp.asarray(cost, jnp.float64), target.log_density(position, batch),
            stats)

    def warmup(key, state, params, num_steps):
        state, total = run_steps(lambda k, s: step(k, s, params), key, state, num_steps,
                                 lambda info: info.cost)
        return state, params, total

    all_facts = {"n": target.n, "batch": target.m, "temperature": options.temperature,
                 "target": "(prior × likelihood)^(1/temperature)",
                 "gradients_per_step": grads_per_step, "step_cost": cost}
    return Algorithm(init, warmup, step, lambda state: state.position,
                     {"step_size": jnp.asarray(options.step_size, jnp.float64)}, SGMCMC_STATS,
                     facts=all_facts)


def sgmcmc_predicted_cost(run: Mapping[str, Any], inner_evals: float) -> float:
    """Gradient evaluations per step × m/n (no inner kernel: ``inner_evals`` is unused)."""
    del inner_evals
    return float(run["gradients_per_step"]) * float(run["batch"]) / float(run["n"])
