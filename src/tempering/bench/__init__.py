"""Micro-benchmarks, run by ``tempering bench NAME``. Each module exports ``SPEC``, a
:class:`~tempering.registry.RunnableSpec` whose ``run(**options)`` prints a small table;
benchmarks report ratios measured in one run (docs/architecture.md), not tests."""

from __future__ import annotations

import tempering.jax_setup  # noqa: F401  # JAX's settings first (the LAPACK rule)
from tempering.bench import (
    ee,
    ensemble,
    gp_grad,
    io,
    mint,
    multimodal,
    pt,
    pt_scale,
    startup,
    tall,
    tall_mixture,
)
from tempering.registry import Registry, RunnableSpec

BENCHMARKS: Registry[RunnableSpec] = Registry("benchmark", (gp_grad.SPEC, mint.SPEC, ee.SPEC,
                                                           ensemble.SPEC, pt.SPEC,
                                                           pt_scale.SPEC, multimodal.SPEC, io.SPEC,
                                                           startup.SPEC, tall.SPEC,
                                                           tall_mixture.SPEC))
