"""Mini-batch tempered Metropolis–Hastings, MINT (seed 003 Algorithm 1, §3).

Each step touches a batch B of m = n^τ of the n data points, drawn uniformly without replacement,
and tests a move on the batch density log π̂_B(θ) = κ log π₀(θ) + s μ̂_B(θ), s = n^λ, λ = α τ < τ
(Algorithm 1, line 5 as restored in ../shared/seeds/README.md: r = min{1, e^(s(μ̂(θ′) − μ̂(θ)))
q(θ′ → θ)/q(θ → θ′)}). Its stationary law approximates the tempered posterior π_T ∝ π₀^κ L^(1/T),
T = n^(1−λ) (§3.2; Theorem 1 bounds the kernel's error for α < ½ — at the experiments' α = 0.99
the method is approximate: measure, do not assume). κ = 1 by default (the prior is not tempered);
``temper_prior`` sets κ = 1/T; a flat prior is the model's option.

The two readings of line 5 (../shared/seeds/README.md):

- ``reading="b"`` (default; Theorem 1's proof): every step draws a fresh batch and makes one exact
  step of the inner kernel for π̂_B from the current θ — the kernel's state is initialised on the
  new batch (its cached density and gradient belong to the old one) and stepped. Any inner kernel
  works. Cost (1 + the kernel's evaluations) · m/n: 2m/n for RWM.
- ``reading="a"`` (§3.2's augmentation): the estimate log π̂ at the current θ (and, for MALA, its
  gradient) is part of the state; only θ′ gets a fresh batch. This is an exact Metropolis–Hastings
  chain on (θ, B) for π₀^κ(θ) exp(s μ̂_B(θ)) p(B), whose θ-marginal is π₀^κ E_B[exp(s μ̂_B(θ))] (a
  pseudo-marginal chain). Valid only for kernels that evaluate the density once, at a proposal
  drawn from the carried state (:attr:`~tempering.kernels.base.KernelSpec.single_proposal`: RWM,
  MALA); HMC is refused. Cost m/n per step. The carried log-estimator's noise has sd ≈
  m^(α−½) σ_θ √(1 − f): at α = 0.99 and m = 100 a chain sticks.

Both readings are one function, :func:`mint_kernel`: reading (b) re-initialises the inner state on
each batch, reading (a) carries it.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any, Literal, Self

import jax
import jax.numpy as jnp
import numpy as np
from pydantic import Field, PositiveInt, model_validator

from tempering.algorithms.base import Algorithm, AlgorithmInfo, Stat, step_scans, warmup_by_scans
from tempering.algorithms.options import InnerOptions
from tempering.algorithms.spec import SamplerSpec, StatArrays
from tempering.errors import UserInputError
from tempering.kernels import KERNELS, BoundKernel, Kernel
from tempering.kernels.base import evals_and_acceptance
from tempering.kernels.step_size import dual_averaging_warmup
from tempering.ladders.minibatch import (
    MinibatchTarget,
    TemperedScaling,
    minibatch_target,
    tempered_scaling,
)
from tempering.models.base import Model
from tempering.numerics import run_steps

Reading = Literal["a", "b"]

LP = Stat("lp", (), "log π̂_B at the draw on the batch that evaluated it (κ log π₀ + s μ̂_B), "
          "a mini-batch estimate, not the full-data density")
BATCH_SIZE = Stat("batch_size", (), "data points the step touched per batch evaluation (m)")
MEAN_LOG_LIK = Stat("mean_log_lik", (), "the carried estimate μ̂(θ) of the mean per-datum "
                    "log-likelihood at the draw (reading a)")
MINT_STATS = (LP, BATCH_SIZE, MEAN_LOG_LIK)


class MintOptions(InnerOptions):
    """``batch`` (m) or ``tau`` (m = n^τ; default τ = ½), ``alpha`` (λ = α τ; default 0.99) or
    ``lam``, the ``reading`` of Algorithm 1 line 5, ``temper_prior``, and the inner kernel with
    its options (default RWM, the paper's proposal)."""

    batch: PositiveInt | None = None
    tau: float | None = Field(None, gt=0.0, lt=1.0)
    alpha: float | None = Field(None, gt=0.0, lt=1.0)
    lam: float | None = Field(None, gt=0.0, lt=1.0)
    reading: Reading = "b"
    temper_prior: bool = False

    @model_validator(mode="after")
    def _consistent(self) -> Self:
        if self.batch is not None and self.tau is not None:
            raise ValueError("tau: give the batch size as batch or as tau, not both")
        if self.alpha is not None and self.lam is not None:
            raise ValueError("lam: give the temperature as alpha or as lam, not both")
        if self.reading == "a" and not KERNELS.get(self.inner).single_proposal:
            proposals = " or ".join(s.name for s in KERNELS.builtin if s.single_proposal)
            raise ValueError(f"reading: reading a carries the current state's estimate, so its "
                             f"proposal may use only that state: {proposals}, not {self.inner}")
        return self

    def resolve(self, model: Any) -> Self:
        """Batch size and λ from n; ``batch`` and ``alpha`` (or ``lam``) written explicitly."""
        if getattr(model, "log_lik_terms_fn", None) is None:
            raise UserInputError(f"sampler: mint needs a model with per-datum likelihood terms; "
                                 f"{model.name} has none")
        try:
            scaling = self.scaling(model.n_data)
        except ValueError as err:
            raise UserInputError(f"sampler.{err}") from None
        resolved = super().resolve(model)
        alpha = None if self.lam is not None else (0.99 if self.alpha is None else self.alpha)
        return resolved.model_copy(update={"batch": scaling.m, "tau": None, "alpha": alpha})

    def scaling(self, n: int) -> TemperedScaling:
        """m, τ, λ, s and T for n data points (:func:`tempered_scaling`)."""
        return tempered_scaling(n, batch=self.batch, tau=self.tau, alpha=self.alpha,
                                lam=self.lam)

    def target(self, model: Model) -> MinibatchTarget:
        """The batch density these options define on ``model``."""
        scaling = self.scaling(model.n_data)
        return minibatch_target(model, scaling.m, scaling.scale,
                                "tempered" if self.temper_prior else "full")


def mint_init(target: MinibatchTarget, bound: BoundKernel, key: jax.Array,
              position: jax.Array):
    """The inner kernel's state at ``position`` on a first batch (drawn with ``key``)."""
    return bound.make(target.density_on(target.draw(key)), bound.params).init(position)


def mint_kernel(target: MinibatchTarget, bound: BoundKernel, reading: Reading,
                params: dict[str, jax.Array]) -> Kernel:
    """One MINT step as a kernel on the inner kernel's state: draw a batch, then step the inner
    kernel for π̂_B from the state re-initialised on B (reading b) or carried (reading a).

    ``init`` starts on a fixed batch (the first of key 0); a chain starts with :func:`mint_init`.
    ``StepInfo.n_evals`` counts batch evaluations (×m/n for the cost).
    """

    def init(position):
        return mint_init(target, bound, jax.random.key(0), position)

    def step(key, state):
        key_batch, key_step = jax.random.split(key)
        kernel = bound.make(target.density_on(target.draw(key_batch)), params)
        start = kernel.init(state.position) if reading == "b" else state
        state, info = kernel.step(key_step, start)
        evals = info.n_evals + (1.0 if reading == "b" else 0.0)
        return state, info._replace(n_evals=evals)

    return Kernel(init, step)


def mint_stats(target: MinibatchTarget, reading: Reading, state) -> dict[str, jax.Array]:
    stats = {BATCH_SIZE.name: jnp.asarray(target.m, float)}
    if reading == "a":
        stats[MEAN_LOG_LIK.name] = (state.logdensity - target.log_prior(state.position)) \
            / target.scale
    return stats


def stats_in_force(reading: Reading) -> tuple[Stat, ...]:
    """The statistics MINT writes with this reading."""
    return MINT_STATS if reading == "a" else (LP, BATCH_SIZE)


def mint_warmup(target: MinibatchTarget, bound: BoundKernel, reading: Reading,
                adapt: bool, target_accept: float):
    """Warmup: dual averaging of the inner step size on the mini-batch chain itself when the
    inner kernel's ``adapt_step_size`` is set (the batch noise is part of what the acceptance
    rate sees; the paper tunes for ≈ 0.3), plain MINT steps otherwise."""

    def warmup(key, state, params, num_steps):
        if adapt and "step_size" in params:
            state, step_size, n_evals = dual_averaging_warmup(
                key, lambda mult: mint_kernel(target, bound, reading,
                                              {**params, "step_size": params["step_size"] * mult}),
                state.position, params["step_size"], num_steps, target_accept, state)
            params = {**params, "step_size": step_size}
        else:
            kernel = mint_kernel(target, bound, reading, params)
            state, (n_evals, _) = run_steps(kernel.step, key, state, num_steps,
                                            evals_and_acceptance)
        return state, params, n_evals * target.cost

    return warmup


def build(model: Model, options: MintOptions) -> Algorithm:
    target = options.target(model)
    _, bound = options.bind_inner(model.dim)
    extras = dict(options.model_extra or {})
    adapt = bool(extras.get("adapt_step_size")) and "step_size" in bound.params

    def init(key, position):
        return mint_init(target, bound, key, position)

    def step(key, state, params):
        state, info = mint_kernel(target, bound, options.reading, params).step(key, state)
        return state, AlgorithmInfo(jnp.asarray(info.acceptance_rate, float),
                                    info.n_evals * target.cost, state.logdensity,
                                    mint_stats(target, options.reading, state))

    # without adaptation the warmup is MINT's own step: one program runs both (base.step_scans)
    scans = None if adapt else step_scans(step)
    warmup = (mint_warmup(target, bound, options.reading, adapt,
                          float(extras.get("target_accept", 0.3)))
              if scans is None else partial(warmup_by_scans, scans))
    return Algorithm(init, warmup, step, lambda state: state.position, bound.params,
                     stats_in_force(options.reading), facts=mint_facts(model, options),
                     scans=scans)


def mint_facts(model: Model, options: MintOptions) -> dict[str, Any]:
    """Derived values recorded in the run file: n, m, τ, λ, s, T, β, κ, cost per step."""
    scaling = options.scaling(model.n_data)
    target = options.target(model)
    return {"n": scaling.n, "batch": scaling.m, "tau": scaling.tau, "lam": scaling.lam,
            "scale": scaling.scale, "temperature": scaling.temperature, "beta": target.beta,
            "prior_weight": target.prior_weight, "batch_cost": target.cost}


def mint_summary(stats: StatArrays) -> dict[str, Any]:
    """Mean acceptance and the batch size."""
    return {"mint": {"acceptance": float(np.mean(stats["acceptance_rate"])),
                     "batch_size": int(np.max(stats["batch_size"]))}}


def mint_lines(summary: Mapping[str, Any]) -> list[str]:
    block = summary.get("mint")
    if not block:
        return []
    return [f"mini-batch of {block['batch_size']} points per evaluation; "
            f"acceptance {block['acceptance']:.3f}"]


def mint_predicted_cost(run: Mapping[str, Any], inner_evals: float) -> float:
    """(1 + inner evaluations) · m/n per step for reading b, inner evaluations · m/n for a."""
    extra = 1.0 if run.get("reading", "b") == "b" else 0.0
    return (extra + inner_evals) * float(run["batch"]) / float(run["n"])


SPEC = SamplerSpec(
    name="mint",
    summary="mini-batch tempered MH, MINT (seed 003): batch m = n^τ, T = n^(1−λ); readings a/b; "
            "also takes the inner kernel's options",
    options=MintOptions,
    build=build,
    stats=MINT_STATS,
    summarize=mint_summary,
    render=mint_lines,
    predicted_cost=mint_predicted_cost,
)
