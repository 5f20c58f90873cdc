"""Geweke-style invariance of the discretizing chain (successive-conditional simulator,
:func:`support.conjugate_geweke`).

Model: θ ∈ R², θ ~ N(0, I), y_1..y_4 | θ ~ N(θ, I). π* is the SOD approximation on 2 of the 4
observations — the posterior given half the data, twice as wide in variance terms as it should be
(1/3 against 1/5). Each iteration makes one discretizing-chain step (r = 3 mark moves of s = 1
step: forward and backward simulation, cached revisits) on p(θ | y) and then draws a fresh
y ~ p(y | θ). The chain without the π/π* correction leaves p(θ | y_S) invariant instead; θ's
marginal moments cannot see that (a data-augmentation chain on half the data still has the prior
as its θ-marginal), the residual moments can.
"""

from __future__ import annotations

import jax
import pytest
from support import cases, check_geweke, conjugate_geweke, conjugate_model

from tempering.algorithms.approx.discretizing import discretizing_chain
from tempering.gp.approx import draw_subset
from tempering.kernels import KERNELS
from tempering.ladders import target_rung
from tempering.ladders.approximation import approximate_rung

N_OBS, DIM, CHAINS, ITERATIONS, SUBSET = 4, 2, 4, 6000, 2


def updater(correct: bool):
    def update(key, theta, y):
        model = conjugate_model(y)
        approx = approximate_rung(model, "sod", draw_subset(0, N_OBS, SUBSET), 1e-8)
        spec = KERNELS.get("slice")
        bound = spec.bind(spec.options(width=1.5), DIM)
        algorithm = discretizing_chain(target_rung(model), approx, bound, r=3, s=1,
                                       correct=correct)
        k_init, k_step = jax.random.split(key)
        state, _ = algorithm.step(k_step, algorithm.init(k_init, theta), algorithm.params)
        return algorithm.position(state)

    return update


CASES = cases(correct={"eq13": True}, broken={"no_correction": False})


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_discretizing_chain_geweke(case):
    check_geweke(case, conjugate_geweke(updater(case.build), n_obs=N_OBS, dim=DIM, chains=CHAINS,
                                        iterations=ITERATIONS, seed=7))
