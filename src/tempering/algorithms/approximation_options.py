"""Options of the samplers built on a cheap approximation π* (seed 002 §§3–4).

Like the tempering samplers' options, these carry the inner kernel's options as extras, at one
level: ``--set sampler.inner=slice --set sampler.width=2``. The inner kernel R leaves π* invariant
(the discretizing chain) or π_i (each layer of tempered transitions); seed 002 §6.2 uses the
univariate slice sampler for both, so that is the default.
"""

from __future__ import annotations

from typing import Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    NonNegativeInt,
    PositiveFloat,
    PositiveInt,
    field_validator,
)


class ApproximationOptions(BaseModel):
    """What both samplers share: the inner kernel, the subset's seed and the Nyström jitter."""

    model_config = ConfigDict(extra="allow")

    inner: Literal["slice", "rwm", "hmc"] = "slice"
    subset_seed: NonNegativeInt = 0
    jitter: PositiveFloat = 1e-8


class DiscretizingOptions(ApproximationOptions):
    """Mapping to a discretizing chain (seed 002 §3).

    ``approx``/``m``: π*'s approximation and its subset size (rank for eigen-exact; default n // 5);
    ``r``: mark moves per mapping; ``s``: steps of R per proposed move; ``cache``: keep π of every
    step evaluated within a mapping (``false``: recompute π at every proposed step — same draws,
    more evaluations).
    """

    approx: Literal["sod", "nystrom", "eigen"] = "sod"
    m: PositiveInt | None = None
    r: PositiveInt = 1
    s: PositiveInt = 1
    cache: bool = True


class TTApproxOptions(ApproximationOptions):
    """Tempered transitions over approximations (seed 002 §4): π_i uses ``approx`` on a nested
    subset of size ``sizes[i-1]`` (strictly decreasing, each < n; default n // 3, n // 6);
    ``inner_steps`` inner updates per layer ("each T̂_i makes only a small update");
    ``level0_update`` adds an ordinary update at π after each tempered transition (off, as in
    §4: the accepted or rejected flip alone leaves π invariant)."""

    approx: Literal["sod", "nystrom"] = "sod"
    sizes: list[PositiveInt] | None = Field(None, min_length=1)
    inner_steps: PositiveInt = 1
    level0_update: bool = False

    @field_validator("sizes", mode="before")
    @classmethod
    def _comma_separated(cls, value):
        """``--set sampler.sizes=130,65`` arrives as the string "130,65"."""
        if isinstance(value, str):
            parts = [p.strip() for p in value.split(",") if p.strip()]
            return [int(p) if p.lstrip("-").isdigit() else p for p in parts]
        if isinstance(value, int):
            return [value]
        return value

    @field_validator("sizes")
    @classmethod
    def _decreasing(cls, value):
        if value is not None and any(a <= b for a, b in zip(value, value[1:], strict=False)):
            raise ValueError("must be strictly decreasing")
        return value
