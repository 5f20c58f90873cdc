"""Option bases shared by the samplers that run an inner kernel: the tempering family (PT, SPT,
TT, STT, ST) and the samplers built on a cheap approximation (the discretizing chain, TT over
approximations). Each sampler's own options class lives in its module and derives from one of
these.

A sampler's options are its own (``inner``, ``rungs``, ``beta_min``, ``inner_steps``, ...) plus
the options of the inner kernel it names, all at one level: ``--set sampler.inner=hmc --set
sampler.step_size=0.01 --set sampler.num_steps=5``. ``inner`` is any registered kernel
(:data:`tempering.kernels.KERNELS`); its options are validated by the kernel's own options class
when the options are resolved, and the resolved options carry every inner default explicitly, so
they round-trip through a run file. Per-rung inner parameters follow the kernel spec's
:meth:`~tempering.kernels.base.KernelSpec.rung_params` (seed 000 §4.3: RWM's σ_m = σ β_m^(−1/2);
HMC keeps one ε on every rung, as the paper does). The tempering samplers (PT, SPT, TT, STT, ST)
adapt the inner kernel per rung in warmup by default (``ADAPT_INNER``: ``adapt_step_size`` is true
unless given; HMC then also adapts a diagonal mass matrix); the samplers built on a cheap
approximation keep the kernel's own default.

``spacing`` (``ladder`` until this release) places the β's between 1 and ``beta_min``
(geometric, harmonic, sigmoidal; see :mod:`tempering.ladders.schedule`); ``prior_rung`` appends
β = 0 (power ladders only).
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal, Self

import numpy as np
from pydantic import (
    ConfigDict,
    Field,
    NonNegativeInt,
    PositiveFloat,
    PositiveInt,
    field_validator,
    model_validator,
)

from tempering.config import Options, validate_options
from tempering.kernels import KERNELS, BoundKernel, KernelSpec
from tempering.ladders import ladder_betas


class InnerOptions(Options):
    """Options of a sampler that runs an inner kernel; the kernel's options ride along as extras.

    ``inner`` is any registered kernel (``rj_changepoint``, reversible jump, fits only the
    ``changepoint`` model's layout).
    """

    model_config = ConfigDict(extra="allow")
    #: ``None``: any registered kernel; a sampler may narrow it (and say why).
    INNER_KERNELS: ClassVar[tuple[str, ...] | None] = None
    #: Whether the inner kernel adapts in warmup unless told otherwise (``adapt_step_size``
    #: defaults to true for a kernel that has it: RWM, MALA, HMC; NUTS always adapts).
    ADAPT_INNER: ClassVar[bool] = False

    inner: str = Field("rwm", description="any registered kernel")

    @field_validator("inner")
    @classmethod
    def _registered(cls, name: str) -> str:
        if name not in KERNELS:
            raise ValueError(f"unknown kernel (known: {', '.join(KERNELS.names())})")
        if cls.INNER_KERNELS is not None and name not in cls.INNER_KERNELS:
            raise ValueError(f"this sampler takes {' or '.join(cls.INNER_KERNELS)} as its inner "
                             "kernel")
        return name

    def inner_options(self) -> Options:
        """The inner kernel's options, validated by its own class (one-line errors); with
        ``ADAPT_INNER``, ``adapt_step_size`` is true unless given."""
        kernel_options = KERNELS.get(self.inner).options
        extras = dict(self.model_extra or {})
        if self.ADAPT_INNER and "adapt_step_size" in kernel_options.model_fields:
            extras.setdefault("adapt_step_size", True)
        return validate_options(kernel_options, extras, prefix="sampler",
                                also_valid=type(self).model_fields)

    def bind_inner(self, dim: int) -> tuple[KernelSpec, BoundKernel]:
        """The inner kernel's spec and the kernel bound to these options."""
        spec = KERNELS.get(self.inner)
        return spec, spec.bind(self.inner_options(), dim)

    def resolve(self, model: Any) -> Self:
        """These options with the inner kernel's options validated and every default explicit."""
        del model
        own = self.model_dump(exclude=set(self.model_extra or {}))
        return type(self).model_validate({**own, **self.inner_options().model_dump()})


class TemperingOptions(InnerOptions):
    """Options every tempering sampler has: the β ladder, inner steps per visit. The inner kernel
    adapts per rung in warmup by default (``adapt_step_size=false`` keeps the given step size, as
    the seed papers' fixed-ε runs do)."""

    ADAPT_INNER = True
    RENAMED = {"ladder": "spacing"}  # the β spacing, not the ladder object (docs/glossary.md)

    rungs: int = Field(7, ge=2)
    beta_min: float = Field(0.125, gt=0.0, lt=1.0)
    inner_steps: PositiveInt = 1
    spacing: Literal["geometric", "harmonic", "sigmoidal"] = Field(
        "geometric", description="how the β's fall from 1 to beta_min (was `ladder`)")
    prior_rung: bool = False

    @model_validator(mode="after")
    def _prior_rung_fits(self) -> Self:
        if self.prior_rung and isinstance(self.rungs, int) and self.rungs < 3:
            raise ValueError("prior_rung: a ladder with a prior rung needs at least 3 rungs "
                             "(1, beta_min, 0)")
        return self

    def betas(self) -> np.ndarray:
        """β_0 = 1 > β_1 > … (> 0 = the prior rung with ``prior_rung``)."""
        return ladder_betas(self.spacing, self.rungs, self.beta_min, self.prior_rung)


class SubsetOptions(TemperingOptions):
    """A ladder of data subsets (SPT, STT; seed 000 §3): ``nested`` subsets (the paper's choice)
    or ``independent`` ones. Subset rungs have no power, so no prior rung."""

    subsets: Literal["nested", "independent"] = "nested"

    @field_validator("prior_rung")
    @classmethod
    def _no_prior_rung(cls, value: bool) -> bool:
        if value:
            raise ValueError("only power ladders (pt, tt, st) have a prior rung")
        return value


class ApproximationOptions(InnerOptions):
    """What the samplers over a cheap approximation π* share (seed 002 §§3–4): the inner kernel
    (seed 002 §6.2 uses the univariate slice sampler, so that is the default), the subset's seed
    and the Nyström jitter.

    The inner kernel is one the approximation samplers are tested with against grid quadrature
    (slice, RWM, HMC; seed 002 uses slice). NUTS and the model-specific reversible-jump kernel are
    refused until tests cover them.
    """

    INNER_KERNELS = ("slice", "rwm", "hmc")

    inner: str = Field("slice", description="slice, rwm or hmc")
    subset_seed: NonNegativeInt = 0
    jitter: PositiveFloat = 1e-8


def comma_separated_ints(value: Any) -> Any:
    """``--set sampler.sizes=130,65`` arrives as the string "130,65"; a single int as an int."""
    if isinstance(value, str):
        parts = [p.strip() for p in value.split(",") if p.strip()]
        return [int(p) if p.lstrip("-").isdigit() else p for p in parts]
    if isinstance(value, int):
        return [value]
    return value


def strictly_decreasing(value: list[PositiveInt] | None) -> list[PositiveInt] | None:
    """A list of sizes must decrease strictly."""
    if value is not None and any(a <= b for a, b in zip(value, value[1:], strict=False)):
        raise ValueError("must be strictly decreasing")
    return value
