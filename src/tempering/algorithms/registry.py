"""Samplers by name: each has a pydantic options class and builds an ``Algorithm`` for a model."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, NamedTuple

from pydantic import BaseModel

from tempering.algorithms.base import Algorithm
from tempering.algorithms.single_kernel import single_kernel
from tempering.errors import UserInputError
from tempering.kernels import KERNELS
from tempering.models.base import Model


class SamplerEntry(NamedTuple):
    options: type[BaseModel]
    build: Callable[[Model, Any], Algorithm]
    summary: str


SAMPLERS: dict[str, SamplerEntry] = {
    name: SamplerEntry(spec.options, partial(single_kernel, spec=spec), spec.summary)
    for name, spec in KERNELS.items()
}


def get_sampler(name: str, model: Model, **options: Any) -> Algorithm:
    """Build a registered sampler for ``model`` from keyword options (validated)."""
    from tempering.config import validate_options

    if name not in SAMPLERS:
        raise UserInputError(f"unknown sampler {name!r} (known: {', '.join(SAMPLERS)})")
    entry = SAMPLERS[name]
    return entry.build(model, validate_options(entry.options, options, prefix="sampler"))


def _register_tempering() -> None:
    """PT, SPT, TT and STT: a ladder, per-rung inner kernels, and the algorithm."""
    from tempering.algorithms.pt import parallel_tempering
    from tempering.algorithms.tempering_options import (
        PTOptions,
        SPTOptions,
        STTOptions,
        TTOptions,
        bind_inner,
        rung_params,
    )
    from tempering.algorithms.tt import tempered_transitions
    from tempering.ladders import power_tempering_ladder, subset_tempering_ladder

    def build(name: str):
        def builder(model: Model, options) -> Algorithm:
            betas = ladder_betas_of(options, power=name in ("pt", "tt"))
            if getattr(options, "keep_all_rungs", False) and name != "pt":
                raise UserInputError("sampler.keep_all_rungs: only pt keeps every rung (subset "
                                     "rungs have no power weights)")
            if name in ("pt", "tt"):
                ladder = power_tempering_ladder(model, betas)
            else:
                ladder = subset_tempering_ladder(model, betas, subsets=options.subsets,
                                                 redraw=name == "stt")
            bound, inner_options = bind_inner(options, model.dim)
            params = rung_params(bound, options.inner, betas)
            recorded = {**options.model_dump(exclude=set(options.model_extra or {})),
                        **inner_options.model_dump(), "betas": list(ladder.betas),
                        "sizes": list(ladder.sizes), "rung_costs": list(ladder.costs)}
            if name in ("pt", "spt"):
                keep = model if name == "pt" and options.keep_all_rungs else None
                return parallel_tempering(ladder, bound, params, name=name, options=recorded,
                                          swap=options.swap, inner_steps=options.inner_steps,
                                          keep_all_rungs=keep)
            return tempered_transitions(ladder, bound, params, name=name, options=recorded,
                                        inner_steps=options.inner_steps)

        return builder

    for name, options, summary in (
        ("pt", PTOptions, "parallel tempering, powered likelihood (seed 000)"),
        ("spt", SPTOptions, "subsampled parallel tempering, subsets fixed per chain (seed 000)"),
        ("tt", TTOptions, "tempered transitions, powered likelihood (Neal 1996; seed 002 §4)"),
        ("stt", STTOptions, "subsampled tempered transitions, subsets redrawn (seed 000)"),
    ):
        SAMPLERS[name] = SamplerEntry(options, build(name),
                                      f"{summary}; also takes the inner kernel's options")


_register_tempering()


def _register_approximation_samplers() -> None:
    """Seed 002's samplers built on a cheap approximation π*: the discretizing chain (§3) and
    tempered transitions over a ladder of approximations (§4)."""
    import numpy as np

    from tempering.algorithms.approximation_options import DiscretizingOptions, TTApproxOptions
    from tempering.algorithms.discretizing import discretizing_chain
    from tempering.algorithms.tempering_options import bind_inner, rung_params
    from tempering.algorithms.tt import tempered_transitions
    from tempering.gp.approx import draw_subset
    from tempering.ladders import target_rung
    from tempering.ladders.approximation import (
        approximate_rung,
        approximation_ladder,
        check_approximation,
    )

    def recorded(options, inner_options, **resolved) -> dict:
        return {**options.model_dump(exclude=set(options.model_extra or {})),
                **inner_options.model_dump(), **resolved}

    def build_discretizing(model: Model, options) -> Algorithm:
        m = options.m if options.m is not None else max(1, model.n_data // 5)
        check_approximation(model, options.approx, m)
        approx = approximate_rung(model, options.approx,
                                  draw_subset(options.subset_seed, model.n_data, m),
                                  options.jitter)
        bound, inner_options = bind_inner(options, model.dim)
        return discretizing_chain(target_rung(model), approx, bound, r=options.r, s=options.s,
                                  cache=options.cache,
                                  options=recorded(options, inner_options, m=m,
                                                   approx_cost=approx.cost))

    def build_tt_approx(model: Model, options) -> Algorithm:
        n = model.n_data
        sizes = options.sizes if options.sizes is not None else [n // 3, n // 6]
        ladder = approximation_ladder(model, options.approx, sizes,
                                      subset_seed=options.subset_seed, jitter=options.jitter)
        bound, inner_options = bind_inner(options, model.dim)
        params = rung_params(bound, options.inner, np.asarray(ladder.betas))
        return tempered_transitions(ladder, bound, params, name="tt_approx",
                                    options=recorded(options, inner_options,
                                                     sizes=list(ladder.sizes),
                                                     rung_costs=list(ladder.costs)),
                                    inner_steps=options.inner_steps,
                                    level0_update=options.level0_update)

    SAMPLERS["discretizing_chain"] = SamplerEntry(
        DiscretizingOptions, build_discretizing,
        "mapping to a discretizing chain of an approximation π*, with caching (seed 002 §3); "
        "also takes the inner kernel's options")
    SAMPLERS["tt_approx"] = SamplerEntry(
        TTApproxOptions, build_tt_approx,
        "tempered transitions over a ladder of GP approximations (seed 002 §4); also takes the "
        "inner kernel's options")


_register_approximation_samplers()
def ladder_betas_of(options, power: bool = True):
    """The β ladder a tempering sampler's options name (``ladder``, ``rungs``, ``beta_min``,
    ``prior_rung``); a prior rung needs a power ladder and likelihood tempering."""
    from tempering.ladders import ladder_betas

    if options.prior_rung and not power:
        raise UserInputError("sampler.prior_rung: only power ladders (pt, tt, st) have a prior "
                             "rung")
    if options.prior_rung and getattr(options, "tempering", "likelihood") != "likelihood":
        raise UserInputError("sampler.prior_rung: needs tempering = likelihood (the tempered "
                             "posterior at k = 0 is flat)")
    try:
        return ladder_betas(options.ladder, options.rungs, options.beta_min, options.prior_rung)
    except ValueError as err:
        raise UserInputError(f"sampler: {err}") from None


def _register_st() -> None:
    """Simulated tempering (seed 001) over a flat θ with any inner kernel."""
    from tempering.algorithms.st import simulated_tempering
    from tempering.algorithms.tempered_family import flat_family
    from tempering.algorithms.tempering_options import STOptions, bind_inner, rung_params

    def builder(model: Model, options) -> Algorithm:
        betas = ladder_betas_of(options)
        bound, inner_options = bind_inner(options, model.dim)
        family = flat_family(model, bound, rung_params(bound, options.inner, betas),
                             options.tempering)
        recorded = {**options.model_dump(exclude=set(options.model_extra or {})),
                    **inner_options.model_dump(), "betas": list(map(float, betas))}
        return simulated_tempering(family, betas, name="st", options=recorded,
                                   inner_steps=options.inner_steps, c0=options.c0, n0=options.n0,
                                   pseudo_prior_init=options.pseudo_prior_init)

    SAMPLERS["st"] = SamplerEntry(STOptions, builder, "simulated tempering with a tuned "
                                  "pseudo-prior, every draw kept for importance tempering (seed "
                                  "001); also takes the inner kernel's options")


_register_st()
