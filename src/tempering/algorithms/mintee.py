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
(:mod:`tempering.algorithms.ee_levels`). Where a fixed subset's ĥ_k sits a near-constant distance
from h (tens to hundreds of energy units on the 50-mode mixture, the same at every mode), the
unshifted absolute truncations H_k and rings put level 1's flat region over all of level 0's
energies and its jumps are all rejected; the li-wong reproduction and ``bench ee`` turn it on.
Where ĥ_k − h varies between modes (tiny top batches: 3 points on ``modes2d``), a shift taken in
one mode misplaces the others, and one of 8 chains never visited a mode in 6000 draws (none
without the shift), hence off by default. The shifts keep every level's target fixed, so level 0
stays exact either way.
"""

from __future__ import annotations

from typing import Any, Literal, Self

from pydantic import Field, PositiveInt

from tempering.algorithms.base import Algorithm
from tempering.algorithms.ee import EnergyLadderOptions, build_energy_sampler
from tempering.algorithms.ee_stats import EE_STATS, ee_lines, ee_summary
from tempering.algorithms.spec import SamplerSpec
from tempering.errors import UserInputError
from tempering.ladders.energy import mintee_batches, mintee_temperatures
from tempering.models.base import Model


class MinteeOptions(EnergyLadderOptions):
    """``batch`` m_{L−1} (the top level's; default ⌈√n⌉), ``gamma`` (batch growth per level,
    1.4), ``alpha`` (λ_k = α τ_k, 0.995), ``subsets`` (``fixed`` or ``random``) and ``rebase``
    (shift the fixed surrogates to agree with h at the pilot's lowest point; off); the paper's
    ladder has 7 levels."""

    levels: int = Field(7, ge=2)
    batch: PositiveInt | None = None
    gamma: float = Field(1.4, gt=1.0)
    alpha: float = Field(0.995, gt=0.0, lt=1.0)
    subsets: Literal["fixed", "random"] = "fixed"
    rebase: bool = False

    def batches(self, n: int) -> tuple[int, ...]:
        top = self.batch if self.batch is not None else max(2, round(n ** 0.5))
        return mintee_batches(n, top, self.gamma, self.levels)

    def resolve(self, model: Any) -> Self:
        if getattr(model, "log_lik_terms_fn", None) is None:
            raise UserInputError(f"sampler: mintee needs a model with per-datum likelihood "
                                 f"terms; {model.name} has none (use ee)")
        try:
            batches = self.batches(model.n_data)
        except ValueError as err:
            raise UserInputError(f"sampler.{err}") from None
        return super().resolve(model).model_copy(update={"batch": batches[-1]})


def build(model: Model, options: MinteeOptions) -> Algorithm:
    batches = options.batches(model.n_data)
    temperatures = mintee_temperatures(model.n_data, batches, options.alpha)
    return build_energy_sampler(model, options, temperatures, batches,
                                options.subsets == "random", "mintee", options.rebase)


SPEC = SamplerSpec(
    "mintee", "MINTEE (seed 003 Alg. 2): equi-energy sampler with mini-batch energies, batch "
    "m_k growing by gamma per level down to all n at T = 1; subsets fixed (exact level 0) or "
    "random (the paper's); also takes the inner kernel's options", MinteeOptions, build,
    EE_STATS, ee_summary, ee_lines)
