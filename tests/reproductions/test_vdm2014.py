"""Fast checks of the vdm2014 reproduction (seed 000): transcribed numbers, cost ratios, tables."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

from tempering.algorithms.cost_model import pt_iteration_costs, tt_iteration_cost
from tempering.experiments.vdm2014 import experiment as v
from tempering.experiments.vdm2014 import paper
from tempering.experiments.vdm2014.runs import initial_points, theta_star

SEED_TEXT = Path(__file__).resolve().parents[3] / "shared" / "seeds" / "000_ae3132567955e81b.txt"


@pytest.mark.parametrize(("table", "inner", "dim", "sampler", "value", "star"), [
    ("table1", "hmc", 5, "stt", 0.1828, False),
    ("table1", "hmc", 20, "pt", 0.0001, True),
    ("table1", "hmc", 25, "base", 0.0010, False),
    ("table1", "rwm", 10, "stt", 0.0151, False),
    ("table1", "rwm", 20, "base", 0.0032, False),
    ("table2", "hmc", 5, "base", 0.7915, False),
    ("table2", "hmc", 100, "stt", 0.0145, False),
    ("table2", "rwm", 5, "tt", 3.1858, False),
    ("table2", "rwm", 100, "spt", 0.0008, True),
])
def test_paper_values_spot_checks(table, inner, dim, sampler, value, star):
    assert paper.paper_value(table, inner, dim, sampler) == (value, star)


def test_paper_has_no_mh_row_for_25():
    assert paper.paper_value("table1", "rwm", 25, "stt") is None


@pytest.mark.skipif(not SEED_TEXT.exists(), reason="seed paper text not available")
def test_paper_rows_appear_in_seed_text():
    """Every transcribed row appears in the paper's text (bold/star markup stripped)."""
    lines = [ln.replace("<b>", "").replace("</b>", "").replace("*", "").split()
             for ln in SEED_TEXT.read_text().splitlines()]
    rows = [tuple(float(x) for x in ln) for ln in lines
            if len(ln) == 6 and all(c.replace(".", "").isdigit() for c in ln)]
    for block in (paper.TABLE1_HMC, paper.TABLE1_MH, paper.TABLE2_HMC, paper.TABLE2_MH):
        for dim, values in block.items():
            assert (float(dim), *values) in rows


def test_measured_ratios_match_text():
    text = SEED_TEXT.read_text() if SEED_TEXT.exists() else ""
    assert paper.MEASURED_COST_RATIOS["mvn_mean"]["tt"] == 12.94
    assert paper.MEASURED_COST_RATIOS["gp_regression"]["stt"] == 2.35
    if text:
        assert "12.94 (TT)" in text and "2.35 (STT)" in text


def test_predicted_ratio_equals_cost_model():
    costs = [1.0, 0.5, 0.25, 0.125, 0.0625, 0.03, 0.015]
    opts = {"rung_costs": costs, "inner_steps": 1, "swap": "sweep"}
    assert v.predicted_ratio(opts, "base", 5.0) == 1.0
    assert v.predicted_ratio(opts, "spt", 5.0) == pytest.approx(
        pt_iteration_costs(costs, 5.0, 1, "sweep", 1)[0] / 5.0)
    assert v.predicted_ratio(opts, "stt", 5.0) == pytest.approx(
        tt_iteration_cost(costs, 5.0, 1) / 5.0)


def test_theta_star_gp_is_prior_mean_of_logs():
    star = theta_star("gp_regression", 5)
    assert star.shape == (5,)
    np.testing.assert_allclose(star[:3], 0.5)
    np.testing.assert_allclose(star[3:], [1.2561176684318, 0.4227843350984671 - np.log(2)])
    pts = initial_points("gp_regression", 5)
    np.testing.assert_allclose(pts, [star, star / 2, 2 * star])


def test_tiny_table_and_cost_rows(tmp_path):
    """A tiny Table-1 run with 2 samplers writes well-formed Markdown and CSV."""
    runner = v.Runner(draws=8, chunks=2, log=lambda s: None)
    rows = v.efficiency_rows(runner, "table1", "gp_regression", 8, [5], "rwm",
                             samplers=("base", "spt"))
    md, csv_path = v.write_table(rows, v.EFF_COLUMNS, tmp_path / "t1", "tiny")
    with csv_path.open() as f:
        table = list(csv.DictReader(f))
    assert [r["sampler"] for r in table] == ["MH", "SPT"]
    assert tuple(table[0]) == v.EFF_COLUMNS
    assert float(table[0]["paper_ess_per_s"]) == 0.0279
    assert all(float(r["ess_per_s"]) > 0 for r in table)
    lines = md.read_text().splitlines()
    header = [c.strip() for c in lines[2].strip("|").split("|")]
    assert header == list(v.EFF_COLUMNS)
    body = [ln for ln in lines if ln.startswith("| MH")]
    assert len(body) == 2 and all(ln.count("|") == len(v.EFF_COLUMNS) + 1 for ln in body)
    # counted cost of SPT with MH equals the cost model's prediction
    spt = runner.cache[("gp_regression", 8, 5, "spt", "rwm")]
    assert float(spt.cost.mean()) == pytest.approx(v.predicted_ratio(spt.options, "spt", 1.0))
