"""The li-wong reproduction, part 2 (seed 003 §5.3: MINTEE on the 50-mode mixture).

- The measures on hand-made draws: mode masses, the mode-indicator ESS (0 for a chain that never
  leaves its mode, about the draw count for independent labels), Table 3's ring percentages
  (rows sum to 100), and Table 3's paper rows copied and labelled.
- ``--only``: an unknown part, and ``--only`` on a reproduction without parts, get one line and
  exit code 2 with no output directory made.
- Fig. 4's k-means curve stops below the number of distinct draws (rejections repeat draws), with
  no scikit-learn warning.
- (slow) A tiny ``--only ee`` run writes its tables, the figure and the README.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest
import xarray as xr
from cli_helpers import run_cli
from test_li_wong import TINY

from tempering.experiments.li_wong import paper
from tempering.experiments.li_wong.ee import (
    continued_levels,
    embedding,
    indicator_ess,
    mode_masses,
    ring_shares,
    table3_rows,
)
from tempering.experiments.li_wong.experiment import parts_to_run, run
from tempering.ladders.energy import mintee_batches


def test_embedding_clusters_stay_below_the_distinct_draws():
    import warnings

    rng = np.random.default_rng(1)
    mu = np.repeat(rng.normal(size=(25, 50)), 4, axis=0)  # 100 draws, 25 distinct
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = embedding(mu, 100)
    assert out["clusters"] == [10, 20] and len(out["inertia"]) == 2
    assert out["xy"].shape == (100, 2) and out["modes"].shape == (100,)


def test_mode_masses_and_indicator_ess():
    rng = np.random.default_rng(0)
    modes = rng.integers(0, 50, size=(1, 4000))
    masses = mode_masses(modes, 50)
    assert masses.sum() == pytest.approx(1.0) and masses.shape == (50,)
    assert 2500 < indicator_ess(modes, 50) < 5500  # independent labels: ESS ≈ draws
    stuck = np.full((1, 4000), 7)
    assert indicator_ess(stuck, 50) == 0.0
    assert mode_masses(stuck, 50)[7] == 1.0


def test_ring_shares_sum_to_100():
    rings = np.array([[[0, 2, 1], [1, 2, 2], [0, 5, 2], [-1, 2, 0]]])  # (chain, draw, level)
    stats = xr.Dataset({"energy_ring": (("chain", "draw", "level"), rings)})
    shares = ring_shares({"sample_stats": stats}, 3)
    np.testing.assert_allclose(shares.sum(axis=1), 100.0)
    np.testing.assert_allclose(shares, [[75, 25, 0], [0, 0, 100], [25, 25, 50]])  # −1, 5 clipped


def test_table3_rows_copy_the_paper():
    rows = table3_rows({})
    assert [r["source"] for r in rows] == ["paper (Table 3)"] * paper.EE_LEVELS
    assert rows[0]["ring_0"] == 51.08 and rows[6]["ring_6"] == 54.37 and rows[3]["T"] == 37.93


def test_continued_ladder_stops_below_n():
    levels = continued_levels(10**5, 1000, 1.4)
    batches = mintee_batches(10**5, 1000, 1.4, levels)  # valid: strictly decreasing from n
    assert batches[1] > 10**5 / 1.4 ** 2 and levels == 15
    with pytest.raises(ValueError):
        mintee_batches(10**5, 1000, 1.4, levels + 1)


def test_only_names_parts():
    assert parts_to_run("ee") == ("ee",)
    assert parts_to_run("bnn, tied") == ("tied", "bnn")


@pytest.mark.parametrize("args,needle", [
    (["li-wong", "--only", "ee,mcmc"], "unknown part mcmc"),
    (["gsk2010", "--only", "ee"], "has no parts"),
])
def test_only_errors(tmp_path, capsys, args, needle):
    out = tmp_path / "never"
    code, _, err = run_cli(["reproduce", *args, "--quick", "--out", str(out)], capsys)
    assert code == 2 and needle in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


@pytest.mark.slow  # compiling the 7-level samplers takes a few minutes on one core
def test_tiny_ee_run_writes_every_file(tmp_path):
    result = run(quick=True, out=tmp_path, cfg=TINY, log=lambda line: None, only="ee")
    assert result["tied"] is None and result["ee"] is not None
    for stem in ("fig4_modes", "table3", "ee_jumps"):
        with (tmp_path / f"{stem}.csv").open() as f:
            assert list(csv.DictReader(f)), stem
    assert (tmp_path / "fig4_mixture50.png").stat().st_size > 1000
    readme = Path(tmp_path / "README.md").read_text()
    assert readme.startswith("# Part 2: MINTEE") and "Table 3" in readme
    names = [r["sampler"] for r in result["ee"]["masses"]]
    assert names[:3] == ["MINTEE (subsets=fixed)", "MINTEE (subsets=random)", "EE (full data)"]
    assert names[-1] == "MCMC (RWM, T = 1)" and len(names) == 7
    assert any(name.endswith("levels, unshifted)") for name in names)
