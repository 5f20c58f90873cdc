"""Tempered transitions over a ladder of cheap approximations (seed 002 §4): π_0 = π and π_i the
SOD or Nyström approximation on nested subsets of sizes m_1 > … > m_M
(:func:`tempering.ladders.approximation.approximation_ladder`), the tempered-transition algorithm
of :mod:`tempering.algorithms.tt.transitions`, by default without a level-0 update (§4: the accepted
or rejected flip alone leaves π invariant).
"""

from __future__ import annotations

from typing import Literal, Self

from pydantic import Field, PositiveInt, field_validator

from tempering.algorithms.base import Algorithm
from tempering.algorithms.options import (
    ApproximationOptions,
    comma_separated_ints,
    strictly_decreasing,
)
from tempering.algorithms.spec import SamplerSpec
from tempering.algorithms.tt.transitions import TT_STATS, build_over, tt_lines, tt_summary
from tempering.ladders.approximation import approximation_ladder, check_approximation
from tempering.models.base import Model


class TTApproxOptions(ApproximationOptions):
    """π_i uses ``approx`` on a nested subset of size ``sizes[i-1]`` (strictly decreasing, each
    < n; default n // 3, n // 6); ``inner_steps`` inner updates per layer ("each T̂_i makes only a
    small update"); ``level0_update`` adds an ordinary update at π after each tempered transition
    (off, as in §4)."""

    approx: Literal["sod", "nystrom"] = "sod"
    sizes: list[PositiveInt] | None = Field(None, min_length=1)
    inner_steps: PositiveInt = 1
    level0_update: bool = False

    _comma_separated = field_validator("sizes", mode="before")(comma_separated_ints)
    _decreasing = field_validator("sizes")(strictly_decreasing)

    def resolve(self, model: Model) -> Self:
        """``sizes`` default to n // 3, n // 6; each must suit ``approx`` and the model."""
        resolved = super().resolve(model)
        n = model.n_data
        sizes = resolved.sizes if resolved.sizes is not None else [n // 3, n // 6]
        for size in sizes:
            check_approximation(model, resolved.approx, size, option="sizes")
        return resolved.model_copy(update={"sizes": sizes})


def build(model: Model, options: TTApproxOptions) -> Algorithm:
    assert options.sizes is not None  # resolved
    ladder = approximation_ladder(model, options.approx, options.sizes,
                                  subset_seed=options.subset_seed, jitter=options.jitter)
    return build_over(model, options, ladder, options.inner_steps, options.level0_update)


SPEC = SamplerSpec(
    name="tt_approx",
    summary="tempered transitions over a ladder of GP approximations (seed 002 §4); also takes "
            "the inner kernel's options",
    options=TTApproxOptions,
    build=build,
    stats=TT_STATS,
    summarize=tt_summary,
    render=tt_lines,
)
