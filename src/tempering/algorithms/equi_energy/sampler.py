"""The equi-energy sampler ``ee`` (Kou, Zhou & Wong 2006; seed 003 App. D.1) on the full data:
every level reads the exact energy h = −log π. The algorithm is
:mod:`tempering.algorithms.equi_energy.algorithm`; this module holds the options both EE samplers
share, EE's temperature ladder and its spec.

Ladders. ``levels=auto`` (the default of ``ee`` and ``mintee``) places the ladder from a pilot
(:mod:`tempering.algorithms.equi_energy.pilot`): the number of levels K ≈ 2Λ̂ + 1, the top
temperature T_max at the target's "melting" temperature (the heat capacity's peak), the temperatures
at equal Λ̂ (EE), the energy ladder H_k (the pilot's lowest energy, then its energy quantiles) and
the point every chain's levels start from (``start_point``: where the pilot read H₀). The
resolved options record them (``levels``, ``temperatures``, ``energies``, ``start_point``), so a
run file rebuilds its sampler without the pilot. An explicit ladder keeps the fixed rules, draw
for draw: ``levels`` = L with ``t_max`` (20) or ``temperatures``, H₀ from each chain's own
warmup pilot (or ``h0``), H_{k+1} = H_k + c T_k, and each chain's own start — or ``energies``
(H₀ … H_{L−1}, absolute) given outright.

Why. On a two-ordering label-switching mixture (``mixture`` with n = 30, σ = 0.2, means ±0.4:
a mountain pass 50.9 nats above the modes, and a plateau 72 nats up where one component wanders
in the prior's tail, away from the data) a chain that starts at a prior draw often stays on the
plateau: its warmup pilot at T = 1 reads H₀ there, level 1's lowest ring then spans everything
below H₀ + 10, and level 0's jumps propose points far above its own energies; and a level that
is on the plateau cannot leave it by EE jumps, which keep the energy ring. With the fixed
defaults (4 × 4000 draws after 2000 warmup, seed 0) the chains' shares of one ordering were
0.38, 1.00, 0.15, 0.35 (EE) and 0.58, 0.45, 0.00, 0.67 (MINTEE); over 16 chains (seed 1) EE's
level 0 never changed ordering in 13. The pilot's start point alone (fixed ladder) left none
stuck, with a median of 40 changes of ordering per 4000 draws at level 0; with the pilot's
ladder too, 122–128 (seeds 1–3, 16 chains each; mean share 0.48–0.50).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Self

import numpy as np
from pydantic import (
    Field,
    NonNegativeInt,
    PositiveFloat,
    PositiveInt,
    model_validator,
)

from tempering.algorithms.base import Algorithm
from tempering.algorithms.equi_energy import pilot as ee_pilot
from tempering.algorithms.equi_energy.algorithm import EESettings, equi_energy
from tempering.algorithms.equi_energy.stats import EE_STATS, ee_lines, ee_summary
from tempering.algorithms.options import InnerOptions
from tempering.algorithms.spec import SamplerSpec
from tempering.errors import UserInputError
from tempering.ladders.energy import energy_levels, geometric_temperatures
from tempering.models.base import Model

#: EE's top temperature when ``levels`` is given and ``t_max`` is not (the fixed ladder's).
FIXED_T_MAX = 20.0


class EnergyLadderOptions(InnerOptions):
    """What EE and MINTEE share: ``levels`` (L chains, or ``auto``: placed by a pilot of
    ``pilot_scans`` parallel-tempering scans on ``ee_pilot.PILOT_RUNGS`` temperatures up to
    ``pilot_t_max``, from ``pilot_seed``), the energy ladder (``energies`` H₀ … H_{L−1}, which
    the pilot writes; else ``h0`` (default: each chain's lowest pilot energy) and the spacing
    ``c``, H_{k+1} = H_k + c T_k), ``start_point`` (where every chain's levels start; the pilot
    writes it; default each chain's own start), each chain's warmup pilot of ``pilot`` local
    moves per level
    (step sizes tuned, starts placed; 0 skips it), the jump probability ``p_ee``, the per-level
    ``burnin`` B and ``stagger`` S (level k starts at (L−1−k)(B + S)), the ring ``capacity``
    (entries kept per ring, a uniform reservoir of all deposits) and the inner kernel with its
    options (default RWM with its step size adapted per level towards acceptance 0.3 in
    warmup)."""


    levels: Annotated[int, Field(ge=2)] | Literal["auto"] = Field(
        "auto", description="auto: a pilot places the levels, top temperature and energies")
    c: PositiveFloat = 10.0
    h0: float | None = None
    energies: list[float] | None = Field(
        None, description="H_0 < ... < H_{L-1}, absolute (levels=auto's pilot writes them)")
    pilot: NonNegativeInt = 500
    start_point: list[float] | None = Field(
        None, description="where every chain's levels start (levels=auto's pilot writes the "
                          "lowest point it found); default: each chain's own start")
    pilot_seed: NonNegativeInt = 0
    pilot_scans: int = Field(2000, ge=40)
    pilot_t_max: float = Field(1.0e4, gt=1.0)
    p_ee: float = Field(0.1, ge=0.0, lt=1.0)
    burnin: NonNegativeInt = 200
    stagger: NonNegativeInt = 200
    capacity: PositiveInt = 1000

    @model_validator(mode="after")
    def _energies(self) -> Self:
        energies = self.energies
        if energies is None:
            if self.h0 is not None and self.levels == "auto" and not self.ladder_given():
                raise ValueError("h0: levels=auto's pilot places the energies; give levels too")
            return self
        if self.h0 is not None:
            raise ValueError("h0: give it as energies[0] when energies are given")
        if any(a >= b for a, b in zip(energies, energies[1:], strict=False)):
            raise ValueError("energies: must increase strictly")
        if self.levels == "auto":
            self.levels = len(energies)
        if len(energies) != self.levels:
            raise ValueError(f"energies: {len(energies)} given for {self.levels} levels")
        return self

    def ladder_given(self) -> bool:
        """Whether the options give the ladder (then ``levels=auto`` runs no pilot)."""
        return self.energies is not None

    @property
    def count(self) -> int:
        """L, the number of levels (once resolved; ``auto`` is resolved by the pilot)."""
        if self.levels == "auto":
            raise ValueError("levels: auto is placed when the options are resolved")
        return int(self.levels)

    def inner_settings(self) -> tuple[bool, float]:
        """Whether warmup adapts the step size, and towards which acceptance."""
        extras = dict(self.model_extra or {})
        return bool(extras.get("adapt_step_size", True)), float(extras.get("target_accept",
                                                                          0.3))

    def resolve(self, model: Any) -> Self:
        """The inner kernel's options explicit (RWM adapts towards 0.3 unless told otherwise)."""
        resolved = super().resolve(model)
        extras = dict(resolved.model_extra or {})
        if "adapt_step_size" in extras and "adapt_step_size" not in (self.model_extra or {}):
            extras["adapt_step_size"] = True
        if "target_accept" in extras and "target_accept" not in (self.model_extra or {}):
            extras["target_accept"] = 0.3
        own = resolved.model_dump(exclude=set(extras))
        resolved = type(self).model_validate({**own, **extras})
        if resolved.start_point is not None and len(resolved.start_point) != model.dim:
            raise UserInputError(f"sampler.start_point: {len(resolved.start_point)} values for "
                                 f"a model of dimension {model.dim}")
        return resolved

    def run_pilot(self, model: Any, layout: Any = None) -> Self:
        """With ``levels=auto`` and no ladder given, the pilot's ladder (:meth:`placed`)."""
        del layout  # its pilot has programs of its own
        placing = self.levels == "auto" and not self.ladder_given()
        return self.placed(model) if placing else self

    def placed(self, model: Model) -> Self:
        """These options with the pilot's ladder (each sampler places its own)."""
        raise NotImplementedError

    def measured(self, model: Model, t_max: float | None) -> ee_pilot.PilotPlacement:
        """Run this run's pilot (:func:`~tempering.algorithms.equi_energy.pilot.measure`)."""
        return ee_pilot.measure(model, scans=self.pilot_scans, seed=self.pilot_seed,
                                t_cap=self.pilot_t_max, t_max=t_max)

    def with_ladder(self, placement: ee_pilot.PilotPlacement, temperatures: np.ndarray,
                    energies: np.ndarray, update: dict[str, Any]) -> Self:
        """A copy with the pilot's ladder (``update``, the ``energies`` and, unless given, the
        ``start_point``), validated, and the pilot's record riding along."""
        start = self.start_point or [float(x) for x in placement.start]
        placed = type(self).model_validate({**self.model_dump(), **update,
                                            "energies": energies.tolist(),
                                            "start_point": start})
        return placed.carrying(ee_pilot.record(placement, temperatures, energies).as_fact())

    def settings(self, temperatures: np.ndarray, batches: tuple[int, ...],
                 fresh_batches: bool, rebase: bool = True) -> EESettings:
        adapt, target = self.inner_settings()
        energies = None if self.energies is None else tuple(float(h) for h in self.energies)
        return EESettings(temperatures, batches, self.c, self.p_ee, self.burnin, self.stagger,
                          self.capacity, fresh_batches, self.h0, self.pilot, adapt, target,
                          rebase, energies,
                          None if self.start_point is None else tuple(self.start_point))


def build_energy_sampler(model: Model, options: EnergyLadderOptions, temperatures: np.ndarray,
                         batches: tuple[int, ...], fresh_batches: bool,
                         rebase: bool = True) -> Algorithm:
    """EE or MINTEE over these temperatures and batch sizes, with its facts."""
    spec, bound = options.bind_inner(model.dim)
    params = spec.rung_params(bound, 1.0 / np.asarray(temperatures))
    settings = options.settings(np.asarray(temperatures, dtype=float), batches, fresh_batches,
                                rebase)
    algorithm = equi_energy(model, bound, params, settings)
    if settings.energies is not None:
        offsets = np.asarray(settings.energies) - settings.energies[0]
    else:
        offsets = np.asarray(energy_levels(0.0, settings.temperatures, options.c))
    facts: dict[str, Any] = {
        "temperatures": [float(t) for t in temperatures], "batches": list(batches),
        "level_offsets": offsets.tolist(), "level_costs": [m / batches[0] for m in batches],
        "starts": [settings.start(k) for k in range(settings.levels)]}
    if settings.energies is not None:
        facts["energies"] = list(settings.energies)
    return algorithm._replace(facts={**facts, **options.pilot_facts()})


class EEOptions(EnergyLadderOptions):
    """EE's temperatures: placed by the pilot (``levels=auto``; ``t_max`` fixes its top), or
    geometric from 1 to ``t_max`` (20) over ``levels``, or the list ``temperatures``
    (1 = T₀ < T₁ < …, one per level)."""

    t_max: float | None = Field(
        None, gt=1.0, description="default: the pilot's (levels=auto), else 20")
    temperatures: list[PositiveFloat] | None = None

    @model_validator(mode="after")
    def _ladder(self) -> Self:
        temps = self.temperatures
        if temps is not None:
            if self.levels == "auto":
                self.levels = len(temps)
            if len(temps) != self.levels:
                raise ValueError(f"temperatures: {len(temps)} given for {self.levels} levels")
            if temps[0] != 1.0 or any(a >= b for a, b in zip(temps, temps[1:], strict=False)):
                raise ValueError("temperatures: must start at 1 and increase strictly")
        return self

    def ladder_given(self) -> bool:
        return self.energies is not None or self.temperatures is not None

    def ladder(self) -> np.ndarray:
        if self.temperatures is not None:
            return np.asarray(self.temperatures, dtype=float)
        return geometric_temperatures(self.count, self.t_max or FIXED_T_MAX)

    def placed(self, model: Model) -> Self:
        """The pilot's ladder: temperatures at equal Λ̂ up to T_max, and the energies."""
        placement = self.measured(model, self.t_max)
        temperatures, energies = ee_pilot.place_ladder(placement)
        return self.with_ladder(placement, temperatures, energies, {
            "levels": len(temperatures), "temperatures": temperatures.tolist()})


def build(model: Model, options: EEOptions) -> Algorithm:
    batches = (max(model.n_data, 1),) * options.count
    return build_energy_sampler(model, options, options.ladder(), batches, False)


SPEC = SamplerSpec(
    name="ee",
    summary="equi-energy sampler (Kou, Zhou & Wong 2006; seed 003 App. D): levels of tempered, "
            "energy-truncated chains with jumps through energy rings, placed by a pilot "
            "(levels=auto); also takes the inner kernel's options",
    options=EEOptions,
    build=build,
    stats=EE_STATS,
    summarize=ee_summary,
    render=ee_lines,
)
