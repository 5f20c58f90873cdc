"""``ensemble``: ensemble MCMC for fast and slow variables (seed 004, Neal 2010).

Each iteration maps the state to an ensemble of K fast values sharing the slow ones, updates the
slow variables on the ensemble density and maps back
(:mod:`~tempering.algorithms.ensemble.algorithm`), ``sweeps`` times. Needs a model that declares a
fast/slow split (``Model.splits``; ``fast`` names it, default the model's first).

Options (the paper's defaults, §3): ``ensemble`` = grid | independent | exchangeable | markov
(:mod:`~tempering.algorithms.ensemble.bases`; grid), ``size`` K (49: a 7 × 7 grid for two fast
variables), ``members`` = fixed | shifted (the fast-variables-fixed or -shifted update; fixed, the
paper's better one), ``slow_kernel`` = coordinate_rwm (slow variables one at a time in a fixed
order, the paper's best) | rwm (jointly) | hmc | nuts (a BlackJAX kernel on the ensemble density
as a function of x₁, beyond the paper; its options ride along, and its step size (and NUTS's
diagonal mass matrix) adapt in warmup, :mod:`~tempering.algorithms.ensemble.warmup`),
``slow_scale`` (the Gaussian proposal sds, one for all or one per slow variable), ``scale``
(the exchangeable and Markov ensembles' spread, × the fast prior sd; 0.4) and ``shift_scale``
(the shifted update's sd, × the fast prior sd).

Cost: a slow evaluation (``prepare``) counts as one full evaluation; the K fast evaluations per
slow one are not counted in ``cost`` but recorded in ``fast_evals``.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any, Literal, Self

import jax
import jax.numpy as jnp
import numpy as np
from pydantic import Field, PositiveFloat, PositiveInt

from tempering.algorithms.base import Algorithm, Headline, Stat, step_scans, warmup_by_scans
from tempering.algorithms.ensemble.algorithm import (
    back_to_state,
    initial_state,
    step_info,
    to_ensemble,
)
from tempering.algorithms.ensemble.bases import make_base
from tempering.algorithms.ensemble.slow import coordinate_move, joint_move, kernel_move
from tempering.algorithms.ensemble.warmup import adaptive_warmup
from tempering.algorithms.options import InnerOptions
from tempering.algorithms.spec import SamplerSpec, StatArrays
from tempering.errors import UserInputError
from tempering.models.base import Model

SLOW = ("slow",)
ENSEMBLE_STATS = (
    Stat("slow_evals", (), "slow evaluations (prepare calls) of the iteration"),
    Stat("fast_evals", (), "fast evaluations (members' densities) of the iteration"),
    Stat("slow_acceptance", SLOW, "whether each slow variable's update was accepted (last "
         "sweep; a gradient kernel's acceptance probability)"),
    Stat("member", (), "the member chosen when mapping back (last sweep)"),
    Stat("effective_members", (), "1/Σ w̄_j², the effective number of members at mapping back"),
)
#: The Metropolis updates of x₁ by name; any other ``slow_kernel`` is a gradient kernel.
METROPOLIS_MOVES = {"coordinate_rwm": coordinate_move, "rwm": joint_move}
HEADLINE = (Headline("slow accept", "slow_acceptance"),
            Headline("eff. members", "effective_members"))


class EnsembleOptions(InnerOptions):
    """See the module docstring; ``inner`` follows ``slow_kernel`` (``rwm`` for the Metropolis
    updates, which take no kernel options)."""

    INNER_KERNELS = ("rwm", "hmc", "nuts")

    inner: str = Field("rwm", description="set from slow_kernel")
    fast: str | None = None
    ensemble: Literal["grid", "independent", "exchangeable", "markov"] = "grid"
    size: PositiveInt = 49
    members: Literal["fixed", "shifted"] = "fixed"
    slow_kernel: Literal["coordinate_rwm", "rwm", "hmc", "nuts"] = "coordinate_rwm"
    slow_scale: PositiveFloat | list[PositiveFloat] = 0.5
    scale: PositiveFloat = 0.4
    shift_scale: PositiveFloat = 0.4
    sweeps: PositiveInt = 1

    def resolve(self, model: Any) -> Self:
        splits = getattr(model, "splits", {}) or {}
        if not splits:
            raise UserInputError(f"sampler: ensemble needs a model with a fast/slow split; "
                                 f"{model.name} declares none")
        fast = self.fast if self.fast is not None else next(iter(splits))
        if fast not in splits:
            raise UserInputError(f"sampler.fast: {model.name} has splits {', '.join(splits)} "
                                 f"(got {fast!r})")
        split = splits[fast]
        if isinstance(self.slow_scale, list) and len(self.slow_scale) != split.slow_dim:
            raise UserInputError(f"sampler.slow_scale: {len(self.slow_scale)} values for "
                                 f"{split.slow_dim} slow variables")
        if self.ensemble == "grid":
            m = round(self.size ** (1.0 / split.fast_dim))
            if m < 2 or m ** split.fast_dim != self.size:
                raise UserInputError(f"sampler.size: a grid needs K = m^{split.fast_dim} with "
                                     f"m ≥ 2 for {split.fast_dim} fast variables (got {self.size})")
        if self.members == "shifted" and self.slow_kernel not in METROPOLIS_MOVES:
            raise UserInputError("sampler.members: shifted members need a Metropolis slow "
                                 "update (coordinate_rwm or rwm)")
        if self.slow_kernel in METROPOLIS_MOVES:
            if self.model_extra:
                raise UserInputError(f"sampler: {', '.join(sorted(self.model_extra))}: not an "
                                     f"option of slow_kernel={self.slow_kernel} (kernel options "
                                     "go with slow_kernel=hmc or nuts)")
            return type(self).model_validate({**self.model_dump(), "fast": fast,
                                              "inner": "rwm"})
        updated = type(self).model_validate({**self.model_dump(), "fast": fast,
                                             "inner": self.slow_kernel})
        return super(EnsembleOptions, updated).resolve(model)


def _slow_move(options: EnsembleOptions, split: Any, base: Any):
    """The slow update the options name, the kernel parameters it carries (or None) and whether
    they adapt in warmup (the kernel's own switch: ``adapt`` for NUTS, ``adapt_step_size`` for
    HMC)."""
    log_members = split.log_density_members
    if options.slow_kernel not in METROPOLIS_MOVES:
        _, bound = options.bind_inner(split.slow_dim)
        return (kernel_move(bound.make, split.prepare, log_members), bound.params,
                bound.warmup is not None)
    scales = np.broadcast_to(np.asarray(options.slow_scale, float), (split.slow_dim,))
    shift_sd = (jax.device_put(np.asarray(options.shift_scale * split.fast_sd))
                if options.members == "shifted" else None)
    factory = METROPOLIS_MOVES[options.slow_kernel]
    move = factory(jax.device_put(scales), base, split.prepare, log_members, shift_sd)
    return (lambda key, ensemble, params: move(key, ensemble)), None, False


def build(model: Model, options: EnsembleOptions) -> Algorithm:
    split = model.splits[str(options.fast)]  # resolved: always a split's name
    base = make_base(options.ensemble, options.size, split.fast_mean, split.fast_sd,
                     options.scale)
    move, kernel_params, adapt = _slow_move(options, split, base)
    K = options.size

    def step(key, state, params):
        slow_evals = jnp.zeros(())
        for k_sweep in jax.random.split(key, options.sweeps):
            k_map, k_slow, k_back = jax.random.split(k_sweep, 3)
            ensemble, _ = to_ensemble(k_map, state, base, split.log_density_members)
            ensemble, accepted, slow = move(k_slow, ensemble, params)
            state, member, effective = back_to_state(k_back, ensemble)
            slow_evals = slow_evals + slow
        return state, step_info(state, accepted, slow_evals, {
            "fast_evals": K * (options.sweeps + slow_evals), "member": member,
            "effective_members": effective})

    target = float(getattr(options.inner_options(), "target_accept", 0.8))
    scans = None if adapt else step_scans(step)  # fixed scales: the step is the warmup
    warmup = adaptive_warmup(step, target) if scans is None else partial(warmup_by_scans, scans)
    facts = {"fast": options.fast, "slow_variables": list(split.slow_names),
             "fast_variables": list(split.fast_names), "ensemble_size": K}
    return Algorithm(lambda key, position: initial_state(split, position),
                     warmup, step,
                     lambda s: split.join(s.x1, s.x2), kernel_params, ENSEMBLE_STATS,
                     headline=HEADLINE, scans=scans)._replace(facts=facts)


def ensemble_summary(stats: StatArrays) -> dict[str, Any]:
    """Slow and fast evaluations per iteration, acceptance per slow variable and the mapping
    back's effective number of members."""
    return {"ensemble": {
        "slow_evals_per_iteration": float(np.mean(stats["slow_evals"])),
        "fast_evals_per_iteration": float(np.mean(stats["fast_evals"])),
        "slow_acceptance": np.mean(stats["slow_acceptance"], axis=(0, 1)).tolist(),
        "effective_members": float(np.mean(stats["effective_members"]))}}


def ensemble_lines(summary: Mapping[str, Any]) -> list[str]:
    block = summary.get("ensemble")
    if not block:
        return []
    acc = ", ".join(f"{a:.2f}" for a in block["slow_acceptance"])
    return [f"ensemble: {block['slow_evals_per_iteration']:.2f} slow and "
            f"{block['fast_evals_per_iteration']:.1f} fast evaluations per iteration",
            f"slow acceptance per variable: {acc}",
            f"mapping back: {block['effective_members']:.2f} effective members on average"]


SPEC = SamplerSpec(
    name="ensemble",
    summary="ensemble MCMC for fast and slow variables (seed 004, Neal 2010): map to K fast "
            "values, update the slow variables on the ensemble density, map back; needs a model "
            "with a fast/slow split",
    options=EnsembleOptions,
    build=build,
    stats=ENSEMBLE_STATS,
    summarize=ensemble_summary,
    render=ensemble_lines,
)
