"""Cyclic MINT, CMINT (seed 003 §4.3.1): one MINT chain under a cyclic step-size schedule whose
end-of-round snapshots form an ensemble.

The paper: "We first run MINT for R epochs with a fixed step size scheme which decreases the step
size by a scaling factor within (0, 1) every r (≤ R) epochs. After R epochs, we increase the step
size … by a certain scaling factor (> 1) … every time before we increase the step size, we take a
snapshot of the model and add it to our ensemble … We repeat this process for K rounds" (§4.3.2:
R = 50, r = 5, ρ_down = 0.90, ρ_up = 2, K = 10).

The schedule, exactly as run here (:class:`CyclicSchedule`). Sampling steps are counted from
k = 0 (warmup is plain MINT steps at the base step size h₀ and does not advance the count); an
epoch is E = ⌈n/m⌉ steps, e = ⌊k/E⌋ the epoch, j = ⌊e/R⌋ the round and i = ⌊(e mod R)/r⌋ the
decays made so far in the round — a decay after every r completed epochs of the round, strictly
inside it, so a round has D = ⌊(R − 1)/r⌋ decays (9 for R = 50, r = 5: after epochs 5, 10, …, 45;
the boundary at epoch 50 is the round's end, where the step is increased instead). At the end
of a round — its last step, k = (j + 1) R E − 1 — a snapshot is taken, then the step size is
multiplied by ρ_up. So step k uses

    h_k = h₀ · (ρ_up ρ_down^D)^j · ρ_down^i.

Each step is a MINT step (:func:`~tempering.algorithms.minibatch.mint.mint_kernel`, either reading,
the inner kernel's step size multiplied by h_k/h₀): the schedule changes only the proposal scale, so
every step keeps MINT's (approximate) invariance for π_T ("detailed balance is kept intact").
But what CMINT *returns* is not a Monte Carlo average: it is K snapshots of one chain taken where
its step is smallest (the paper sees acceptance ≈ 1 there: the chain barely moves), an ensemble
in the manner of snapshot ensembles (Huang et al. 2017) whose quality depends on the schedule,
not an estimate that converges as the run grows. Treat it as an optimiser-like ensemble, not as
an invariant chain's output. The chain runs on after K rounds (nothing stops it); the ensemble is
the last K snapshots (:func:`snapshot_draws`, ``snapshots`` in the facts).

Predictions average the snapshots' predictive distributions (a mixture, always a valid
predictive). The paper also averages their parameters; for a neural network that is
questionable: the likelihood is invariant to permuting hidden units and the posterior is far from
convex, so two snapshots in different basins — or in the same basin's permuted copy — average to
weights that may lie in a region of low posterior density; it is sound only when the snapshots
share one basin (as in stochastic weight averaging), which the step-size increases are meant to
break.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, NamedTuple, Self

import jax
import jax.numpy as jnp
import numpy as np
from pydantic import Field, PositiveInt, model_validator

from tempering.algorithms.base import Algorithm, AlgorithmInfo, Stat
from tempering.algorithms.minibatch.mint import (
    MINT_STATS,
    MintOptions,
    mint_facts,
    mint_init,
    mint_kernel,
    mint_predicted_cost,
    mint_stats,
    mint_warmup,
    stats_in_force,
)
from tempering.algorithms.spec import SamplerSpec, StatArrays
from tempering.errors import UserInputError
from tempering.models.base import Model

Array = jax.Array

ROUND = Stat("round", (), "the step's round j of the cyclic schedule (seed 003 §4.3.1)")
STEP_SCALE = Stat("step_scale", (), "h_k / h₀, the schedule's step-size multiplier at the step")
SNAPSHOT = Stat("snapshot", (), "1 on the last step of a round (a snapshot of the ensemble), "
                "else 0")
CMINT_STATS = (ROUND, STEP_SCALE, SNAPSHOT)


class CyclicSchedule(NamedTuple):
    """CMINT's step-size schedule (module docstring): E steps an epoch, R epochs a round, a
    ×ρ_down decay every r epochs inside a round, ×ρ_up at its end."""

    steps_per_epoch: int
    round_epochs: int
    decay_epochs: int
    rho_down: float
    rho_up: float

    @property
    def decays_per_round(self) -> int:
        """D = ⌊(R − 1)/r⌋: decays strictly inside a round."""
        return (self.round_epochs - 1) // self.decay_epochs

    @property
    def round_steps(self) -> int:
        """R E: steps per round."""
        return self.round_epochs * self.steps_per_epoch

    def at(self, count: Array) -> tuple[Array, Array, Array]:
        """(round j, multiplier h_k/h₀, snapshot flag) at step ``count`` (elementwise)."""
        count = jnp.asarray(count)
        epoch = count // self.steps_per_epoch
        round_ = epoch // self.round_epochs
        decays = (epoch % self.round_epochs) // self.decay_epochs
        per_round = math.log(self.rho_up) + self.decays_per_round * math.log(self.rho_down)
        mult = jnp.exp(round_ * per_round + decays * math.log(self.rho_down))
        snapshot = (count + 1) % self.round_steps == 0
        return round_, mult, snapshot


class CmintState(NamedTuple):
    """MINT's inner-kernel state and the sampling steps made so far (the schedule's clock)."""

    inner: Any
    steps: Array


class CmintOptions(MintOptions):
    """MINT's options plus the schedule: ``round_epochs`` R, ``decay_epochs`` r (≤ R),
    ``rho_down`` ∈ (0, 1), ``rho_up`` > 1 and ``snapshots`` K (the paper's 50, 5, 0.9, 2, 10).
    The inner kernel must have a step size to scale: RWM (the paper's), MALA or HMC."""

    INNER_KERNELS = ("rwm", "mala", "hmc")

    inner: str = Field("rwm", description="rwm, mala or hmc (a kernel with a step size)")
    round_epochs: PositiveInt = Field(50, description="R, epochs per round")
    decay_epochs: PositiveInt = Field(5, description="r, epochs between decays (≤ R)")
    rho_down: float = Field(0.9, gt=0.0, lt=1.0, description="decay factor every r epochs")
    rho_up: float = Field(2.0, gt=1.0, description="increase factor at the end of a round")
    snapshots: PositiveInt = Field(10, description="K, snapshots in the ensemble (the last K)")

    @model_validator(mode="after")
    def _decay_within_round(self) -> Self:
        if self.decay_epochs > self.round_epochs:
            raise ValueError("decay_epochs: r must not exceed round_epochs R")
        return self

    def resolve(self, model: Any) -> Self:
        """MINT's resolution, with this sampler's name in the per-datum-terms message."""
        if getattr(model, "log_lik_terms_fn", None) is None:
            raise UserInputError(f"sampler: cmint needs a model with per-datum likelihood "
                                 f"terms; {model.name} has none")
        return super().resolve(model)

    def schedule(self, n: int) -> CyclicSchedule:
        """The schedule for n data points (E = ⌈n/m⌉)."""
        m = self.scaling(n).m
        return CyclicSchedule(-(-n // m), self.round_epochs, self.decay_epochs, self.rho_down,
                              self.rho_up)


def build(model: Model, options: CmintOptions) -> Algorithm:
    target = options.target(model)
    _, bound = options.bind_inner(model.dim)
    schedule = options.schedule(model.n_data)
    extras = dict(options.model_extra or {})
    inner_warmup = mint_warmup(target, bound, options.reading,
                               bool(extras.get("adapt_step_size")),
                               float(extras.get("target_accept", 0.3)))

    def init(key, position):
        return CmintState(mint_init(target, bound, key, position), jnp.zeros((), jnp.int32))

    def warmup(key, state, params, num_steps):
        inner, params, cost = inner_warmup(key, state.inner, params, num_steps)
        return CmintState(inner, jnp.zeros_like(state.steps)), params, cost

    def step(key, state, params):
        round_, mult, snapshot = schedule.at(state.steps)
        scaled = {**params, "step_size": params["step_size"] * mult}
        inner, info = mint_kernel(target, bound, options.reading, scaled).step(key, state.inner)
        stats = {**mint_stats(target, options.reading, inner), ROUND.name: round_,
                 STEP_SCALE.name: mult, SNAPSHOT.name: snapshot.astype(float)}
        return CmintState(inner, state.steps + 1), AlgorithmInfo(
            jnp.asarray(info.acceptance_rate, float), info.n_evals * target.cost,
            inner.logdensity, stats)

    facts = {**mint_facts(model, options), "steps_per_epoch": schedule.steps_per_epoch,
             "round_steps": schedule.round_steps, "decays_per_round": schedule.decays_per_round,
             "round_factor": options.rho_up * options.rho_down ** schedule.decays_per_round,
             "snapshots": options.snapshots}
    return Algorithm(init, warmup, step, lambda state: state.inner.position,
                     bound.params, stats_in_force(options.reading) + CMINT_STATS, facts=facts)


def snapshot_draws(posterior_values: Any, snapshot_flags: Any, k: int) -> np.ndarray:
    """The last ``k`` snapshots of each chain: CMINT's ensemble.

    Parameters
    ----------
    posterior_values
        Draws, (chain, draw, ...) — or (draw, ...) with one-dimensional flags.
    snapshot_flags
        The ``snapshot`` statistic, (chain, draw) or (draw,). The draws must be recorded at every
        snapshot: with ``thin`` > 1 a draw records its last step's flag only, so ``thin`` must
        divide the round length R⌈n/m⌉ (``round_steps`` in the facts; thin = 1 always works).

    Returns
    -------
    numpy.ndarray
        (chain, k′, ...) (or (k′, ...)), k′ = min(k, snapshots taken), oldest first.

    Raises
    ------
    ValueError
        Shapes that do not match, or chains whose snapshots fall on different draws.
    """
    values = np.asarray(posterior_values)
    flags = np.asarray(snapshot_flags) > 0.5
    if flags.ndim not in (1, 2) or values.shape[:flags.ndim] != flags.shape:
        raise ValueError(f"snapshot flags of shape {flags.shape} do not match draws of shape "
                         f"{values.shape}")
    rows = flags if flags.ndim == 1 else flags[0]
    if flags.ndim == 2 and not np.all(flags == rows):
        raise ValueError("the chains' snapshots fall on different draws")
    picked = np.flatnonzero(rows)[-k:] if k > 0 else np.zeros(0, dtype=int)
    return values[picked] if flags.ndim == 1 else values[:, picked]


def cmint_summary(stats: StatArrays) -> dict[str, Any]:
    """Mean acceptance, batch size, rounds begun and snapshots taken (per chain)."""
    return {"cmint": {"acceptance": float(np.mean(stats["acceptance_rate"])),
                      "batch_size": int(np.max(stats["batch_size"])),
                      "rounds": int(np.max(stats[ROUND.name])) + 1,
                      "snapshots": int(np.sum(stats[SNAPSHOT.name][0]))}}


def cmint_lines(summary: Mapping[str, Any]) -> list[str]:
    block = summary.get("cmint")
    if not block:
        return []
    return [f"cyclic MINT: {block['rounds']} rounds begun, {block['snapshots']} snapshots taken; "
            f"mini-batch of {block['batch_size']} points; acceptance {block['acceptance']:.3f}"]


SPEC = SamplerSpec(
    name="cmint",
    summary="cyclic MINT (seed 003 §4.3.1): MINT under a cyclic step-size schedule, one snapshot "
            "per round; an optimiser-like ensemble, not an invariant chain's average",
    options=CmintOptions,
    build=build,
    stats=MINT_STATS + CMINT_STATS,
    summarize=cmint_summary,
    render=cmint_lines,
    predicted_cost=mint_predicted_cost,
)
