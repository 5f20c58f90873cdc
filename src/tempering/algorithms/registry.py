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
    from tempering.ladders import geometric_betas, power_tempering_ladder, subset_tempering_ladder

    def build(name: str):
        def builder(model: Model, options) -> Algorithm:
            betas = geometric_betas(options.rungs, options.beta_min)
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
                return parallel_tempering(ladder, bound, params, name=name, options=recorded,
                                          swap=options.swap, inner_steps=options.inner_steps)
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
