"""The demo's mixture comparison: the share of draws per label ordering, and its table."""

from __future__ import annotations

import numpy as np
import pytest
from rich.console import Console
from support import Z_BOUND

from tempering.cli.demo import MIXTURE_RUNS, mixture_table, ordering_share


def test_ordering_share_of_chains_each_stuck_in_one_ordering():
    """Chains that never change ordering: per-chain shares 0 or 1; no spread within, MCSE from
    the indicator's ESS (small: 4 independent chains' worth at most)."""
    mu = np.zeros((4, 100, 2))
    mu[1:, :, 0] = 1.0  # chains 1-3 have μ₁ > μ₂ throughout
    share = ordering_share(mu)
    assert share["per_chain"] == [0.0, 1.0, 1.0, 1.0]
    assert share["pooled"] == 0.75
    assert share["mcse"] > 0.1  # the ESS of a stuck indicator is a handful of draws


def test_ordering_share_of_independent_draws():
    """Independent fair coin flips: pooled share near 0.5 with MCSE ≈ 0.5/√N."""
    rng = np.random.default_rng(0)
    mu = rng.normal(size=(4, 1000, 2))
    share = ordering_share(mu)
    assert abs(share["pooled"] - 0.5) < Z_BOUND * 0.5 / np.sqrt(4000)
    assert share["mcse"] == pytest.approx(0.5 / np.sqrt(4000), rel=0.1)


def test_mixture_table_fits_80_columns():
    summary = {"rhat_max": 1.53, "ess_bulk_min": 7.0, "ess_per_second": 26.8,
               "ess_per_cost": 2.1e-4, "cost_per_draw": 4.3, "wall_seconds": {"sampling": 0.3}}
    shares = {"pooled": 0.75, "mcse": 0.216, "per_chain": [0.0, 1.0, 1.0, 1.0]}
    console = Console(width=80, record=True)
    console.print(mixture_table({"nuts": summary, "pt": summary},
                                {"nuts": shares, "pt": shares}))
    text = console.export_text()
    assert "0.00 1.00 1.00 1.00" in text and "0.750 ± 0.216" in text
    assert "…" not in text  # nothing cut
    assert max(len(line) for line in text.splitlines()) <= 80


@pytest.mark.slow
def test_demo_mixture_nuts_stuck_pt_right():
    """The demo's mixture runs (4 chains × 2000 draws): every NUTS chain stays in one label
    ordering, PT's pooled share is within Z_BOUND MCSE of the known 1/2."""
    from tempering import get_model, sample
    from tempering.algorithms import get_sampler

    shares = {}
    for name, (model_options, options, warmup) in MIXTURE_RUNS.items():
        model = get_model("mixture", **model_options)
        idata = sample(model, get_sampler(name, model, **options), key=0, chains=4, draws=2000,
                       warmup=warmup, progress=False)
        shares[name] = ordering_share(idata["posterior"]["mu"].values)
    assert all(v in (0.0, 1.0) for v in shares["nuts"]["per_chain"]), shares["nuts"]
    pt = shares["pt"]
    assert abs(pt["pooled"] - 0.5) < Z_BOUND * pt["mcse"], pt
