"""``tempering report``: the HTML page of real (tiny) runs, opened in Debian's Chromium through
Playwright — no console or page errors, every image decoded, no request beyond the file itself —
plus escaping of hostile run attributes, the comparison table and one-line input errors.

Chromium is a prerequisite (``make test`` installs it: the ``browser`` target); without it the
browser tests fail, they do not skip. The full-page screenshot is kept as a test artefact under
pytest's temporary directory and in ``test-artifacts/report.png``.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from cli_helpers import run_cli

import tempering
from tempering.report import load_runs, write_report
from tempering.report.compare import comparison
from tempering.run.loading import load_run
from tempering.run.output import save_run

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
ARTEFACT = Path(__file__).resolve().parents[2] / "test-artifacts" / "report.png"
HOSTILE = "<script>alert(1)</script>"
TINY = dict(chains=2, draws=200, warmup=0, seed=1, chain_method="vmap", thin=1, progress=False)


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    """A PT and an ST run of the two-mode mixture, and the PT run with hostile attributes."""
    out = tmp_path_factory.mktemp("runs")
    pt = tempering.run_and_save("mixture", "pt", {"model": {}, "sampler": {"rungs": 3}},
                                out=out / "pt.nc", **TINY)
    st = tempering.run_and_save("mixture", "st", {"model": {}, "sampler": {"rungs": 4}},
                                out=out / "st.nc", **TINY)
    idata = load_run(pt)
    for group in ("posterior", "sample_stats"):
        idata[group].attrs["model"] = HOSTILE
        idata[group].attrs["model_options"] = json.dumps({"<b>key</b>": HOSTILE})
    hostile = save_run(idata, out / "a&b<c>.nc")
    return {"pt": pt, "st": st, "hostile": hostile}


@pytest.fixture(scope="module")
def page(runs, tmp_path_factory) -> Path:
    """The report of the PT and ST runs (written by the package's writer)."""
    return write_report([runs["pt"], runs["st"]], tmp_path_factory.mktemp("page") / "r.html")


@pytest.fixture(scope="module")
def browser(page, tmp_path_factory) -> dict:
    """What Chromium saw when it opened the page: console errors, page errors, request URLs,
    image widths, table row counts, section texts and the screenshot's path."""
    if not CHROMIUM.is_file():
        pytest.fail(f"Chromium is not installed at {CHROMIUM}: run `make browser` (apt-get "
                    "install chromium) — the browser tests need it and do not skip")
    from playwright.sync_api import sync_playwright

    seen: dict = {"errors": [], "requests": []}
    shot = tmp_path_factory.mktemp("screenshot") / "report.png"
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            tab = chromium.new_page(viewport={"width": 1280, "height": 900})
            tab.on("console", lambda m: m.type == "error" and seen["errors"].append(m.text))
            tab.on("pageerror", lambda e: seen["errors"].append(f"page error: {e}"))
            tab.on("request", lambda r: seen["requests"].append(r.url))
            tab.goto(page.as_uri(), wait_until="load")
            seen["widths"] = tab.evaluate(
                "Array.from(document.images).map(i => i.complete ? i.naturalWidth : 0)")
            seen["summary_rows"] = tab.evaluate(
                "Array.from(document.querySelectorAll('table.summary')).map("
                "t => t.querySelectorAll('tbody tr').length)")
            seen["comparison"] = tab.evaluate(
                "Array.from(document.querySelectorAll('table.comparison tbody tr')).map("
                "r => r.cells[0].textContent)")
            seen["sections"] = tab.evaluate(
                "['run-0', 'run-1'].map(id => document.getElementById(id).innerText)")
            tab.screenshot(path=str(shot), full_page=True)
        finally:
            chromium.close()
    ARTEFACT.parent.mkdir(exist_ok=True)
    shutil.copyfile(shot, ARTEFACT)
    seen["screenshot"] = shot
    return seen


def test_page_opens_without_errors_or_requests(browser, page):
    assert browser["errors"] == []
    outside = [u for u in browser["requests"] if not u.startswith(("file:", "data:"))]
    assert outside == [], outside
    assert page.as_uri() in browser["requests"]


def test_every_image_decodes(browser):
    # per run: trace + rank, cost per draw; PT adds swaps per pair, round trips, replica
    # process and two per-index means; ST the rung process, occupation, IS ESS and λ
    assert len(browser["widths"]) >= 12
    assert all(w > 0 for w in browser["widths"]), browser["widths"]


def test_summary_table_per_run(browser):
    assert browser["summary_rows"] == [2, 2]  # mu[0], mu[1] in each run


def test_comparison_table_has_one_row_per_run(browser):
    assert browser["comparison"] == ["pt.nc", "st.nc"]


def test_sampler_views_follow_the_declared_statistics(browser):
    pt, st = browser["sections"]
    assert "swap accept per pair" in pt and "Replica index process" in pt
    assert "Rung occupation" in st and "per-rung IS ESS" not in pt
    for text in (pt, st):
        assert "Cost per draw" in text


def test_screenshot_is_kept(browser):
    data = browser["screenshot"].read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 50_000
    assert ARTEFACT.read_bytes() == data


def test_user_strings_are_escaped(runs, tmp_path, capsys):
    out = tmp_path / "hostile.html"
    code, stdout, err = run_cli(["report", runs["hostile"], "--out", out], capsys)
    assert code == 0, err
    assert stdout.strip() == f"wrote {out}"
    text = out.read_text(encoding="utf-8")
    assert HOSTILE not in text and "<script" not in text.lower() and "<b>key" not in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text
    assert "&lt;b&gt;key&lt;/b&gt;" in text and "a&amp;b&lt;c&gt;.nc" in text
    assert [p.name for p in tmp_path.iterdir()] == ["hostile.html"]  # no temporary file left


def test_comparison_flags_runs_of_different_models(runs):
    table = comparison(load_runs([runs["hostile"], runs["pt"], runs["pt"]]))
    assert "different models" in table  # the hostile copy claims another model
    assert table.count("<tr>") == 4  # header + one row per run
    assert HOSTILE not in table and "&lt;script&gt;" in table
    assert "different models" not in comparison(load_runs([runs["pt"], runs["pt"]]))


@pytest.mark.parametrize("case", ["missing run", "not a run", "no output directory"])
def test_bad_input_is_one_line_and_exit_2(case, runs, tmp_path, capsys):
    junk = tmp_path / "junk.nc"
    junk.write_text("not NetCDF", encoding="utf-8")
    run, out, fragment = {
        "missing run": (tmp_path / "missing.nc", tmp_path / "r.html", "run file not found"),
        "not a run": (junk, tmp_path / "r.html", "not a tempering run file"),
        "no output directory": (runs["pt"], tmp_path / "nope" / "r.html",
                                "output directory does not exist"),
    }[case]
    code, stdout, err = run_cli(["report", run, "--out", out], capsys)
    assert code == 2
    assert err.startswith("tempering: error: ") and fragment in err
    assert len(err.strip().splitlines()) == 1
    assert not out.exists()
