"""The report page: one section per run (settings, summary, trace and rank plots, the sampler's
own view), a comparison table when there are several, and the atomic write of the HTML file."""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from tempering.report.compare import comparison
from tempering.report.markup import Html, join, page, paragraph, section, tag
from tempering.report.posterior_plots import trace_and_rank
from tempering.report.runs import LoadedRun, load_runs
from tempering.report.sampler_view import rung_caveat, sampler_view
from tempering.report.settings import run_settings
from tempering.report.summary_table import summary_section
from tempering.run.output import check_output_path


def run_section(index: int, run: LoadedRun) -> Html:
    """Everything the page shows about one run."""
    s = run.summary
    unfinished = s.get("unfinished")
    flag = (paragraph(f"Unfinished run: {unfinished['committed_draws']} of "
                      f"{unfinished['planned_draws']} draws per chain committed so far (still "
                      "running, or stopped: tempering resume continues it).", class_="flag")
            if unfinished else join([]))
    return section(
        f"Run {index}: {run.path.name} — {s['sampler']} on {s['model']}, {s['chains']} chains "
        f"× {s['draws']} draws", flag,
        tag("h3", "Settings"), run_settings(run.idata, run.path),
        tag("h3", "Summary"), summary_section(s),
        tag("h3", "Trace and rank plots"),
        trace_and_rank(run.idata["posterior"], rung_caveat(run.idata["sample_stats"])),
        tag("h3", "Sampler statistics"), sampler_view(run.idata, s),
        id_=f"run-{index}")


def render_page(runs: Sequence[LoadedRun]) -> str:
    """The whole HTML document for loaded runs."""
    from tempering import __version__

    names = ", ".join(run.path.name for run in runs)
    header = [tag("h1", f"tempering report: {names}"),
              paragraph(f"Written {time.strftime('%Y-%m-%d %H:%M:%S %z')} by tempering "
                        f"{__version__}.", class_="note")]
    parts = [*header]
    if len(runs) > 1:
        parts.append(section("Comparison", comparison(runs), id_="comparison"))
    parts += [run_section(i, run) for i, run in enumerate(runs)]
    return page(f"tempering report: {names}", join(parts))


def write_text_atomic(text: str, path: Path) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically: a temporary file in the same directory,
    then a rename; the temporary file is removed on failure."""
    handle, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as f:
            f.write(text)
        mask = os.umask(0o022)
        os.umask(mask)
        os.chmod(tmp, 0o666 & ~mask)  # mkstemp makes it 0600; a report is an ordinary file
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def write_report(paths: Sequence[str | Path], out: str | Path) -> Path:
    """Load and summarise the runs, build the page and write it to ``out``; returns the path.

    Raises
    ------
    UserInputError
        ``out`` cannot be written, or a run file is missing or not a run file (nothing is
        written).
    """
    target = check_output_path(out)
    return write_text_atomic(render_page(load_runs(paths)), target)
