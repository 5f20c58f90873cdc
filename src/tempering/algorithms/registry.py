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
