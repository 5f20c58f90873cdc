"""The progress bar tells the truth: the sampler's headline statistics, the phases as they
happen, and an end line with compilation apart; and it changes no draw."""

from __future__ import annotations

import io
import re
from contextlib import redirect_stdout

import numpy as np
import pytest
from rich.console import Console

from tempering import get_model, load_run, run_chains
from tempering.algorithms import get_sampler
from tempering.algorithms.base import Headline
from tempering.cli.main import main
from tempering.run import progress as progress_module
from tempering.run.progress import done_line, headline_text

MVN = {"n": 20, "dim": 2, "data_seed": 3}
PT = {"rungs": 3, "step_size": 0.3}
RUN = ["--chains", "2", "--draws", "40", "--warmup", "20", "--seed", "6"]
DONE = re.compile(r"done in (\d+\.\d) s \(compile (\d+\.\d) s, warmup (\d+\.\d) s, "
                  r"sampling (\d+\.\d) s\)")


def _cli(args: list, monkeypatch: pytest.MonkeyPatch, console: Console) -> str:
    """Run ``tempering ARGS`` in-process with the bar on ``console``; returns stdout."""
    monkeypatch.setattr(progress_module, "make_console", lambda: console)
    stdout = io.StringIO()
    with redirect_stdout(stdout), pytest.raises(SystemExit) as exc:
        main([str(a) for a in args])
    assert exc.value.code in (0, None)
    return stdout.getvalue()


def _records(idata) -> dict[str, np.ndarray]:
    return {name: idata.sample_stats[name].values for name in idata.sample_stats.data_vars}


@pytest.fixture(scope="module")
def pt_runs(tmp_path_factory):
    """The same PT run from the CLI with the bar (on a console that cannot redraw, as in a log)
    and without it: (stderr, stdout with, stdout without, run with, run without)."""
    tmp = tmp_path_factory.mktemp("pt")
    sets = [item for key, value in {**{f"model.{k}": v for k, v in MVN.items()},
                                    **{f"sampler.{k}": v for k, v in PT.items()}}.items()
            for item in ("--set", f"{key}={value}")]
    args = ["sample", "--model", "mvn_mean", "--sampler", "pt", *RUN, *sets]
    stderr = io.StringIO()
    console = Console(file=stderr, width=160, force_terminal=False)
    with pytest.MonkeyPatch.context() as monkeypatch:
        out_on = _cli([*args, "--out", tmp / "on.nc"], monkeypatch, console)
        out_off = _cli([*args, "--no-progress", "--out", tmp / "off.nc"], monkeypatch, console)
    return (stderr.getvalue(), out_on, out_off, load_run(tmp / "on.nc"),
            load_run(tmp / "off.nc"))


@pytest.fixture(scope="module")
def stt_live():
    """STT, chains one after another, with the bar redrawn live on a terminal: (everything
    written to the terminal, the algorithm, the run)."""
    model = get_model("mvn_mean", **MVN)
    algorithm = get_sampler("stt", model, rungs=3, inner_steps=2)
    terminal = io.StringIO()
    console = Console(file=terminal, width=160, force_terminal=True, force_interactive=True,
                      color_system=None)
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setattr(progress_module, "make_console", lambda: console)
        result = run_chains(model, algorithm, key=2, draws=30, chains=2, warmup=10,
                            chain_method="sequential", chunk_size=6, progress=True)
    return terminal.getvalue(), algorithm, result.idata


def test_pt_bar_shows_swap_acceptance_and_round_trips(pt_runs):
    stderr, _, _, idata, _ = pt_runs
    algorithm = get_sampler("pt", get_model("mvn_mean", **MVN), **PT)
    expected = headline_text(algorithm.headline, _records(idata))
    assert re.fullmatch(r"swap accept \d\.\d\d  round trips \d+", expected)
    final_row = next(line for line in stderr.splitlines() if line.startswith("sampling 80/80"))
    assert expected in final_row
    # the inner kernel's acceptance is not what PT puts forward
    assert "accept" not in final_row.replace("swap accept", "")


def test_stt_bar_shows_tempered_transition_acceptance(stt_live):
    terminal, algorithm, idata = stt_live
    expected = headline_text(algorithm.headline, _records(idata))
    assert expected.startswith("TT accept ") and "  accept " in expected
    final_frame = terminal.rsplit("sampling 60/60", 1)[1].split("\n")[0]
    assert expected in final_frame  # the bar's final state: over all chains, not the last one
    tt = float(expected.split()[2])
    assert tt == pytest.approx(float(np.mean(idata.sample_stats["tt_accepted"])), abs=0.006)


