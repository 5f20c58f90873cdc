"""Rungs of a temperature or approximation ladder, and the schedules that place them."""

import tempering.jax_setup  # noqa: F401  # JAX's settings first (the LAPACK rule)
from tempering.ladders.adaptive import barrier_profile, cumulative_barrier, equal_barrier_betas
from tempering.ladders.base import Ladder, Rung, power_ladder, target_rung
from tempering.ladders.schedule import (
    geometric_betas,
    harmonic_betas,
    ladder_betas,
    sigmoidal_betas,
)
from tempering.ladders.tempering import (
    TemperingLadder,
    adaptive_power_ladder,
    adaptive_subset_ladder,
    power_tempering_ladder,
    subset_sizes,
    subset_tempering_ladder,
)

__all__ = [
    "Ladder",
    "Rung",
    "TemperingLadder",
    "adaptive_power_ladder",
    "adaptive_subset_ladder",
    "barrier_profile",
    "cumulative_barrier",
    "equal_barrier_betas",
    "geometric_betas",
    "harmonic_betas",
    "ladder_betas",
    "power_ladder",
    "power_tempering_ladder",
    "sigmoidal_betas",
    "subset_sizes",
    "subset_tempering_ladder",
    "target_rung",
]
