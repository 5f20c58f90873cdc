"""Default PT on issue 44's 12-D three-mode mixture (part 4): every mode in every chain and the
pooled mode-mass error within the issue's 0.03 at 4 × 4000 draws.

The mixture is ``gauss_mixture`` in 12 dimensions with weights (0.151, 0.363, 0.486) and equal
widths, so the exact posterior masses are the weights. The issue measured, on the code of
2026-11-26, one mode's share per chain anywhere from 0.22 to 0.47 and pooled errors of 0.012 to
0.053. At PT's defaults of 2026-11-28 (one program, in-scan tuning, stabilized reference), seeds
0–7 gave pooled errors 0.013, 0.029, 0.012, 0.010, 0.016, 0.016, 0.012 and 0.005, and every
chain visited all three modes (``docs/benchmarks.md``). The test runs seed 0. It fails when the
chains stop crossing between the modes: a chain that never leaves its first mode has a share of 0
in the others.

With *unequal* widths (σ = 0.5, 1.25, 2) the same run loses the narrow mode in most chains
(pooled error 0.07–0.17 over seeds 0–2): along a tempered path the narrow mode's mass shrinks by
(σ_wide/σ_narrow)^(d(1−β)), so no rung but the target's neighbours holds it. That is a limit of
the path (a weight-preserving reference would remove it), not of this test's target, and the
summary's trip warning reports it.
"""

from __future__ import annotations

import numpy as np

import tempering
from tempering.models.gauss_mixture import exact_mode_masses, mode_mass_table, mode_of

OPTIONS = {"dim": 12, "weights": [0.151, 0.363, 0.486], "widths": "equal"}


def test_default_pt_finds_every_mode_in_every_chain_with_the_right_masses():
    model = tempering.get_model("gauss_mixture", **OPTIONS)
    algorithm = tempering.get_sampler("pt", model)
    idata = tempering.sample(model, algorithm, key=0, chains=4, draws=4000, warmup=1000,
                             progress=False)
    draws = np.asarray(idata.posterior["theta"])
    exact = exact_mode_masses(OPTIONS)
    assert [row["modes_visited"] for row in mode_mass_table(draws, OPTIONS)] == [3, 3, 3, 3]
    pooled = np.bincount(np.asarray(mode_of(draws.reshape(-1, 12), OPTIONS)),
                         minlength=3) / draws.shape[0] / draws.shape[1]
    assert np.max(np.abs(pooled - exact)) <= 0.03