def test_phases_appear_as_they_happen_on_a_live_bar(stt_live):
    terminal, _, _ = stt_live
    # compiling first, then each chain's warmup and sampling in turn, the counts over all chains
    marks = ["compiling", "warmup 0/20", "warmup 10/20", "sampling 0/60", "sampling 30/60",
             "warmup 20/20", "sampling 60/60"]
    positions = [terminal.find(mark) for mark in marks]
    assert -1 not in positions, dict(zip(marks, positions, strict=True))
    assert positions == sorted(positions)
    assert "compiled in" not in terminal  # a live bar shows phases in place, no log lines


def test_phases_are_logged_where_the_bar_cannot_redraw(pt_runs):
    stderr = pt_runs[0]
    lines = stderr.splitlines()
    assert re.fullmatch(r"compiled in \d+\.\d s", lines[0])
    assert re.fullmatch(r"warmup 40/40 in \d+\.\d s", lines[1])
    assert lines[2].startswith("sampling 80/80 ")
    assert DONE.fullmatch(lines[3])


def test_end_line_shows_compilation_apart(pt_runs, stt_live):
    stderr, out_on, out_off, idata_on, idata_off = pt_runs
    for text, idata in ((stderr, idata_on), (stt_live[0], stt_live[2]), (out_off, idata_off)):
        attrs = idata.posterior.attrs
        match = DONE.search(text)
        assert match, text
        total, compile_, warm, sampling = (float(g) for g in match.groups())
        assert total == pytest.approx(attrs["wall_seconds_total"], abs=0.051)
        assert compile_ == pytest.approx(attrs["wall_seconds_compile"], abs=0.051)
        assert warm == pytest.approx(attrs["wall_seconds_warmup"], abs=0.051)
        assert sampling == pytest.approx(attrs["wall_seconds_sampling"], abs=0.051)
        assert compile_ > 0
        assert attrs["wall_seconds_total"] >= (attrs["wall_seconds_compile"]
                                               + attrs["wall_seconds_warmup"]
                                               + attrs["wall_seconds_sampling"])
    # `tempering sample` prints the line once: on the bar, or on stdout without one
    assert DONE.search(out_off) and not DONE.search(out_on)
    assert len(DONE.findall(stderr)) == 1


def test_progress_changes_no_draw(pt_runs):
    _, _, _, idata_on, idata_off = pt_runs
    np.testing.assert_array_equal(idata_on.posterior["theta"].values,
                                  idata_off.posterior["theta"].values)
    for name in idata_on.sample_stats.data_vars:
        np.testing.assert_array_equal(idata_on.sample_stats[name].values,
                                      idata_off.sample_stats[name].values)


def test_headline_text_formats_rates_counts_and_missing_values():
    record = {"a": np.array([[1.0, 0.0], [1.0, 1.0]]), "trips": np.array([[1, 3], [0, 2]]),
              "empty": np.zeros((2, 0))}
    headlines = (Headline("rate", "a"), Headline("trips", "trips", last=True),
                 Headline("none", "empty"), Headline("gone", "absent"))
    assert headline_text(headlines, record) == "rate 0.75  trips 5  none –  gone –"


def test_done_line_counts_what_lies_outside_the_phases():
    attrs = {"wall_seconds_total": 16.54, "wall_seconds_compile": 8.11,
             "wall_seconds_warmup": 6.2, "wall_seconds_sampling": 2.2}
    assert done_line(attrs) == "done in 16.5 s (compile 8.1 s, warmup 6.2 s, sampling 2.2 s)"
    del attrs["wall_seconds_total"]  # a run file written before the total was recorded
    assert done_line(attrs).startswith("done in 16.5 s (compile 8.1 s")


def test_pilot_line_of_a_pilot_that_is_not_pt_s():
    """The discretizing chain's pilot records what it chose, its seconds and its cost only."""
    from tempering.run.progress import pilot_line

    record = {"m": 91, "chose": "m = 91 (pilot mark acceptance 0.424, bar 0.4)", "seconds": 13.04,
              "cost": 2270.4, "accept_by_m": {"64": 0.0, "91": 0.424}}
    assert pilot_line(record) == ("pilot: m = 91 (pilot mark acceptance 0.424, bar 0.4); "
                                  "13.0 s, cost 2270")
