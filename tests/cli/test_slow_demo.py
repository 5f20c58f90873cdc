"""Long statistical runs, left out of ``make test`` (run them with ``make test-slow``)."""

from __future__ import annotations

import pytest

from tempering import get_model, sample
from tempering.algorithms import get_sampler
from tempering.summary import summarize


@pytest.mark.slow
def test_mcycle_gp_demo_converges():
    """The demo's run: NUTS on the mcycle GP, 4 chains × 1000 draws; every R-hat below 1.05."""
    model = get_model("gp_regression", data="mcycle")
    idata = sample(model, get_sampler("nuts", model), key=0, chains=4, draws=1000, warmup=500,
                   progress=False)
    result = summarize(idata)
    assert result["rhat_max"] < 1.05, result["rhat_max"]
    assert result["ess_bulk_min"] > 400, result["ess_bulk_min"]
