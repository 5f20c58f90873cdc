"""``tempering bench tall-mixture``: the ordering error on draws with known frequencies, the rule
that "to 0.05" needs every ordering in every chain, SMC's weighted population, the table, the
CLI's checks, and the quick run end to end.

- The error is the largest |frequency of an ordering − 1/6| over the 6 orderings, pooled over
  chains: draws built with given counts per ordering (orderings as ``argsort`` against
  ``itertools.permutations``, independently of the library's ``ordering_index``) give exactly
  the expected number; a chain missing an ordering leaves "to 0.05" not reached however small
  the pooled error.
- End to end (two cold child processes, about half a minute on 2 cores): ``--quick --only
  stt,smc`` gives both rows with the table's columns, phases, dtype, data evaluations and peak
  memory, a PNG and the JSON.
"""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from cli_helpers import run_cli

from tempering.bench.tall_mixture.metrics import (
    curve,
    error,
    orderings,
    score,
    time_to_reach,
    visited,
)
from tempering.bench.tall_mixture.plan import CONTENDERS, QUICK, chosen_size
from tempering.bench.tall_mixture.report import HEADER, table

PERMUTATIONS = list(itertools.permutations(range(3)))


def in_ordering(p: int) -> np.ndarray:
    """A draw μ whose ``argsort`` is the p-th of ``itertools.permutations(range(3))``."""
    mu = np.empty(3)
    mu[list(PERMUTATIONS[p])] = [-2.5, 0.1, 3.2]
    return mu


def chain_of(per_ordering: list[int], seed: int = 0) -> np.ndarray:
    """A chain (draws, 3) with ``per_ordering[p]`` draws in ordering p, shuffled."""
    draws = np.array([in_ordering(p) for p, c in enumerate(per_ordering) for _ in range(c)])
    return draws[np.random.default_rng(seed).permutation(len(draws))]


def test_orderings_are_argsort_against_itertools_permutations():
    draws = np.random.default_rng(1).standard_normal((2, 50, 3))
    expected = [[PERMUTATIONS.index(tuple(np.argsort(mu))) for mu in chain] for chain in draws]
    assert orderings(draws).tolist() == expected
    assert [orderings(in_ordering(p)[None, None])[0, 0] for p in range(6)] == list(range(6))
    draws[1, 7, 2] = np.nan
    assert orderings(draws)[1, 7] == -1 and error(orderings(draws)) == float("inf")


def test_the_error_is_the_largest_ordering_frequency_error_pooled_over_chains():
    # pooled counts 40+20, 20+20, 20+20, 20+20, 10+20, 10+20 of 240: ordering 0 at 1/4,
    # 1/12 over 1/6; 4 and 5 at 1/8, 1/24 under
    draws = np.stack([chain_of([40, 20, 20, 20, 10, 10]), chain_of([20] * 6, seed=1)])
    assert error(orderings(draws)) == pytest.approx(1 / 12, abs=1e-12)
    assert visited(orderings(draws)) == [6, 6]
    balanced = np.stack([chain_of([20] * 6), chain_of([20] * 6, seed=2)])
    assert error(orderings(balanced)) == pytest.approx(0.0, abs=1e-12)
    # a weighted population: ordering 2 holds half the weight, the rest spread evenly
    population = np.array([in_ordering(p) for p in range(6)])[None]
    weights = np.array([0.1, 0.1, 0.5, 0.1, 0.1, 0.1])
    found = score(population, weights, before=0.0, sampling=0.0, total=7.0)
    assert found.error == pytest.approx(0.5 - 1 / 6, abs=1e-12) and found.visited == [6]
    assert found.curve[0].tolist() == [7.0] and found.to_level is None
    even = score(population, np.full(6, 1 / 6), before=0.0, sampling=0.0, total=7.0)
    assert even.error == pytest.approx(0.0, abs=1e-12) and even.to_level == 7.0


