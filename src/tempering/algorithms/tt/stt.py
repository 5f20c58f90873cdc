"""Subsampled tempered transitions, STT (seed 000 §3.2, Algorithm 2 with the seeds' errata):
tempered transitions whose level m is the posterior given a subset X_m of N_m = round(β_m N)
points, the nested subsets X_M ⊂ … ⊂ X_1 ⊂ X redrawn every iteration independently of the state
(a mixture of valid kernels, so exact) and shared by the up and down passes of one iteration. The
algorithm is :func:`tempering.algorithms.tt.transitions.tempered_transitions`; this module only
picks the ladder.
"""

from __future__ import annotations

from tempering.algorithms.base import Algorithm
from tempering.algorithms.cost_model import tt_predicted_cost
from tempering.algorithms.options import SubsetOptions
from tempering.algorithms.spec import SamplerSpec
from tempering.algorithms.tt.transitions import (
    TT_STATS,
    TTOptions,
    build_over,
    tt_lines,
    tt_summary,
)
from tempering.ladders import subset_tempering_ladder
from tempering.models.base import Model


class STTOptions(TTOptions, SubsetOptions):
    """TT's options over a subset ladder redrawn every iteration."""


def build(model: Model, options: STTOptions) -> Algorithm:
    ladder = subset_tempering_ladder(model, options.betas(), subsets=options.subsets,
                                     redraw=True)
    return build_over(model, options, ladder, options.inner_steps)


SPEC = SamplerSpec(
    name="stt",
    summary="subsampled tempered transitions, subsets redrawn (seed 000); also takes the inner "
            "kernel's options",
    options=STTOptions,
    build=build,
    stats=TT_STATS,
    summarize=tt_summary,
    render=tt_lines,
    predicted_cost=tt_predicted_cost,
)
