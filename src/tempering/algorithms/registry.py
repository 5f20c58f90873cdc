"""The samplers: a plain tuple of specs, each declared by its own module
(:class:`~tempering.algorithms.spec.SamplerSpec`) and listed by its family package's ``SPECS``
(:mod:`tempering.algorithms` is the map of the families). Adding a sampler to a family is one
module exporting ``SPEC`` and one line in the family's ``__init__``; a new family is one package
and one line below. Every built-in kernel is also a sampler of its own
(:mod:`tempering.algorithms.single_kernel`).
"""

from __future__ import annotations

from typing import Any

from tempering.algorithms import (
    approx,
    ensemble,
    equi_energy,
    minibatch,
    pt,
    single_kernel,
    st,
    tt,
)
from tempering.algorithms.base import COMMON_STATS, Algorithm, RunLayout
from tempering.algorithms.spec import SamplerSpec
from tempering.config import validate_options
from tempering.kernels import KERNELS
from tempering.models.base import Model
from tempering.numerics import gc_paused
from tempering.precision import in_model_precision
from tempering.registry import Registry

SAMPLERS: Registry[SamplerSpec] = Registry("sampler", (
    *(single_kernel.spec_for(kernel) for kernel in KERNELS.builtin),
    *pt.SPECS,
    *tt.SPECS,
    *st.SPECS,
    *approx.SPECS,
    *minibatch.SPECS,
    *equi_energy.SPECS,
    *ensemble.SPECS,
))


@in_model_precision
def build_sampler(spec: SamplerSpec, model: Model, options: dict[str, Any],
                  layout: RunLayout | None = None) -> Algorithm:
    """Validate ``options`` (one-line errors), resolve them against ``model``, run the
    sampler's pilot if it has one (:meth:`~tempering.config.Options.run_pilot`, for the run's
    ``layout`` when known) and build.

    The returned algorithm carries the resolved options (what a run file records and feeds back)
    and the spec's name; the statistics it declares must be among the spec's.
    """
    resolved = validate_options(spec.options, options, prefix="sampler").resolve(model)
    resolved = resolved.run_pilot(model, layout)
    algorithm = spec.build(model, resolved)
    declared = {stat.name for stat in (*COMMON_STATS, *spec.stats)}
    undeclared = [stat.name for stat in algorithm.stats if stat.name not in declared]
    if undeclared:
        raise RuntimeError(f"sampler {spec.name} writes statistics its spec does not declare: "
                           f"{', '.join(undeclared)}")
    return algorithm._replace(name=spec.name, options=resolved)


@gc_paused()  # start-up: Python's collector only slows it (numerics.gc_paused)
def get_sampler(name: str, model: Model, layout: Any = None,
                **options: Any) -> Algorithm:
    """Build the registered sampler ``name`` for ``model`` from keyword options (validated);
    ``layout``: the run's shapes, for a pilot that compiles the run's programs (default:
    :func:`~tempering.run.driver.run_chains`'s)."""
    return build_sampler(SAMPLERS.get(name), model, options, layout)