def test_a_chain_missing_an_ordering_never_reaches_the_level():
    # each chain 600 draws: chain 1 never visits ordering 5, chain 0 holds it twice over; the
    # pooled frequencies are exactly 1/6, yet "to 0.05" is not reached
    full = chain_of([100, 100, 100, 100, 0, 200])
    missing = chain_of([100, 100, 100, 100, 200, 0], seed=3)
    draws = np.stack([full, missing])
    found = score(draws, None, before=10.0, sampling=6.0, total=17.0)
    assert found.error == pytest.approx(0.0, abs=1e-12)
    assert found.visited == [5, 5] and found.to_level is None
    assert not found.curve[2].any()
    both = np.stack([chain_of([100] * 6, seed=4), chain_of([100] * 6, seed=5)])
    reached = score(both, None, before=10.0, sampling=6.0, total=17.0)
    assert reached.visited == [6, 6] and reached.to_level is not None
    assert 10.0 < reached.to_level <= 16.0


def test_to_level_waits_for_every_ordering_in_every_chain_and_for_the_error():
    # 150 draws per chain, read at 38, 75, 113 and 150: chain 1 reaches ordering 5 only after
    # its 120th draw, so only the last prefix is complete (its error: 55/300 − 1/6 = 1/60)
    late = np.concatenate([chain_of([24] * 5 + [0], seed=6), chain_of([0] * 5 + [30])])
    draws = np.stack([chain_of([25] * 6, seed=7), late])
    seconds, errors, complete = curve(orderings(draws), before=1.0, sampling=2.0, points=4)
    assert seconds.tolist() == pytest.approx([1.0 + 2.0 * k / 150 for k in (38, 75, 113, 150)])
    assert complete.tolist() == [False, False, False, True]
    assert errors[-1] == pytest.approx(1 / 60, abs=1e-12)
    assert time_to_reach(seconds, errors, complete) == seconds[-1]
    assert time_to_reach(seconds, errors, complete, level=1.0) == seconds[-1]
    assert time_to_reach(seconds, errors, np.ones(4, bool), level=1.0) == seconds[0]
    assert time_to_reach(seconds, errors, complete, level=0.01) is None


def test_spt_runs_four_times_the_draws():
    """spt's draws cost a few per cent of pt's: it runs 4 × the size's draws, the rest 1 ×."""
    from tempering.bench.tall_mixture.plan import CONTENDERS, FULL, request

    draws = {c.label: request(c, FULL, 10_000)["draws"] for c in CONTENDERS}
    assert draws["spt"] == 4 * FULL.draws and draws["pt"] == draws["stt"] == FULL.draws


def test_the_table_has_its_columns_and_ratios_against_smc():
    phases = {"startup": 1.0, "compile": 2.0, "pilot": 0.5, "warmup": 0.5, "sampling": 1.5,
              "other": 0.5}
    smc = {"label": "smc", "kind": "smc", "ok": True, "n": 1000, "phases": phases, "total": 6.0,
           "draws_dtype": "float32", "passes": 2.0e4, "peak_rss_bytes": 500 * 2**20,
           "scored": {"error": 0.01, "to_level": 6.0, "visited": [6]}}
    spt = {**smc, "label": "spt", "kind": "library", "draws": 16000, "total": 12.0,
           "passes": 300.0,
           "scored": {"error": 0.02, "to_level": 3.0, "visited": [6, 6, 6, 6]}}
    pt = {**smc, "label": "pt", "kind": "library", "draws": 4000,
          "scored": {"error": 0.3, "to_level": None, "visited": [6, 2, 6, 6]}}
    failed = {"label": "stt", "ok": False, "error": "RuntimeError: boom"}
    lines = table([spt, pt, failed, smc])
    assert lines[0] == "| " + " | ".join(HEADER) + " |"
    assert HEADER[:7] == ["contender", "dtype", "draws a chain", "to 0.05, s", "×smc",
                          "final error", "orderings per chain"]
    assert HEADER[-3:] == ["total, s", "data evaluations", "peak RSS, MB"]
    assert lines[2] == ("| spt | float32 | 16,000 | 3.00 | 0.50× | 0.020 | 6,6,6,6 | 1.00 | 2.00 "
                        "| 0.50 | 0.50 | 1.50 | 0.50 | 12.0 | 300,000 | 500 |")
    assert "| pt | float32 | 4,000 | not reached | – | 0.300 | 6,2,6,6 |" in lines[3]
    assert lines[4].startswith("| stt | failed |")
    assert "| smc | float32 | – | 6.00 | 1.00× | 0.010 | 6 |" in lines[5]
    assert "| 2.00e+07 |" in lines[5]
    assert all(line.count("|") == lines[0].count("|") for line in lines[2:6])
    assert lines[7:] == ["  stt: failed: RuntimeError: boom"]


