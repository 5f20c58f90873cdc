"""``coordinate_rwm``: single-variable Metropolis, the baseline of seed 004 (Neal 2010, §3, Figs.
2–3): one Gaussian update per coordinate in a systematic sweep, each with its own scale.

On any model it sweeps the coordinates of θ, each update one full evaluation. With ``fast`` (the
name of one of the model's fast/slow splits) it sweeps the split's coordinates instead: each slow
update costs one slow evaluation (``prepare`` at the proposed x₁, then the density there), each
fast update one fast evaluation on the current cache, and ``extra_fast`` more sweeps of the fast
variables alone follow each iteration (Fig. 3's "49 extra updates of the fast variables"). The
slow sweep is the ensemble sampler's with one member
(:func:`~tempering.algorithms.ensemble.slow.coordinate_move`): with K = 1 the ensemble density is
π itself.

Options: ``scale`` (proposal sd, one for all coordinates or one per coordinate of θ — or, with a
split, per slow variable), ``fast_scale`` (per fast variable, with a split), ``fast``,
``extra_fast``.
"""

from __future__ import annotations

from functools import partial
from typing import Any, Self

import jax
import jax.numpy as jnp
import numpy as np
from pydantic import NonNegativeInt, PositiveFloat

from tempering.algorithms.base import Algorithm, Stat, step_scans, warmup_by_scans
from tempering.algorithms.ensemble.algorithm import (
    Ensemble,
    EnsembleState,
    initial_state,
    step_info,
)
from tempering.algorithms.ensemble.bases import independent
from tempering.algorithms.ensemble.slow import coordinate_move
from tempering.algorithms.spec import SamplerSpec
from tempering.config import Options
from tempering.errors import UserInputError
from tempering.models.base import Model
from tempering.models.fast_slow import FastSlowSplit
from tempering.numerics import metropolis, select

COORDINATE_STATS = (
    Stat("slow_evals", (), "slow (or, without a split, full) evaluations of the iteration"),
    Stat("fast_evals", (), "fast evaluations of the iteration (0 without a split)"),
    Stat("slow_acceptance", ("slow",), "whether each slow coordinate's update was accepted"),
)


class CoordinateOptions(Options):
    """See the module docstring."""

    scale: PositiveFloat | list[PositiveFloat] = 0.5
    fast_scale: PositiveFloat | list[PositiveFloat] = 0.5
    fast: str | None = None
    extra_fast: NonNegativeInt = 0

    def resolve(self, model: Any) -> Self:
        splits = getattr(model, "splits", {}) or {}
        if self.fast is not None and self.fast not in splits:
            known = ", ".join(splits) or "none"
            raise UserInputError(f"sampler.fast: {model.name}'s splits are {known} "
                                 f"(got {self.fast!r})")
        if self.fast is None and self.extra_fast:
            raise UserInputError("sampler.extra_fast: needs a split (sampler.fast)")
        split = splits.get(self.fast)
        slow_dim = split.slow_dim if split is not None else model.dim
        for name, value, dim in (("scale", self.scale, slow_dim),
                                 ("fast_scale", self.fast_scale,
                                  split.fast_dim if split is not None else 0)):
            if isinstance(value, list) and len(value) != dim:
                raise UserInputError(f"sampler.{name}: {len(value)} values for {dim} variables")
        return self


def whole(model: Model) -> FastSlowSplit:
    """θ as all slow, with no fast variable (the baseline without a split)."""
    return FastSlowSplit(
        "none", tuple(f"theta[{i}]" for i in range(model.dim)), (),
        lambda theta: (theta, theta[:0]), lambda x1, x2: x1, lambda x1: x1,
        lambda cache, x1, members: jnp.broadcast_to(model.log_density(x1), members.shape[:1]),
        np.zeros(0), np.ones(0))


def fast_sweep(split: FastSlowSplit, scales: jax.Array):
    """One sweep of single-coordinate Metropolis updates of x₂ on the current cache."""

    def sweep(key, state: EnsembleState) -> EnsembleState:
        def body(s, inputs):
            i, k = inputs
            k_prop, k_acc = jax.random.split(k)
            x2 = s.x2.at[i].add(scales[i] * jax.random.normal(k_prop))
            lp = split.log_density_members(s.cache, s.x1, x2[None])[0]
            accepted, _ = metropolis(k_acc, lp - s.log_density)
            return select(accepted, s._replace(x2=x2, log_density=lp), s), None

        dims = scales.shape[0]
        return jax.lax.scan(body, state, (jnp.arange(dims), jax.random.split(key, dims)))[0]

    return sweep


def build(model: Model, options: CoordinateOptions) -> Algorithm:
    split = model.splits[options.fast] if options.fast is not None else whole(model)
    slow_scales = np.broadcast_to(np.asarray(options.scale, float), (split.slow_dim,))
    fast_scales = jax.device_put(np.broadcast_to(np.asarray(options.fast_scale, float),
                                                 (split.fast_dim,)))
    one = independent(1, np.zeros(split.fast_dim), np.ones(split.fast_dim))
    slow_move = coordinate_move(jax.device_put(slow_scales), one, split.prepare,
                                split.log_density_members)
    sweep = fast_sweep(split, fast_scales)
    fast_sweeps = (1 + options.extra_fast) if split.fast_dim else 0

    def step(key, state, params):
        del params
        k_slow, k_fast = jax.random.split(key)
        # with one member the ensemble density is π: the slow sweep is plain Metropolis
        start = Ensemble(state.x1, state.cache, state.x2[None], state.log_density[None],
                         jnp.zeros(1))
        moved, accepted, slow_evals = slow_move(k_slow, start)
        state = EnsembleState(moved.x1, state.x2, moved.cache, moved.log_pi[0])
        if fast_sweeps:  # a scan, so that 50 sweeps compile as one
            state, _ = jax.lax.scan(lambda s, k: (sweep(k, s), None), state,
                                    jax.random.split(k_fast, fast_sweeps))
        # a slow update reads the density at the proposed x₁ (one fast evaluation with a split)
        fast_evals = float(split.fast_dim * fast_sweeps) + (slow_evals if split.fast_dim
                                                            else 0.0 * slow_evals)
        return state, step_info(state, accepted, slow_evals, {"fast_evals": fast_evals})

    facts = {"fast": options.fast, "slow_variables": list(split.slow_names),
             "fast_variables": list(split.fast_names)}
    scans = step_scans(step)  # warmup: the step with the scales unchanged (they are options)
    return Algorithm(lambda key, position: initial_state(split, position),
                     partial(warmup_by_scans, scans), step, lambda s: split.join(s.x1, s.x2),
                     None, COORDINATE_STATS, scans=scans)._replace(facts=facts)


SPEC = SamplerSpec(
    name="coordinate_rwm",
    summary="single-variable Metropolis (seed 004's baseline): a Gaussian update per coordinate "
            "in a fixed sweep; with a model's fast/slow split, slow updates reuse nothing and "
            "fast ones the cache, plus extra_fast sweeps of the fast variables",
    options=CoordinateOptions,
    build=build,
    stats=COORDINATE_STATS,
)
