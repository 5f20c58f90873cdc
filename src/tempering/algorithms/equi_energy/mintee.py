"""MINTEE ``mintee`` (seed 003 §5.2, App. D, Algorithm 2): the equi-energy sampler with
mini-batch energies. Level 0 reads all n points at T₀ = 1; level k ≥ 1 reads
m_k = ⌊m_{L−1} γ^(L−1−k)⌋ points at MINT's temperature T_k = n^(1 − α log m_k / log n)
(:mod:`tempering.ladders.energy`), so the hot levels are cheap: the paper's O(Nn) against EE's
O(K²Nn).

``subsets``:

- ``fixed`` (default): nested subsets drawn once per chain (S₀ = all ⊃ S₁ ⊃ … ⊃ S_{L−1}), as SPT
  does. Every level's energy is a deterministic surrogate, the top-up from S_{k+1} to S_k is
  exact, and EE's theory (Kou et al.) makes level 0 — the full-data posterior — asymptotically
  exact: the paper's claim that MINTEE "can sample exactly" holds for this mode.
- ``random`` (the paper's Algorithm 2): a fresh batch per read-out, MINT's reading b for local
  moves, the top-up drawn outside the entry's stored batch. Approximate at every level, level 0
  included (its jumps use estimated energies of the upper level).

``rebase`` (``subsets=fixed`` only; beyond the paper; off by default): every level's surrogate
is shifted by a constant s_k so that it equals h at the warmup pilot's lowest point
(:mod:`tempering.algorithms.equi_energy.levels`). Where a fixed subset's ĥ_k sits a near-constant
distance from h (tens to hundreds of energy units on the 50-mode mixture, the same at every mode),
the unshifted absolute truncations H_k and rings put level 1's flat region over all of level 0's
energies and its jumps are all rejected; the li-wong reproduction and ``bench ee`` turn it on.
Where ĥ_k − h varies between modes (tiny top batches: 3 points on ``modes2d``), a shift taken in
one mode misplaces the others, and one of 8 chains never visited a mode in 6000 draws (none
without the shift), hence off by default. The shifts keep every level's target fixed, so level 0
stays exact either way.

``levels=auto`` (the default): the run's pilot (:mod:`tempering.algorithms.equi_energy.pilot`, on
the full data) gives T_max (capped at n/2^α, the top batch's floor of 2 points; ``batch`` fixes it)
and K ≈ 2Λ̂ + 1; the batches stay geometric (the paper's ladder), the top one m_{L−1} =
(n/T_max)^(1/α) and γ = (n/m_{L−1})^(1/(L−1)) so that they continue to m₁ ≈ n/γ, with fewer levels
when n is too small for K distinct batch sizes; the energies H_k are the pilot's (H₀ its lowest
energy, H_k its energy quantile at T_{k−1}). The resolved options record ``levels``, ``batch``,
``gamma`` and ``energies``.
"""

from __future__ import annotations

import math
from typing import Any, Literal, Self

from pydantic import Field, PositiveInt, model_validator

from tempering.algorithms.base import Algorithm
from tempering.algorithms.equi_energy.pilot import energy_ladder, equal_barrier_temperatures
from tempering.algorithms.equi_energy.sampler import EnergyLadderOptions, build_energy_sampler
from tempering.algorithms.equi_energy.stats import EE_STATS, ee_lines, ee_summary
from tempering.algorithms.spec import SamplerSpec
from tempering.errors import UserInputError
from tempering.ladders.energy import mintee_batches, mintee_temperatures
from tempering.models.base import Model

#: MINTEE's batch growth per level when ``levels`` is given and ``gamma`` is not (the paper's).
FIXED_GAMMA = 1.4


