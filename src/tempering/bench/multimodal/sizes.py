"""How big each run is: the full benchmark's settings (what the issue needs: a few thousand draws
per target, minutes per target on 2 cores) and the tiny ones the tests run.

The full size keeps the high-dimensional targets at 30 dimensions: dynesty at its defaults
(random slice sampling above 20 dimensions) took 468 s on the 40-D mixture and 308 s on the
50-D scaled normal on the 2-core machine, most of a 24-minute run; at 30 the whole benchmark fits
in about a quarter of an hour.

Library MCMC (PT and NUTS) keeps ``chains × draws`` draws after ``warmup``; SMC moves
``particles``, each ``m`` times per stage for every ``m`` of ``smc_moves`` (the sweep that picks
SMC's number of moves per target: :mod:`.smc_sweep`; ``smc_steps``, BlackJAX's default count, is
what ``bench startup`` runs); dynesty keeps ``nlive`` live points (and stops at
``dynesty_maxcall`` likelihood calls, if set); ptemcee runs ``walkers_per_dim × d`` walkers
(even, at least 2d as it demands) on ``ntemps`` temperatures for ``ptemcee_burn`` then
``ptemcee_iterations`` iterations. The targets' sizes (dimensions, data) are here too, so that
``quick`` shrinks the problems as well as the runs.
"""

from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Size:
    """One benchmark size (module docstring)."""

    name: str
    chains: int
    draws: int
    warmup: int
    particles: int
    smc_steps: int
    smc_moves: tuple[int, ...]
    nlive: int
    dynesty_maxcall: int | None
    walkers_per_dim: int
    ntemps: int
    ptemcee_burn: int
    ptemcee_iterations: int
    gauss_dims: tuple[int, ...]
    spike_dim: int
    normal_dim: int
    mixture_means: tuple[float, ...]
    mixture_n: int

    def scaled(self, factor: float) -> Size:
        """The same size with every run's length (draws, particles, live points, iterations)
        times ``factor`` (at least 1 each)."""
        def times(n: int) -> int:
            return max(1, round(n * factor))

        return replace(self, draws=times(self.draws), warmup=times(self.warmup),
                       particles=times(self.particles), nlive=times(self.nlive),
                       ptemcee_burn=times(self.ptemcee_burn),
                       ptemcee_iterations=times(self.ptemcee_iterations))


FULL = Size(name="full", chains=4, draws=1000, warmup=500, particles=4000, smc_steps=10,
            smc_moves=(5, 10, 25, 50, 100), nlive=500, dynesty_maxcall=None,
            walkers_per_dim=4, ntemps=10, ptemcee_burn=1000, ptemcee_iterations=1000,
            gauss_dims=(10, 30), spike_dim=20, normal_dim=30, mixture_means=(-3.0, 0.0, 3.0),
            mixture_n=150)
QUICK = Size(name="quick", chains=2, draws=60, warmup=40, particles=200, smc_steps=3,
             smc_moves=(2, 4), nlive=40, dynesty_maxcall=20_000, walkers_per_dim=4, ntemps=3,
             ptemcee_burn=20, ptemcee_iterations=30, gauss_dims=(2,), spike_dim=2,
             normal_dim=2, mixture_means=(-3.0, 3.0), mixture_n=40)
SIZES = {size.name: size for size in (FULL, QUICK)}
