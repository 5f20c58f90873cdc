"""The equi-energy sampler ``ee`` (Kou, Zhou & Wong 2006; seed 003 App. D.1) on the full data:
every level reads the exact energy h = −log π. The algorithm is
:mod:`tempering.algorithms.equi_energy`; this module holds the options both EE samplers share,
EE's temperature ladder (geometric from 1 to ``t_max``, or given) and its spec.
"""

from __future__ import annotations

from typing import Any, Self

import numpy as np
from pydantic import Field, NonNegativeInt, PositiveFloat, PositiveInt, model_validator

from tempering.algorithms.base import Algorithm
from tempering.algorithms.ee_stats import EE_STATS, ee_lines, ee_summary
from tempering.algorithms.equi_energy import EESettings, equi_energy
from tempering.algorithms.options import InnerOptions
from tempering.algorithms.spec import SamplerSpec
from tempering.ladders.energy import energy_levels, geometric_temperatures
from tempering.models.base import Model


class EnergyLadderOptions(InnerOptions):
    """What EE and MINTEE share: ``levels`` (L chains), the energy spacing ``c``
    (H_{k+1} = H_k + c T_k), ``h0`` (default: the pilot's lowest energy; ``pilot`` local moves
    per level, each level's step size tuned and its start placed, 0 skips it), the jump
    probability ``p_ee``, the per-level ``burnin`` B and ``stagger`` S (level k starts at
    (L−1−k)(B + S)), the ring ``capacity`` (entries kept per ring, a uniform reservoir of all
    deposits) and the inner kernel with its options (default RWM with its step size adapted per
    level towards acceptance 0.3 in warmup)."""

    levels: int = Field(5, ge=2)
    c: PositiveFloat = 10.0
    h0: float | None = None
    pilot: NonNegativeInt = 500
    p_ee: float = Field(0.1, ge=0.0, lt=1.0)
    burnin: NonNegativeInt = 200
    stagger: NonNegativeInt = 200
    capacity: PositiveInt = 1000

    def inner_settings(self) -> tuple[bool, float]:
        """Whether warmup adapts the step size, and towards which acceptance."""
        extras = dict(self.model_extra or {})
        return bool(extras.get("adapt_step_size", True)), float(extras.get("target_accept",
                                                                          0.3))

    def resolve(self, model: Any) -> Self:
        """The inner kernel's options explicit; RWM adapts towards 0.3 unless told otherwise."""
        resolved = super().resolve(model)
        extras = dict(resolved.model_extra or {})
        if "adapt_step_size" in extras and "adapt_step_size" not in (self.model_extra or {}):
            extras["adapt_step_size"] = True
        if "target_accept" in extras and "target_accept" not in (self.model_extra or {}):
            extras["target_accept"] = 0.3
        own = resolved.model_dump(exclude=set(extras))
        return type(self).model_validate({**own, **extras})

    def settings(self, temperatures: np.ndarray, batches: tuple[int, ...],
                 fresh_batches: bool, rebase: bool = True) -> EESettings:
        adapt, target = self.inner_settings()
        return EESettings(temperatures, batches, self.c, self.p_ee, self.burnin, self.stagger,
                          self.capacity, fresh_batches, self.h0, self.pilot, adapt, target,
                          rebase)


def build_energy_sampler(model: Model, options: EnergyLadderOptions, temperatures: np.ndarray,
                         batches: tuple[int, ...], fresh_batches: bool, name: str,
                         rebase: bool = True) -> Algorithm:
    """EE or MINTEE over these temperatures and batch sizes, with its facts."""
    spec, bound = options.bind_inner(model.dim)
    params = spec.rung_params(bound, 1.0 / np.asarray(temperatures))
    settings = options.settings(np.asarray(temperatures, dtype=float), batches, fresh_batches,
                                rebase)
    algorithm = equi_energy(model, bound, params, settings, name)
    offsets = np.asarray(energy_levels(0.0, settings.temperatures, options.c))
    facts = {"temperatures": [float(t) for t in temperatures], "batches": list(batches),
             "level_offsets": offsets.tolist(), "level_costs": [m / batches[0] for m in batches],
             "starts": [settings.start(k) for k in range(settings.levels)]}
    return algorithm._replace(facts=facts)


class EEOptions(EnergyLadderOptions):
    """EE's temperatures: geometric from 1 to ``t_max``, or the list ``temperatures``
    (1 = T₀ < T₁ < …, one per level)."""

    t_max: float = Field(20.0, gt=1.0)
    temperatures: list[PositiveFloat] | None = None

    @model_validator(mode="after")
    def _ladder(self) -> Self:
        temps = self.temperatures
        if temps is not None:
            if len(temps) != self.levels:
                raise ValueError(f"temperatures: {len(temps)} given for {self.levels} levels")
            if temps[0] != 1.0 or any(a >= b for a, b in zip(temps, temps[1:], strict=False)):
                raise ValueError("temperatures: must start at 1 and increase strictly")
        return self

    def ladder(self) -> np.ndarray:
        if self.temperatures is not None:
            return np.asarray(self.temperatures, dtype=float)
        return geometric_temperatures(self.levels, self.t_max)


def build(model: Model, options: EEOptions) -> Algorithm:
    batches = (max(model.n_data, 1),) * options.levels
    return build_energy_sampler(model, options, options.ladder(), batches, False, "ee")


SPEC = SamplerSpec(
    "ee", "equi-energy sampler (Kou, Zhou & Wong 2006; seed 003 App. D): levels of tempered, "
    "energy-truncated chains with jumps through energy rings; also takes the inner kernel's "
    "options", EEOptions, build, EE_STATS, ee_summary, ee_lines)