class MinteeOptions(EnergyLadderOptions):
    """``batch`` m_{L−1} (the top level's; default ⌈√n⌉ with ``levels`` given, the pilot's with
    ``levels=auto``), ``gamma`` (batch growth per level; 1.4 with ``levels`` given, the pilot's
    with ``auto``), ``alpha`` (λ_k = α τ_k, 0.995), ``subsets`` (``fixed`` or ``random``) and
    ``rebase`` (shift the fixed surrogates to agree with h at the pilot's lowest point; off);
    the paper's ladder has 7 levels and γ = 1.4."""

    batch: PositiveInt | None = None
    gamma: float | None = Field(None, gt=1.0, description="default: 1.4, or the pilot's "
                                                           "(levels=auto)")
    alpha: float = Field(0.995, gt=0.0, lt=1.0)
    subsets: Literal["fixed", "random"] = "fixed"
    rebase: bool = False

    @model_validator(mode="after")
    def _pilot_sets_gamma(self) -> Self:
        if self.levels == "auto" and self.gamma is not None:
            raise ValueError("gamma: levels=auto's pilot sets it; give levels too")
        return self

    def batches(self, n: int) -> tuple[int, ...]:
        top = self.batch if self.batch is not None else max(2, round(n ** 0.5))
        return mintee_batches(n, top, self.gamma or FIXED_GAMMA, self.count)

    def resolve(self, model: Any) -> Self:
        if getattr(model, "log_lik_terms_fn", None) is None:
            raise UserInputError(f"sampler: mintee needs a model with per-datum likelihood "
                                 f"terms; {model.name} has none (use ee)")
        if model.n_data < 3:  # a batch of 2 below n, at least
            raise UserInputError(f"sampler: mintee subsamples the data and {model.name} has "
                                 f"{model.n_data} data point(s); it needs 3 or more (use ee)")
        if self.levels == "auto":
            return super().resolve(model)
        try:
            batches = self.batches(model.n_data)
        except ValueError as err:
            raise UserInputError(f"sampler.{err}") from None
        return super().resolve(model).model_copy(update={"batch": batches[-1]})

    def placed(self, model: Model) -> Self:
        """The pilot's ladder: T_max (from ``batch`` when given), K levels of geometric batches
        and the energies at their temperatures."""
        n = model.n_data
        fixed_top = None if self.batch is None else temperature_at(n, self.batch, self.alpha)
        placement = self.measured(model, fixed_top)
        t_max = min(placement.t_max, temperature_at(n, 2, self.alpha))
        _, total = equal_barrier_temperatures(placement.temps, placement.lam, t_max)
        top = self.batch or max(2, min(n - 1, round((n / t_max) ** (1.0 / self.alpha))))
        levels, gamma, batches = geometric_batches(n, top, max(2, math.ceil(2.0 * total) + 1))
        temperatures = mintee_temperatures(n, batches, self.alpha)
        energies = energy_ladder(placement.temps, placement.energies, temperatures,
                                 placement.h0)
        return self.with_ladder(placement, temperatures, energies,
                                {"levels": levels, "batch": top, "gamma": gamma})


def temperature_at(n: int, batch: int, alpha: float) -> float:
    """MINT's temperature at a batch of m points, T = n^(1 − α log m / log n) (seed 003 §5.2)."""
    return float(n ** (1.0 - alpha * math.log(batch) / math.log(n)))


def geometric_batches(n: int, top: int, levels: int) -> tuple[int, float, tuple[int, ...]]:
    """L, γ and the batches m₀ = n > m₁ > … > m_{L−1} = ``top`` with γ = (n/top)^(1/(L−1)):
    ``levels`` of them, or as many as n leaves distinct (at least 2)."""
    for count in range(levels, 1, -1):
        gamma = (n / top) ** (1.0 / (count - 1))
        try:
            return count, gamma, mintee_batches(n, top, gamma, count)
        except ValueError:
            continue
    raise UserInputError(f"sampler.batch: {top} leaves no smaller batch below n = {n}")


def build(model: Model, options: MinteeOptions) -> Algorithm:
    batches = options.batches(model.n_data)
    temperatures = mintee_temperatures(model.n_data, batches, options.alpha)
    return build_energy_sampler(model, options, temperatures, batches,
                                options.subsets == "random", options.rebase)


SPEC = SamplerSpec(
    name="mintee",
    summary="MINTEE (seed 003 Alg. 2): equi-energy sampler with mini-batch energies, batch m_k "
            "growing by gamma per level down to all n at T = 1, placed by a pilot (levels=auto); "
            "subsets fixed (exact level 0) or random (the paper's); also takes the inner kernel's "
            "options",
    options=MinteeOptions,
    build=build,
    stats=EE_STATS,
    summarize=ee_summary,
    render=ee_lines,
)
