"""``tempering bench gp-grad``: output format on a small problem, and bad inputs (one line, exit 2).

The benchmark itself is not a timed test (timings depend on the machine and its load); the figures
at n = 1024, D = 18 are reported by running the command.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from cli_helpers import run_cli


def test_gp_grad_prints_the_table_and_the_ratio_last(capsys):
    code, out, err = run_cli(["bench", "gp-grad", "--n", 40, "--dim", 3, "--repeats", 2], capsys)
    assert code == 0, err
    lines = out.strip().splitlines()
    assert "n = 40, D = 3" in lines[0]
    rows = {line[:28].strip(): line[28:].split() for line in lines[2:7]}
    assert set(rows) == {"cholesky", "cholesky (unsymmetrised)", "value",
                         "value+grad (custom VJP)", "value+grad (plain autodiff)"}
    assert all(len(cells) == 2 and float(cells[0]) > 0 for cells in rows.values())
    assert float(rows["cholesky"][1]) == 1.0
    gap = re.fullmatch(r"custom vs autodiff gradient: max relative difference (\S+)", lines[7])
    assert gap and float(gap.group(1)) < 1e-8  # the two gradients agree
    last = re.fullmatch(r"value\+grad/cholesky = (\d+\.\d\d)", lines[-1])
    assert last, lines[-1]
    assert last.group(1) == rows["value+grad (custom VJP)"][1]


@pytest.mark.parametrize("args, fragment", [
    (["bench", "gp-grid"], "unknown benchmark 'gp-grid'"),
    (["bench", "gp-grad", "--n", 0], "--n must be at least 1"),
    (["bench", "gp-grad", "--n", -5], "--n must be at least 1"),
    (["bench", "gp-grad", "--dim", 0], "--dim must be at least 1"),
    (["bench", "gp-grad", "--repeats", 0], "--repeats must be at least 1"),
    (["bench", "gp-grad", "--n", 10**6], "--n must be at most"),
    (["bench", "gp-grad", "--n", "many"], "--n"),
    (["bench"], "name"),
    (["bench", "ee", "--n", 100], "--n must be at least 2000"),
    (["bench", "ee", "--dim", 3], "--dim"),
    (["bench", "pt", "--n", 100], "--n and --dim do not apply"),
    (["bench", "pt", "--repeats", 0], "--repeats must be positive"),
])
def test_bad_input_is_one_line_exit_2(capsys, args, fragment):
    code, out, err = run_cli(args, capsys)
    assert code == 2
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("tempering: error: "), err
    assert fragment in lines[0]


@pytest.mark.slow  # ~15 s: a benchmark's end-to-end run
def test_mint_prints_passes_seconds_and_the_overhead(capsys):
    """On a small synthetic set: one row per sampler, the two ratio lines, the overhead line."""
    code, out, err = run_cli(["bench", "mint", "--n", 300, "--dim", 3, "--repeats", 1], capsys)
    assert code == 0, err
    lines = out.strip().splitlines()
    assert "n = 240, D = 3, MINT batch m = 100" in lines[0]  # 20% of the 300 are held out
    rows = {line[:16].strip(): line[16:].split() for line in lines[2:5]}
    assert set(rows) == {"MINT", "tempered MCMC", "MCMC"}
    assert all(float(cells[0]) > 0 and 0.0 <= float(cells[2]) <= 1.0 for cells in rows.values())
    assert re.match(r"tempered MCMC / MINT: \d+\.\dx data passes", lines[5])
    assert re.match(r"MCMC / MINT: \d+\.\dx data passes", lines[6])
    assert re.match(r"per-step time over bare batch evaluations: reading a \d+\.\d\dx", lines[-1])


def test_ee_milestones_by_hand():
    """All modes visited at the draw that brings the last new one; the error milestone when the
    running shares first come within the tolerance of 1/k, never before all are visited."""
    from tempering.bench.ee import TOLERANCE, milestones

    modes = np.array([0, 0, 1, 0, 2, 1, 2, 2, 1, 0, 1, 2])
    marks = milestones(modes, 3, visits=(2,))
    assert marks == {"2_modes": 2, "all_modes": 4, "within": 8}  # 3, 3, 3 after nine draws
    balanced = np.tile(np.arange(3), 400)
    marks = milestones(balanced, 3)
    assert marks["all_modes"] == 2 and marks["within"] is not None
    within = marks["within"]
    shares = np.bincount(balanced[:within + 1], minlength=3) / (within + 1)
    assert np.max(np.abs(shares - 1 / 3)) < TOLERANCE
    assert milestones(np.zeros(50, dtype=int), 3, visits=(2,)) == {
        "2_modes": None, "all_modes": None, "within": None}


def test_ee_equal_cost_cuts_every_contender_at_the_smallest_spend(capsys):
    """The always-defined comparison: modes visited within the smallest total spent."""
    from tempering.bench.ee import at_cost, print_equal_cost

    def row(label, modes, step):
        modes = np.asarray(modes)
        passes = step * np.arange(1, len(modes) + 1, dtype=float)
        return {"label": label, "modes": modes, "passes": passes,
                "passes_spent": float(passes[-1])}

    rows = [row("MINTEE (fixed)", [0, 1, 2, 3, 4, 5], 1.0),
            row("MINTEE (random)", [0, 0, 0, 0], 1.0),
            row("EE (full data)", [0, 1, 1, 2, 3, 4], 2.0),
            row("PT (geometric)", [0, 1, 0, 1], 3.0)]
    assert at_cost(rows[0], 4.0)[0] == 4 and at_cost(rows[2], 4.0)[0] == 2
    print_equal_cost(rows)
    out = capsys.readouterr().out
    assert "at equal cost (4 data passes" in out  # MINTEE (random) spent the least
    assert "MINTEE (fixed) 2×, MINTEE (random) 0.5×, PT (geometric) 0.5×" in out
    rows[2] = row("EE (full data)", [0, 1, 1, 2, 3, 4], 20.0)  # its first draw after 20 passes
    print_equal_cost(rows)
    out = capsys.readouterr().out
    assert "EE (full data) no draw yet" in out and "has made no level-0 draw within 4 passes" in out
    assert "start-up alone took 20" in out


@pytest.mark.slow  # six child processes of `tempering sample`: ~40 s
def test_io_prints_memory_and_checkpoint_tables(capsys):
    code, out, _ = run_cli(["bench", "io", "--quick"], capsys)
    assert code == 0, out
    memory, checkpoints = out.split("Checkpoint cost")
    rows = [line for line in memory.splitlines() if re.match(r"\| \d+ \|", line)]
    assert [int(r.split("|")[1]) for r in rows] == [200, 800]
    assert all(float(r.split("|")[3]) > 50 for r in rows)  # a peak resident set in MB
    rows = [line for line in checkpoints.splitlines() if re.match(r"\| \d+ \|", line)]
    assert [int(r.split("|")[2]) for r in rows] == [2, 4]  # checkpoints every 200 draws
