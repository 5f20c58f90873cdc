"""Geweke-style invariance of PT, SPT, TT and STT (successive-conditional simulator,
:func:`support.conjugate_geweke`).

Model: θ ∈ R², θ ~ N(0, I); y_1..y_4 | θ ~ N(θ, I). Each iteration runs one step of the tempering
algorithm on p(θ | y) and then draws a fresh y ~ p(y | θ_0); θ_0's draws must then have mean 0 and
second moment 1, and their residuals about the exact posterior mean given the y they were drawn
with must have the posterior variance. A PT step leaves the product of its rungs invariant, not
rung 0 alone, so before each PT step the hotter replicas are drawn exactly from their own
(Gaussian) rung distributions given y — for a subset rung, the posterior given that rung's subset.
SPT runs twice: on a fixed ladder, and as it runs at its defaults — the schedule its pilot places
(on 16 points: on 4 the rounded subsets repeat, 4, 4, 1, 1 points, and a swap between equal rungs
cannot be wrong), DEO swaps and 3 inner steps. Broken variants — a swap ratio with its terms
transposed (PT, SPT on either ladder), and tempered transitions (TT, and STT on its redrawn
subsets) with seed 000 Algorithm 2's printed (off-by-one) down levels — must fail the same
test. The printed levels bias the second moments only mildly (|z| ≈ 3.5–6 with 4 chains), so
the table runs 16 chains (compile time dominates: 16 cost about what 4 do) and the pooled
statistics.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from support import cases, check_geweke, conjugate_geweke, conjugate_model

from tempering.algorithms import get_sampler
from tempering.algorithms.pt.algorithm import parallel_tempering
from tempering.algorithms.tt.transitions import tempered_transitions
from tempering.kernels import KERNELS
from tempering.ladders import geometric_betas, power_tempering_ladder, subset_tempering_ladder

N_OBS, DIM, CHAINS, ITERATIONS = 4, 2, 16, 8000
BETAS = geometric_betas(3, 0.05)


def transposed_log_ratio(hi_at_lo, lo_at_hi, hi, lo):
    """BROKEN: numerator and denominator of the swap ratio exchanged."""
    return hi + lo - hi_at_lo - lo_at_hi


@functools.cache
def pilot_betas(n_obs: int) -> tuple[float, ...]:
    """The schedule SPT's pilot places on the conjugate model with ``n_obs`` points at its
    defaults (rungs=auto)."""
    y = jax.random.normal(jax.random.key(0), (n_obs, DIM))
    return tuple(get_sampler("spt", conjugate_model(y)).options.start_betas)


def build(model, kind, inner="rwm", betas=None, **kwargs):
    betas = BETAS if betas is None else np.asarray(betas)
    ladder = (power_tempering_ladder(model, betas) if kind in ("pt", "tt") else
              subset_tempering_ladder(model, betas, redraw=kind == "stt"))
    spec = KERNELS.get(inner)
    options = spec.options(step_size=0.8) if inner == "rwm" else spec.options(width=1.5)
    bound = spec.bind(options, DIM)
    params = spec.rung_params(bound, betas)
    if kind in ("pt", "spt"):
        return parallel_tempering(ladder, bound, params, **kwargs)
    return tempered_transitions(ladder, bound, params, inner_steps=1, **kwargs)


def exact_hot_replicas(key, kind, state, y, betas):
    """Exact draws from rungs 1..M given y (Gaussian posteriors of the conjugate model)."""
    draws = []
    for m, k in enumerate(jax.random.split(key, len(betas) - 1), start=1):
        if kind == "pt":
            precision, total = 1.0 + betas[m] * N_OBS, betas[m] * jnp.sum(y, axis=0)
        else:
            subset = y[state.view[m - 1]]
            precision, total = 1.0 + subset.shape[0], jnp.sum(subset, axis=0)
        draws.append(total / precision + jax.random.normal(k, (DIM,)) / jnp.sqrt(precision))
    return draws


def updater(kind, **kwargs):
    """One step of ``kind`` on p(θ | y) from θ (PT: hot replicas drawn exactly first)."""

    def update(key, theta, y):
        k_init, k_hot, k_parity, k_step = jax.random.split(key, 4)
        algorithm = build(conjugate_model(y), kind, **kwargs)
        state = algorithm.init(k_init, theta)
        if kind in ("pt", "spt"):
            hot = exact_hot_replicas(k_hot, kind, state, y, kwargs.get("betas") or BETAS)
            state = algorithm.init(k_init, jnp.stack([theta, *hot]))
        if kwargs.get("swap") == "deo":  # start at either parity: both pair sets get proposed
            state = state._replace(iteration=jax.random.bernoulli(k_parity).astype(jnp.int32))
        state, _ = algorithm.step(k_step, state, algorithm.params)
        return algorithm.position(state)

    return update


CASES = cases(
    correct={
        "pt_sweep": ("pt", {"swap": "sweep"}),
        "pt_deo": ("pt", {"swap": "deo"}),
        "spt": ("spt", {}),
        # what `spt` runs at its defaults: the pilot's schedule, DEO, 3 inner steps; 16 points,
        # as on 4 the pilot's rounded subsets repeat (4, 4, 1, 1 points) and a swap between
        # equal rungs cannot be wrong
        "spt_pilot": ("spt", {"n_obs": 16, "betas": "pilot", "swap": "deo", "inner_steps": 3}),
        "tt": ("tt", {}),
        "tt_slice": ("tt", {"inner": "slice"}),
        "stt": ("stt", {}),
    },
    broken={
        "pt_transposed_swap_ratio": ("pt", {"log_ratio": transposed_log_ratio}),
        "spt_transposed_swap_ratio": ("spt", {"log_ratio": transposed_log_ratio}),
        "spt_pilot_transposed_swap_ratio": ("spt", {"n_obs": 16, "betas": "pilot",
                                                    "swap": "deo", "inner_steps": 3,
                                                    "log_ratio": transposed_log_ratio}),
        "tt_algorithm2_printed_levels": ("tt", {"down_levels": "printed"}),
        "stt_algorithm2_printed_levels": ("stt", {"down_levels": "printed"}),
    },
)


# In make test-slow (test budget): TT with the slice sweep (~13 s; its reversal:
# tests/samplers/test_geweke.py) and PT's sweep schedule (~8 s; DEO, the default, stays here)
SLOW_CASES = ("tt_slice", "pt_sweep")


@pytest.mark.parametrize("case", [pytest.param(c, marks=pytest.mark.slow)
                                  if c.name in SLOW_CASES else c for c in CASES],
                         ids=lambda c: c.name)
def test_tempering_geweke(case):
    kind, kwargs = case.build
    kwargs = dict(kwargs)
    n_obs = kwargs.pop("n_obs", N_OBS)
    if kwargs.get("betas") == "pilot":  # placed here, before the updater is traced
        kwargs["betas"] = pilot_betas(n_obs)
    check_geweke(case, conjugate_geweke(updater(kind, **kwargs), n_obs=n_obs, dim=DIM,
                                        chains=CHAINS, iterations=ITERATIONS, seed=3))
