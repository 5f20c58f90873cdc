"""The benchmarks' SMC peer (``bench/multimodal/smc_run.py``): its proposal's scale follows the
moves' acceptance, so a multimodal population keeps moving inside its modes.

- :func:`next_scale` multiplies the scale by acceptance / 0.234, the factor clipped to [0.1, 3].
- On label switching (3 means, 400 points; 1000 particles, 10 moves, seed 0) the last three
  stages' acceptance stays above 0.1 and the ordering shares end within 0.08 of 1/6 (measured
  0.14–0.18 and 0.034; one share's Monte-Carlo sd is about 0.015 at the final ESS). The broken
  variant — the particles' covariance alone, the scale never moving, as the bench ran until
  2026-11-28 — is caught by the same checks: acceptance 0.004–0.01 in the last stages, error
  0.21.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from tempering import get_model
from tempering.bench.multimodal import smc_run
from tempering.bench.multimodal.sizes import QUICK
from tempering.bench.multimodal.targets import Target, gaussian_transform
from tempering.models import ordering_index, ordering_masses


def test_next_scale_steers_to_the_target_acceptance_within_its_clip():
    assert smc_run.next_scale(2.0, smc_run.TARGET_ACCEPTANCE) == pytest.approx(2.0)
    assert smc_run.next_scale(2.0, smc_run.TARGET_ACCEPTANCE / 2) == pytest.approx(1.0)
    assert smc_run.next_scale(2.0, 0.0) == pytest.approx(0.2)  # at most 10× smaller
    assert smc_run.next_scale(2.0, 1.0) == pytest.approx(6.0)  # at most 3× larger


def _label_switching() -> tuple[float, float]:
    """SMC on the 3-mean mixture: the last three stages' mean acceptance, the ordering error."""
    model = get_model("mixture", n=400, means=(-3.0, 0.0, 3.0), sigma=1.0, prior_sd=3.0)
    target = Target("mixture", "label switching", model, gaussian_transform(3.0), float("nan"),
                    ordering_masses(3), ordering_index)
    with target.in_precision():
        run = smc_run.run_smc(target, replace(QUICK, particles=1000, smc_steps=10), seed=0)
    shares = np.bincount(ordering_index(run.draws[0]), weights=run.weights, minlength=6)
    return float(np.mean(run.info["acceptance"][-3:])), float(np.max(np.abs(shares - 1 / 6)))


@pytest.mark.parametrize("broken", [False, True], ids=["scale follows acceptance",
                                                      "broken: covariance alone"])
def test_smc_keeps_moving_inside_the_modes_of_label_switching(broken, monkeypatch):
    if broken:
        monkeypatch.setattr(smc_run, "next_scale", lambda scale, acceptance: scale)
    acceptance, error = _label_switching()
    moving = acceptance > 0.1 and error < 0.08
    assert moving != broken, (acceptance, error)