def test_rows_choose_the_cases():
    assert chosen_size(False, "1e4, 100_000,10000").rows == (10_000, 100_000)
    assert chosen_size(False, None).rows == (10_000, 100_000)
    assert chosen_size(True, None).rows == QUICK.rows == (300,)
    assert [c.label for c in CONTENDERS] == ["pt", "spt", "stt", "mintee", "numpyro nuts",
                                             "smc"]


@pytest.mark.parametrize("args, fragment", [
    (["--only", "nope"], "--only: unknown contender nope (choose from pt, spt, stt, mintee,"),
    (["--only", "spt,nuts"], "--only: unknown contender nuts"),
    (["--rows", "0"], "--rows: '0' must be a whole number ≥ 100"),
    (["--rows", "ten"], "--rows: 'ten' is not a number"),
    (["--rows", "1e4,2.5e3.1"], "--rows: '2.5e3.1' is not a number"),
    (["--n", "5"], "bench tall-mixture: --n and --dim do not apply (use --rows)"),
    (["--dims", "3"], "bench tall-mixture: --dims does not apply"),
])
def test_bad_input_is_one_line_exit_2(capsys, args, fragment):
    code, out, err = run_cli(["bench", "tall-mixture", *args], capsys)
    assert code == 2 and out == ""
    lines = err.splitlines()
    assert len(lines) == 1 and fragment in lines[0], err


def test_quick_bench_runs_in_the_suite(capsys, tmp_path):
    """``bench tall-mixture --quick`` end to end on a library sampler and SMC, the baseline:
    each a cold child with its row, the table, the PNG and the JSON."""
    out, json_file = tmp_path / "tm", tmp_path / "tm.json"
    code, stdout, err = run_cli(["bench", "tall-mixture", "--quick", "--only", "stt,smc",
                                 "--out", out, "--json", json_file], capsys)
    assert code == 0, err
    assert "| " + " | ".join(HEADER) + " |" in stdout
    (case,) = json.loads(json_file.read_text())["cases"]
    assert case["n"] == 300
    rows = case["rows"]
    assert [r["label"] for r in rows] == ["stt", "smc"]
    for row in rows:
        assert row["ok"], row.get("error")
        assert row["draws_dtype"] == "float32" and row["passes"] > 0
        assert row["peak_rss_bytes"] > 50 * 2**20 and row["phases"]["compile"] > 0
        assert sum(row["phases"].values()) == pytest.approx(row["total"], rel=1e-6)
        scored = row["scored"]
        assert 0 <= scored["error"] <= 5 / 6 and all(1 <= v <= 6 for v in scored["visited"])
        assert f"| {row['label']} | float32 |" in stdout
    stt, smc = rows
    assert stt["draws_shape"] == [2, 200, 3] and len(stt["scored"]["visited"]) == 2
    assert smc["draws_shape"] == [1, 500, 3] and len(smc["scored"]["visited"]) == 1
    assert smc["scored"]["curve"] == [[smc["total"]], [smc["scored"]["error"]]]
    assert smc["info"]["particles"] == 500 and smc["info"]["stages"] >= 1
    assert (out / "tall-mixture-n300.png").is_file()
