"""``tempering bench tall-mixture`` (issue 46, part 4): a tall multimodal posterior — label
switching on the library's ``mixture`` (3 components at −3, 0, 3, n = 10⁴ and 10⁵ points), whose
3! = 6 orderings of the means hold 1/6 of the posterior each — the library's tempering samplers
at their defaults beside BlackJAX's adaptive tempered SMC and NumPyro's NUTS, each a cold, fresh
process, scored by how fast the orderings' frequencies come within 0.05 of 1/6 with every
ordering in every chain.

Map of the package (one concept per file); the child processes are ``bench tall``'s
(:mod:`tempering.bench.tall.child`, :mod:`tempering.bench.tall.spawn`):

- :mod:`.plan` — ``FULL`` and ``QUICK`` sizes, ``--rows``, the contenders and each run's
  request;
- :mod:`.runs` — the runners the child loads by path (the library through ``run_chains``,
  NumPyro's NUTS, BlackJAX's SMC through ``bench multimodal``'s runner);
- :mod:`.metrics` — the orderings, the error, the orderings per chain, error against time,
  seconds to reach 0.05;
- :mod:`.case` — one n: every contender's child and its scored row;
- :mod:`.report` — one markdown table per n, ratios against SMC's seconds; :mod:`.plots` — one
  PNG per n.

:func:`run` prints the tables, writes the plots under ``out`` (default ``tall-mixture-bench``)
and every row as JSON to ``json_out`` when given, and returns the rows. Benchmarks report what
they measure on this machine, in one run; they are not timed tests.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

from tempering import UserInputError
from tempering.bench.tall import device_of, machine
from tempering.bench.tall.spawn import bench_environment
from tempering.bench.tall_mixture.case import run_case
from tempering.bench.tall_mixture.plan import (
    MODEL_OPTIONS,
    Contender,
    Size,
    chosen_contenders,
    chosen_size,
)
from tempering.bench.tall_mixture.plots import plot_case
from tempering.bench.tall_mixture.report import LEGEND, table
from tempering.registry import RunnableSpec

NAME = "bench tall-mixture"


def _folder(path: Path | None) -> Path:
    """The output folder (made here); its parent must exist."""
    folder = Path(path if path is not None else "tall-mixture-bench")
    if not folder.parent.is_dir():
        raise UserInputError(f"output directory's parent does not exist: {folder.parent}")
    folder.mkdir(exist_ok=True)
    return folder


def run(n: int | None = None, dim: int | None = None, quick: bool = False,
        out: Path | None = None, only: str | None = None, rows: str | None = None,
        json_out: Path | None = None) -> list[dict]:
    """Run every contender on every n, print one table per n, write one PNG per n under
    ``out`` and every row to the JSON file ``json_out``.

    Parameters
    ----------
    n, dim
        Refused (``--rows`` chooses n; the mixture has 3 means).
    quick
        The tests' tiny size (n = 300, 2 chains, 100 warmup, 200 draws, SMC 500 particles, two
        children at a time).
    out
        The folder of the plots (default ``tall-mixture-bench``).
    only
        Comma-separated contender labels (default: all).
    rows
        Comma-separated n (default 10⁴ and 10⁵).
    json_out
        A JSON file of every row and curve.

    Returns
    -------
    list of dict
        Every row, with its ``n``.
    """
    if n is not None or dim is not None:
        raise UserInputError(f"{NAME}: --n and --dim do not apply (use --rows)")
    size = chosen_size(quick, rows)
    contenders = chosen_contenders(only)
    folder = _folder(out)
    if json_out is not None and not Path(json_out).parent.is_dir():
        raise UserInputError(f"output file's folder does not exist: {Path(json_out).parent}")
    with bench_environment():
        return _run(size, contenders, folder, json_out)


def _run(size: Size, contenders: list[Contender], folder: Path,
         json_out: Path | None) -> list[dict]:
    """:func:`run`'s work, once its options are checked."""
    here = machine()
    print(f"{NAME} ({size.name}): mixture, means {MODEL_OPTIONS['means']}, σ = "
          f"{MODEL_OPTIONS['sigma']:g}, prior N(0, {MODEL_OPTIONS['prior_sd']:g}²); "
          f"{size.chains} chains, {size.warmup} warmup, {size.draws} draws; SMC "
          f"{size.particles} particles, {size.moves} moves per stage; each contender a fresh "
          f"process, compilation caches off; {time.strftime('%Y-%m-%d %H:%M')}; "
          f"{here['cpus']} CPUs, JAX {here['jax']} on {here['device']}", flush=True)
    if size.workers > 1:
        print(f"({size.workers} contenders at a time: the seconds of this size are not for "
              "reading)", flush=True)
    start = time.perf_counter()
    found: list[dict[str, Any]] = []
    cases: list[dict[str, Any]] = []
    for n_rows in size.rows:
        print(f"\nn = {n_rows:,}", flush=True)
        case_rows = run_case(n_rows, size, contenders, lambda line: print(line, flush=True))
        device = device_of(case_rows)
        print(f"\nn = {n_rows:,}, on {device}:\n" + "\n".join(table(case_rows)), flush=True)
        plot_case(n_rows, case_rows, device, folder)
        cases.append({"n": n_rows, "device": device, "rows": case_rows})
        found += [{**r, "n": n_rows} for r in case_rows]
    print(f"\n{LEGEND}\n\n{NAME}: {time.perf_counter() - start:.0f} s in all; wrote "
          f"{folder}/tall-mixture-n*.png", flush=True)
    if json_out is not None:
        Path(json_out).write_text(json.dumps(
            {"size": asdict(size), "machine": here, "date": time.strftime("%Y-%m-%d %H:%M"),
             "model": MODEL_OPTIONS, "cases": cases}, indent=1, default=str))
        print(f"wrote {json_out}")
    return found


SPEC = RunnableSpec(
    "tall-mixture", "tall multimodal data: label switching on a 3-component mixture, n = 10⁴ "
    "and 10⁵ points — the library's PT, SPT, STT and MINTEE beside BlackJAX's SMC and NumPyro's "
    "NUTS, each a cold process: seconds to an ordering error of 0.05 with every ordering in "
    "every chain, final error, orderings per chain, compile apart, data evaluations, peak "
    "memory", run)
