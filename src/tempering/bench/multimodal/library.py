"""The library's own samplers through its public driver: parallel tempering at its defaults (and
any variants of it), the equi-energy samplers ``ee`` and ``mintee`` at their defaults (a pilot
places their levels: ``levels=auto``; no evidence estimate), and NUTS, the untempered baseline
that stays in the mode it finds.

``PT_VARIANTS`` is the table of PT runs: a label and the sampler options (a dict passed to
``get_sampler("pt", model, **options)``); ``{}`` is PT at its defaults — HMC inner kernel tuned per
rung, the adaptive schedule from the target to the prior, ``rungs=auto`` placed by a pilot, DEO
swaps, the stabilized reference (a fitted Gaussian's leg and the prior's). ``pt prior`` is the
prior reference alone, the default before the stabilized one. A variant is one more line, e.g.
``("pt variational", {"reference": "variational"})``.

Seconds: building the sampler runs the ``rungs=auto`` pilot (its seconds and compile seconds are
in the sampler's facts); the driver reports ahead-of-time compilation, warmup and sampling apart.
Evaluations are the run's cost (full-data likelihood evaluations, one pseudo datum here: one per
log-density or gradient evaluation, every rung and the swaps included) in the pilot, warmup and
sampling. PT's log Z is its stepping-stone estimate over the swaps (the schedule ends at the
prior); its Λ̂ and rungs ride along.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

import numpy as np

from tempering import get_sampler, run_chains, run_layout, summarize
from tempering.bench.multimodal.result import MethodRun
from tempering.bench.multimodal.sizes import Size
from tempering.bench.multimodal.targets import Target
from tempering.compile_cache import fresh as fresh_compile_cache
from tempering.kernels import KERNELS

#: (label, options of ``pt``): the library's PT runs, defaults first (the ratios' reference).
PT_VARIANTS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("pt", {}),
    ("pt prior", {"reference": "prior"}),
)


def run_library(target: Target, sampler: str, options: dict[str, Any], size: Size, seed: int,
                label: str) -> MethodRun:
    """One run of a registered sampler with ``options`` on ``target``: ``size.chains`` chains of
    ``size.draws`` draws after ``size.warmup`` warmup steps."""
    start = time.perf_counter()
    layout = run_layout(target.model, chains=size.chains, warmup=size.warmup, draws=size.draws)
    algorithm = get_sampler(sampler, target.model, layout=layout, **options)
    result = run_chains(target.model, algorithm, key=seed, draws=size.draws, chains=size.chains,
                        warmup=size.warmup, progress=False)
    total = time.perf_counter() - start
    attrs = result.idata["posterior"].attrs
    assert result.ledger is not None
    theta = np.asarray(result.ledger.record["position"], dtype=float)
    pilot = dict(algorithm.facts.get("pilot") or {})
    seconds = {"compile": float(attrs["wall_seconds_compile"]),  # the pilot's included
               "pilot": float(pilot.get("seconds", 0.0)),
               "warmup": float(attrs["wall_seconds_warmup"]),
               "sampling": float(attrs["wall_seconds_sampling"]), "total": total}
    evals = (float(attrs["cost_total"]) + float(attrs["cost_warmup"])
             + float(attrs.get("cost_pilot", 0.0)))
    summary = summarize(result.idata)
    log_z = log_z_se = None
    if summary.get("log_z_is_evidence"):
        log_z, log_z_se = float(summary["log_z_ratio"]), float(summary["log_z_ratio_se"])
    inner = getattr(algorithm.options, "inner", sampler)
    kind = "gradient" if inner in KERNELS and KERNELS.get(inner).gradient else "density"
    info: dict[str, Any] = {"options": dict(options)}
    if "schedule" in summary:
        info["rungs"] = len(summary["schedule"][0])
    if "barrier" in summary:
        info["barrier"] = float(summary["barrier"])
        info["round_trips"] = int(summary["round_trips"])
    return MethodRun(label, theta, None, log_z, log_z_se, seconds, evals, kind, info)


def run_pt(target: Target, size: Size, seed: int, label: str = "pt",
           options: dict[str, Any] | None = None) -> MethodRun:
    """PT with ``options`` (default: its defaults)."""
    return run_library(target, "pt", dict(options or {}), size, seed, label)


def run_pt_longer(target: Target, size: Size, seed: int, label: str = "pt 5× draws",
                  factor: int = 5) -> MethodRun:
    """PT at its defaults with ``factor`` times the draws (same warmup), compiled in an empty
    cache of its own (:func:`tempering.compile_cache.fresh`): its pilot and warmup would
    otherwise load from the default run's, which would flatter its seconds."""
    with fresh_compile_cache():
        return run_library(target, "pt", {}, replace(size, draws=size.draws * factor), seed,
                           label)


def run_ee(target: Target, size: Size, seed: int, sampler: str = "ee") -> MethodRun:
    """``ee`` (or ``mintee``) at its defaults: its pilot's seconds and evaluations are counted as
    PT's are; no evidence."""
    return run_library(target, sampler, {}, size, seed, sampler)


def run_nuts(target: Target, size: Size, seed: int) -> MethodRun:
    """The library's NUTS at its defaults (window adaptation in warmup): no evidence."""
    return run_library(target, "nuts", {}, size, seed, "nuts")
