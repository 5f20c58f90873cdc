"""The methods the benchmark runs, in table order: the library's PT variants (``PT_VARIANTS``;
the first, PT at its defaults, is the reference of every ratio), ``pt again`` (PT at its defaults
run a second time: its programs now load from the compile cache, as a user's second run of the
same model and settings does — :mod:`tempering.compile_cache`), ``pt 5× draws`` (the defaults
with five times the draws: sampling is a small part of PT's seconds here, so what a longer run
buys) and equi-energy samplers (``ee``,
``mintee``), then the peers a user would pick instead — the library's NUTS (the untempered
baseline), BlackJAX's adaptive tempered SMC (at the number of moves per stage its sweep picks on
the target: :mod:`.smc_sweep`), dynesty's static nested sampler and ptemcee. Each is a function
``(target, size, seed) → MethodRun``."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from tempering.bench.multimodal.dynesty_run import run_dynesty
from tempering.bench.multimodal.library import (
    PT_VARIANTS,
    run_ee,
    run_nuts,
    run_pt,
    run_pt_longer,
)
from tempering.bench.multimodal.ptemcee_run import run_ptemcee
from tempering.bench.multimodal.result import MethodRun
from tempering.bench.multimodal.sizes import Size
from tempering.bench.multimodal.smc_sweep import run_smc_swept
from tempering.bench.multimodal.targets import Target

Runner = Callable[[Target, Size, int], MethodRun]
REFERENCE = PT_VARIANTS[0][0]
#: The row whose final error and seconds the "seconds to SMC's error" columns measure against.
SMC = "smc"
#: The second run of PT at its defaults (module docstring).
AGAIN = "pt again"


def methods() -> dict[str, Runner]:
    """Label ↦ runner, the PT variants first."""
    label, defaults = PT_VARIANTS[0]
    table: dict[str, Runner] = {label: partial(run_pt, label=label, options=defaults),
                                AGAIN: partial(run_pt, label=AGAIN, options=defaults),
                                "pt 5× draws": run_pt_longer}
    table |= {name: partial(run_pt, label=name, options=options)
              for name, options in PT_VARIANTS[1:]}
    return table | {"ee": run_ee, "mintee": partial(run_ee, sampler="mintee"), "nuts": run_nuts,
                    SMC: run_smc_swept, "dynesty": run_dynesty, "ptemcee": run_ptemcee}
