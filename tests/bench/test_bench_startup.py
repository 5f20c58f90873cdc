"""``tempering bench startup``: every row a cold, fresh process whose phases add up, and a row
that fails is a row, not a crash.

- End to end (slow: three children compiling from nothing): ``--quick --only rwm`` gives RWM's
  row with NumPyro's NUTS and BlackJAX's SMC beside it; each row's phases are non-negative and
  sum to at most its total, the total to at most the process's wall, the child found both
  persistent caches off (the test suite's own cache is in this process's environment, so the
  child's settings are what switched it off) and compiled programs of its own.
- A child that raises, one that dies without a row, and one past its time limit are failed rows
  with one line each; the table shows them as failed under the same columns.
- Bad options are one-line CLI errors.
"""

from __future__ import annotations

import json

import pytest
from cli_helpers import run_cli

from tempering.bench.startup import spawn
from tempering.bench.startup.child import PHASES
from tempering.bench.startup.plan import QUICK, Group, groups
from tempering.bench.startup.report import table


@pytest.mark.slow  # ~30 s: three child processes compiling from nothing
def test_quick_rows_are_cold_and_their_phases_add_up(capsys, tmp_path):
    out = tmp_path / "startup.json"
    code, stdout, err = run_cli(["bench", "startup", "--quick", "--only", "rwm", "--out", out],
                                capsys)
    assert code == 0, err
    rows = json.loads(out.read_text())["rows"]
    assert [r["label"] for r in rows] == ["rwm", "numpyro nuts", "blackjax smc"]
    for row in rows:
        assert row["ok"], row.get("error")
        phases = row["phases"]
        assert set(phases) == set(PHASES)
        assert all(seconds >= 0 for seconds in phases.values()), phases
        assert sum(phases.values()) <= row["total"] + 1e-9
        assert 0 < row["total"] <= row["process"]
        assert row["import_tempering"] <= phases["import"]
        cache = row["cache"]
        assert cache["off"] and cache["TEMPERING_COMPILE_CACHE"] == "off", cache
        assert not cache["jax_enable_compilation_cache"] and not cache["events"].get("cache_hits")
        assert row["jax"]["programs"] > 0 and row["jax"]["xla"] > 0 and phases["compile"] > 0
    assert not rows[0]["tempering_imports_jax"]  # the facade is lazy
    assert "| rwm | gauss_mixture (dim=2, widths=unequal) |" in stdout and "×SMC" in stdout


def test_a_child_that_raises_is_a_failed_row_with_its_one_line_error():
    request = {"kind": "library", "label": "broken", "model": "gauss_mixture",
               "model_options": {"dim": 2}, "sampler": "no_such_sampler", "sampler_options": {},
               "seed": 0, "chains": 1, "warmup": 1, "draws": 1}
    row = spawn.measure(request, timeout=300)
    assert not row["ok"] and row["label"] == "broken" and row["process"] > 0
    assert row["error"].startswith("UserInputError: unknown sampler 'no_such_sampler'")
    assert "\n" not in row["error"]


@pytest.mark.parametrize("script, timeout, error", [
    ("raise RuntimeError('boom')", 60, "RuntimeError: boom"),
    ("import time; time.sleep(30)", 0.5, "timed out after 0.5 s"),
    ("print('no row here')", 60, "exit status 0, no row printed"),
])
def test_a_child_without_a_row_is_a_failed_row(monkeypatch, tmp_path, script, timeout, error):
    child = tmp_path / "child.py"
    child.write_text(script + "\n")
    monkeypatch.setattr(spawn, "CHILD", child)
    row = spawn.measure({"kind": "library", "label": "dies"}, timeout=timeout)
    assert row == {"kind": "library", "label": "dies", "ok": False, "error": error,
                   "process": row["process"]}


def test_the_table_shows_failed_rows_and_ratios_against_smc():
    ok = {"label": "rwm", "model": "gauss_mixture", "model_options": {"dim": 2}, "ok": True,
          "phases": dict.fromkeys(PHASES, 0.5), "other": 0.1, "total": 3.6, "process": 4.0,
          "import_tempering": 0.05, "jax": {"trace": 0.1, "lower": 0.2, "xla": 1.0,
                                            "compiling": 1.2, "programs": 7,
                                            "top_programs": [["jit(start)", 1, 0.8]]}}
    smc = {**ok, "label": "blackjax smc", "total": 1.8}
    failed = {"label": "pt", "model": "gauss_mixture", "model_options": {}, "ok": False,
              "error": "RuntimeError: boom"}
    lines = table(Group("samplers", "title", []), [ok, failed, smc])
    assert lines[2].startswith("| rwm | gauss_mixture (dim=2) | 0.50 | 0.05 |")
    assert lines[2].endswith("| 7 | 2.00× |")
    assert lines[3].count("|") == lines[2].count("|") and "| failed |" in lines[3]
    assert "  pt: failed: RuntimeError: boom" in lines
    assert "  rwm: 7 programs; most compiled: jit(start) ×1 (0.80 s)" in lines


def test_only_chooses_samplers_and_targets_and_quick_runs_few():
    assert [g.key for g in groups(QUICK, None)] == ["samplers", "gauss-mixture-2d"]
    assert [r["label"] for r in groups(QUICK, None)[0].requests] == [
        "rwm", "pt", "numpyro nuts", "blackjax smc"]
    chosen = groups(QUICK, "eggbox, mint")
    assert [g.key for g in chosen] == ["samplers", "eggbox"]
    mint = chosen[0].requests[0]
    assert (mint["sampler"], mint["model"], mint["model_options"]) == ("mint", "mvn_mean",
                                                                        {"dim": 2})
    assert [r["label"] for r in chosen[1].requests] == ["pt", "numpyro nuts", "blackjax smc"]


@pytest.mark.parametrize("args, fragment", [
    (["bench", "startup", "--only", "nope"], "--only: unknown sampler or target nope"),
    (["bench", "startup", "--n", "5"], "--n does not apply"),
    (["bench", "startup", "--repeats", "0"], "--repeats must be positive"),
    (["bench", "startup", "--dim", "1"], "--dim must be at least 2"),
])
def test_bad_input_is_one_line_exit_2(capsys, args, fragment):
    code, out, err = run_cli(args, capsys)
    assert code == 2 and out == ""
    lines = err.splitlines()
    assert len(lines) == 1 and fragment in lines[0], err
