"""Sampler spec: everything the package needs to know about a sampler, declared by its module.

A sampler is one module that exports a :class:`SamplerSpec` and one line in the registry tuple
(:mod:`tempering.algorithms.registry`). The spec names the sampler, its options class (pydantic;
defaults and cross-field rules live there, with ``resolve(model)`` for defaults that depend on the
model), the builder, the statistics the sampler may write and, optionally, how its own statistics
are summarised and printed. The driver, the run-file writer, ``tempering summary`` and the catalog
read the spec; none of them names a sampler.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

import numpy as np

from tempering.algorithms.base import Algorithm, Stat
from tempering.config import Options
from tempering.models.base import Model

#: Run-file statistics as NumPy arrays (chain, draw, *dims), by name.
StatArrays = Mapping[str, np.ndarray]


class SamplerSpec(NamedTuple):
    """A registered sampler.

    Attributes
    ----------
    name, summary
        Registry name and one line for ``tempering samplers``.
    options
        Options class (unknown keys are errors); its ``resolve(model)`` fills model-dependent
        defaults and checks what needs the model.
    build
        (model, resolved options) ↦ :class:`~tempering.algorithms.base.Algorithm`, with the
        statistics and position dims in force for these options, and its derived ``facts``.
    stats
        Every statistic the sampler may write (those in force are a subset, e.g. PT writes the
        importance-tempering trio only with ``keep_all_rungs``).
    summarize
        ``None``, or the sampler's own summary of its statistics: (stat arrays) ↦ a JSON-ready
        dict merged into ``tempering summary``'s (swap rates, acceptance of whole transitions,
        evaluation counts, ...).
    render
        ``None``, or (that summary) ↦ lines printed under the summary table.
    predicted_cost
        ``None``, or the cost model's full-data-equivalent cost of one iteration (seed 000 §3.1),
        from the run's options and facts in one mapping and the inner kernel's evaluations per
        step (:mod:`tempering.algorithms.cost_model`).
    """

    name: str
    summary: str
    options: type[Options]
    build: Callable[[Model, Any], Algorithm]
    stats: tuple[Stat, ...] = ()
    summarize: Callable[[StatArrays], dict[str, Any]] | None = None
    render: Callable[[Mapping[str, Any]], list[str]] | None = None
    predicted_cost: Callable[[Mapping[str, Any], float], float] | None = None
